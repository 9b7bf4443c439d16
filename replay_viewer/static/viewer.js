/* Tilefold replay viewer: renders the server's frames (engine views); no game rule lives here.
   Every name and tile from the data is written with textContent, never as HTML. */
(function () {
  "use strict";
  const NUM = "一二三四五六七八九";
  const SUIT = { m: "万", p: "筒", s: "条" };
  const HONOUR = { E: ["东", "wind"], S: ["南", "wind"], W: ["西", "wind"], N: ["北", "wind"],
                   C: ["中", "dr"], F: ["发", "dg"], P: ["白", "dw"] };
  const SEAT_COLOURS = ["var(--seat0)", "var(--seat1)", "var(--seat2)", "var(--seat3)"];
  const SEAT_HEX = ["#d1495b", "#2e86de", "#20a162", "#9b59b6"];
  // Variant labels and the wild tile's name (耗子 K-13, 配子 H-2) come from the engine's variant
  // registry, as frames.json "variants".
  const variantInfo = (v) => (data && data.variants && data.variants[v]) || {};
  const variantLabel = (v) => variantInfo(v).label || v;
  const wildName = () => variantInfo(data && data.variant).wild || "配子";
  // the badge on a wild tile: the first character of its name (耗 for 耗子, 配 for 配子)
  const wildMark = () => wildName().charAt(0);
  const BY = { self_draw: ["自摸", "self-draw"], kong_draw: ["杠上开花", "win on a kong replacement"],
               discard: ["点炮", "on a discard"], rob_kong: ["抢杠", "robbing a kong"] };
  const RESP = { pass: ["过", "pass"], pung: ["碰", "pung"], kong: ["杠", "kong"], hu: ["胡", "hu"], ting: ["报听", "ting"] };
  const KONG = { exposed: ["明杠", "exposed kong"], added: ["加杠", "added kong"], concealed: ["暗杠", "concealed kong"] };
  const WINDOW = { claim: ["叫牌", "claims on a discard"], rob: ["抢杠", "robbing the kong"], ting: ["报听", "declare ready"] };
  const WINDS = ["东", "南", "西", "北"];
  const WIND_EN = ["East", "South", "West", "North"];
  const T = window.TilefoldTiles || null;
  const PHASE = { lobby: "准备发牌 dealing", ting: "报听 ting", turn: "出牌 turn", claim: "叫牌 claim", rob: "抢杠 rob",
                  hand_over: "本局结束 hand over", match_over: "终局 match over", settle: "结算 settle" };

  const body = document.body;
  const matchId = body.dataset.match;
  const framesUrl = body.dataset.frames;
  const owner = new URLSearchParams(location.search).get("owner");
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  };

  let data = null;      // the frames document
  let index = 0;        // current step
  let perspective = "all";

  // ---------------------------------------------------------------- tiles
  function tileZh(name) {
    if (!name) return "?";
    if (HONOUR[name]) return HONOUR[name][0];
    return NUM[Number(name[0]) - 1] + SUIT[name[1]];
  }
  function tileLabel(name) { return name ? tileZh(name) + " (" + name + ")" : "?"; }
  function tile(name, opts) {
    opts = opts || {};
    const t = el("span", "tile" + (opts.small ? " sm" : ""));
    if (!name) {
      t.classList.add("back");
      t.title = opts.faceDown ? "扣牌 face-down tile" : "暗牌 hidden tile";
      if (opts.faceDown) t.classList.add("facedown");
      if (T) t.appendChild(T.element(null));
      return t;
    }
    t.dataset.tile = name;
    const mark = opts.wild ? wildMark() : undefined;
    if (T) {
      t.classList.add("svg");
      t.appendChild(T.element(name, mark ? { mark: mark } : {}));
    } else if (HONOUR[name]) {
      t.classList.add("h", HONOUR[name][1]);
      t.appendChild(el("b", null, HONOUR[name][0]));
    } else {
      t.classList.add(name[1]);
      t.appendChild(el("b", null, NUM[Number(name[0]) - 1]));
      t.appendChild(el("i", null, SUIT[name[1]]));
    }
    if (mark) t.dataset.mark = mark;
    t.title = tileLabel(name);
    if (opts.wild) t.classList.add("wild");
    if (opts.faceDown) { t.classList.add("facedown"); t.title += " 扣牌 face down"; }
    if (opts.claimed) { t.classList.add("claimed"); t.title += " 被吃碰 claimed"; }
    if (opts.drawn) t.classList.add("drawn");
    if (opts.last) t.classList.add("last");
    return t;
  }
  function parseHand(text) {  // compact notation "123m45pEE" -> ["1m","2m","3m","4p","5p","E","E"]
    const out = []; let digits = [];
    for (const ch of text || "") {
      if (ch >= "1" && ch <= "9") digits.push(ch);
      else if (SUIT[ch]) { digits.forEach((d) => out.push(d + ch)); digits = []; }
      else if (HONOUR[ch]) out.push(ch);
    }
    return out;
  }

  // ---------------------------------------------------------------- names
  function playerName(s) {
    const seat = data.seats && data.seats[s];
    return seat ? seat.name : "空位 empty seat";
  }
  function windOf(s) {  // the seat's wind in the hand on screen (G-2): the engine's view says it (hand.winds)
    const v = data && data.steps[index] && data.steps[index].view;
    return v && v.hand && v.hand.winds ? WINDS["ESWN".indexOf(v.hand.winds[s])] : null;  // no hand dealt yet: none
  }
  function currentWild() {
    const v = data.steps[index] && data.steps[index].view;
    return v && v.hand ? v.hand.wild : null;
  }
  function seatName(s) {
    if (s === null || s === undefined) return "?";
    const w = windOf(s);
    return (w ? w + " " : "") + playerName(s);
  }
  function pair(zh, en) {
    const span = el("span");
    span.appendChild(el("span", "zh", zh));
    span.appendChild(document.createTextNode(" "));
    span.appendChild(el("span", "en", en));
    return span;
  }

  // ---------------------------------------------------------------- event text
  function describe(e) {
    const box = el("div", "event");
    const add = (node) => box.appendChild(typeof node === "string" ? el("span", null, node) : node);
    const who = e.seat !== undefined ? seatName(e.seat) : "";
    switch (e.type) {
      case "match_started":
        add(pair("开局", "match starts")); add(variantLabel(e.variant)); break;
      case "hand_started":
        add(pair("第" + e.hand + "局", "hand " + e.hand)); add(pair("庄家", "dealer")); add(seatName(e.dealer));
        if (e.wild) { add(pair(wildName(), "wild")); add(tile(e.wild, { small: true })); }
        break;
      case "drew":
        add(who); add(pair(e.source === "kong" ? "杠后补牌" : "摸牌", e.source === "kong" ? "draws from the kong end" : "draws"));
        add(tile(e.tile, { small: true })); break;
      case "discarded":
        add(who); add(pair(e.face_down ? "扣牌" : "打出", e.face_down ? "discards face down" : "discards"));
        add(tile(e.tile, { small: true, faceDown: e.face_down }));
        if (e.auto) add(el("span", "en", "(auto)")); break;
      case "ting_declared":
        add(who); add(pair("报听", "declares ready")); break;
      case "responded": {
        const r = RESP[e.response] || [e.response, e.response];
        add(who); add(pair(r[0], r[1])); if (e.auto) add(el("span", "en", "(auto)")); break;
      }
      case "punged":
        add(who); add(pair("碰", "pungs")); add(tile(e.tile, { small: true })); add(pair("来自", "from")); add(seatName(e.from)); break;
      case "konged": {
        const k = KONG[e.kind] || [e.kind, e.kind];
        add(who); add(pair(k[0], k[1])); add(tile(e.tile, { small: true })); break;
      }
      case "kong_declared":
        add(who); add(pair("加杠", "declares an added kong")); add(tile(e.tile, { small: true })); break;
      case "won": {
        const b = BY[e.by] || [e.by, e.by];
        add(who); add(pair("胡", "wins")); add(tile(e.tile, { small: true })); add(pair(b[0], b[1])); break;
      }
      case "hand_ended":
        add(pair("第" + e.hand + "局结束", "hand " + e.hand + " ends"));
        add(e.outcome === "draw" ? pair("荒庄", "exhausted wall") : pair("赢家 " + seatName(e.winner), "winner"));
        break;
      case "match_ended":
        add(pair("终局", "match over")); break;
      default:
        add(e.type);
    }
    if (e.reason) add(el("span", "en", "(" + e.reason + ")"));
    return box;
  }

  // ---------------------------------------------------------------- rendering
  function currentHand() {
    let found = null;
    for (const h of data.hands) if (h.start <= index) found = h;
    return found;
  }
  function endEvent(h) {
    return h && h.end !== null && h.end <= index ? data.steps[h.end].event : null;
  }
  function render() {
    const step = data.steps[index];
    const view = step.view;
    const hand = view.hand;
    const h = currentHand();
    const ended = endEvent(h);
    $("slider").value = index;
    $("position").textContent = "第 " + (index + 1) + " / " + data.steps.length + " 步 · event " + step.version;
    $("first").disabled = $("prev").disabled = index === 0;
    $("next").disabled = $("last").disabled = index === data.steps.length - 1;
    if (h) $("hand").value = String(data.hands.indexOf(h));
    renderStatus(view, hand);
    renderSeats(view, hand, step, ended);
    const ev = $("event"); ev.replaceChildren(describe(step.event));
    renderWindow(hand);
    renderSettlement(ended, h);
    renderStandings();
    renderReview();
    renderChart(h);
    const link = "#e=" + step.version + (perspective === "all" ? "" : "&seat=" + perspective);
    if (location.hash !== link) history.replaceState(null, "", location.pathname + location.search + link);
    const a = el("a", null, "链接 link to this step"); a.href = link; $("link").replaceChildren(a);
  }
  function renderStatus(view, hand) {
    const box = $("status"); box.replaceChildren();
    const pill = (zh, en, value) => {
      const p = el("span", "pill"); p.appendChild(pair(zh, en));
      if (value instanceof Node) p.appendChild(value); else p.appendChild(el("b", null, value));
      box.appendChild(p); return p;
    };
    if (hand) {
      const title = el("span", "pill big", "第" + hand.number + "局 Hand " + hand.number); box.appendChild(title);
      pill("庄家", "dealer", seatName(hand.dealer));
      pill("牌墙", "wall", hand.wall_count).id = "wall-count";
      if (hand.wild) pill(wildName(), "wild", tile(hand.wild, { small: true })).id = "wild";
    }
    pill("阶段", "phase", PHASE[view.phase] || view.phase);
  }
  function renderSeats(view, hand, step, ended) {
    const seats = $("seats"); seats.replaceChildren();
    for (let s = 0; s < 4; s++) {
      const box = el("div", "seat"); box.id = "seat-" + s;
      const sv = hand ? hand.seats[s] : null;
      if (hand && hand.turn === s && !ended && ["turn"].includes(view.phase)) box.classList.add("turn");
      if (ended && ended.winner === s) box.classList.add("winner");
      const head = el("div", "seat-head");
      const dot = el("span", "dot"); dot.style.background = SEAT_COLOURS[s]; head.appendChild(dot);
      const wind = windOf(s);
      if (wind) { const w = el("span", "wind", wind); w.title = WIND_EN[WINDS.indexOf(wind)] + " wind this hand"; head.appendChild(w); }
      const who = el("span", "name", playerName(s)); who.title = playerName(s);  // a cut name in full on hover / long-press
      head.appendChild(who);
      if (data.seats[s] && data.seats[s].bot) head.appendChild(el("span", "badge", "机器人 bot"));
      if (hand && hand.dealer === s) head.appendChild(el("span", "badge dealer", "庄 dealer"));
      if (sv && sv.ready) head.appendChild(el("span", "badge ready", "听 ready"));
      if ((view.pending || []).includes(s)) head.appendChild(el("span", "badge pending", "待决 to act"));
      const score = el("span", "score", view.scores[s]); score.dataset.score = view.scores[s];
      head.appendChild(score);
      box.appendChild(head);
      if (sv) {
        box.appendChild(handRow(s, sv, hand, ended));
        box.appendChild(discardRow(s, sv, hand, ended, step));
      }
      seats.appendChild(box);
    }
  }
  function handRow(s, sv, hand, ended) {
    const row = el("div", "row hand");
    let tiles = sv.concealed !== null ? parseHand(sv.concealed) : null;
    let revealed = false;
    if (tiles === null && ended && ended.revealed) { tiles = parseHand(ended.revealed.hands[s]); revealed = true; }
    const drawn = hand.turn === s ? hand.drawn : null;
    if (tiles) {
      if (drawn && !revealed) {  // show the drawn tile apart from the rest
        const at = tiles.lastIndexOf(drawn);
        if (at >= 0) tiles.splice(at, 1); else tiles = tiles.slice();
      }
      tiles.forEach((t) => row.appendChild(tile(t, { wild: t === hand.wild })));
      if (drawn && !revealed && sv.concealed !== null) row.appendChild(tile(drawn, { drawn: true, wild: drawn === hand.wild }));
      row.dataset.concealed = tiles.concat(drawn && !revealed ? [drawn] : []).join(" ");
      if (revealed) row.title = "亮牌 revealed at hand end";
    } else {
      for (let i = 0; i < sv.concealed_count; i++) row.appendChild(tile(null));
    }
    if (sv.melds.length) {
      const melds = el("span", "melds");
      sv.melds.forEach((m) => {
        const meld = el("span", "meld"); meld.title = m.type === "kong" ? (KONG[m.kong] || [m.kong])[0] : "碰 pung";
        const n = m.type === "kong" ? 4 : 3;
        for (let i = 0; i < n; i++) {
          const hide = m.kong === "concealed" && (i === 0 || i === 3);
          meld.appendChild(hide ? tile(null, { small: true }) : tile(m.tile, { small: true }));
        }
        melds.appendChild(meld);
      });
      row.appendChild(melds);
    }
    return row;
  }
  function discardRow(s, sv, hand, ended, step) {
    const row = el("div", "row discards");
    row.appendChild(el("span", "label", "弃牌 discards"));
    const faceDown = ended && ended.revealed ? ended.revealed.face_down[s].slice() : [];
    const lastDiscard = step.event.type === "discarded" && step.event.seat === s;
    sv.discards.forEach((d, i) => {
      let name = d.tile;
      if (d.face_down && !name && faceDown.length) name = faceDown.shift();
      else if (d.face_down && name && faceDown.length) faceDown.shift();
      row.appendChild(tile(name, { small: true, faceDown: d.face_down, claimed: d.claimed,
                                   last: lastDiscard && i === sv.discards.length - 1 }));
    });
    return row;
  }
  function renderWindow(hand) {
    const box = $("window"); box.replaceChildren();
    const w = hand && hand.window;
    if (!w) { box.appendChild(el("span", "muted", "无 none open")); return; }
    const k = WINDOW[w.kind] || [w.kind, w.kind];
    const line = el("div", "win-line"); line.appendChild(pair(k[0], k[1]));
    if (w.tile) line.appendChild(tile(w.tile, { small: true }));
    if (w.source !== null) { line.appendChild(pair("来自", "from")); line.appendChild(el("span", null, seatName(w.source))); }
    box.appendChild(line);
    const answers = {};  // responses since the window opened, read from the events
    for (let i = index; i >= 0; i--) {
      const e = data.steps[i].event;
      if (e.type === "responded") { if (!(e.seat in answers)) answers[e.seat] = e.response; }
      else if (i < index) break;
    }
    w.asked.forEach((s) => {
      const r = el("div", "resp"); r.appendChild(el("span", null, seatName(s)));
      const a = answers[s];
      r.appendChild(a ? pair((RESP[a] || [a])[0], (RESP[a] || [a, a])[1]) : el("span", "muted", "考虑中 deciding…"));
      r.dataset.seat = s; if (a) r.dataset.response = a;
      box.appendChild(r);
    });
  }
  // G-11 joint walls: how this hand's wall was derived, revealed at its end (docs/AUDIT.md)
  function wallLine(ended) {
    const entry = (data.index || []).find((x) => x.hand === ended.hand);
    const w = entry && entry.wall;
    if (!w) return null;
    const short = (x) => (x ? String(x).slice(0, 12) + "…" : "—");
    const ok = (b) => (b ? " ✓" : " ✗");
    const p = el("p", "small wall-derivation"); p.id = "wall-derivation";
    p.dataset.links = String(w.links); p.dataset.derived = String(w.derived);
    p.textContent = `牌墙来源 wall: server part ${short(w.server)} hashes to ${short(w.previous)}${ok(w.links)}; ` +
      `seats' parts [${(w.seats || []).map(short).join(", ")}]; seed = HMAC(server part, hand ${ended.hand}, seats' parts) = ` +
      `${short(w.seed)}${ok(w.derived)}; wall committed as ${short(w.commitment)} (tilefold verify rebuilds it)`;
    return p;
  }
  function renderSettlement(ended, h) {
    const card = $("settlement-card"); const box = $("settlement"); box.replaceChildren();
    card.hidden = !ended;
    if (!ended) return;
    const names = (data.names && data.names[data.variant]) || {};
    const head = el("div", "win-line");
    if (ended.outcome === "draw") head.appendChild(pair("荒庄", "exhausted wall — no winner, nothing paid"));
    else {
      const b = BY[ended.win.by] || [ended.win.by, ended.win.by];
      head.appendChild(el("b", null, seatName(ended.winner))); head.appendChild(pair("胡", "wins"));
      head.appendChild(tile(ended.win.tile, { small: true, wild: ended.win.tile === currentWild() })); head.appendChild(pair(b[0], b[1]));
      if (ended.win.from !== null && ended.win.from !== undefined) { head.appendChild(pair("来自", "from")); head.appendChild(el("span", null, seatName(ended.win.from))); }
    }
    box.appendChild(head);
    const wall = wallLine(ended);
    if (wall) box.appendChild(wall);
    const ex = h && h.explain;
    if (ex) box.appendChild(explainedHand(ex));
    const score = (ended.settlement && ended.settlement.score) || null;
    if (score) {
      const list = el("ul", "patterns"); list.id = "patterns";
      (score.patterns || []).forEach((p) => {
        const code = typeof p === "string" ? p : p.code;
        const nm = names[code] || [code, code];
        const li = el("li"); li.dataset.code = code;
        const left = el("span"); left.appendChild(el("span", "zh", nm[0])); left.appendChild(el("span", "en", nm[1]));
        li.appendChild(left);
        if (typeof p !== "string") li.appendChild(el("b", null, p.points));
        list.appendChild(li);
      });
      if (!(score.patterns || []).length) list.appendChild(el("li", "muted", "平胡 plain win, no special hand"));
      box.appendChild(list);
      if (ex && ex.payment) box.appendChild(paymentLines(ex.payment, score, names));
    }
    const table = el("table", "settle"); table.id = "settle-table";
    const tr = el("tr"); ["座位 seat", "胡 win", "杠 kong", "合计 total", "比分 score"].forEach((t, i) => tr.appendChild(el("th", i ? "num" : null, t)));
    table.appendChild(tr);
    const st = ended.settlement || {};
    for (let s = 0; s < 4; s++) {
      const row = el("tr"); row.dataset.seat = s;
      row.appendChild(el("td", null, seatName(s)));
      [st.win_deltas, st.kong_deltas, st.deltas].forEach((arr) => {
        const v = arr ? arr[s] : 0; row.appendChild(el("td", "num " + (v > 0 ? "pos" : v < 0 ? "neg" : ""), (v > 0 ? "+" : "") + v));
      });
      row.appendChild(el("td", "num", ended.scores[s]));
      table.appendChild(row);
    }
    box.appendChild(table);
  }
  // The explained hand and payment are drawn by service/http/static/explain.js (shared with the table).
  function explainCtx(names) {
    return { tile: (code, opts) => tile(code, { small: true, wild: opts.wild }), seatName, names,
             extra: (data.names && data.names.extra) || {}, wildName: wildName() };
  }
  function explainedHand(ex) { return window.TilefoldExplain.hand(ex, explainCtx({})); }
  function paymentLines(p, score, names) { return window.TilefoldExplain.payment(p, score, explainCtx(names)); }
  function renderStandings() {
    const card = $("standings-card"); const box = $("standings"); box.replaceChildren();
    const last = data.steps.length - 1;
    const over = data.status === "over" && index === last;
    card.hidden = !over;
    if (!over) return;
    const scores = data.steps[last].view.scores;
    const order = [0, 1, 2, 3].sort((a, b) => scores[b] - scores[a] || a - b);
    const table = el("table", "settle"); table.id = "standings-table";
    const hr = el("tr"); ["名次 place", "玩家 player", "比分 score"].forEach((x, i) => hr.appendChild(el("th", i === 2 ? "num" : null, x)));
    table.appendChild(hr);
    let place = 0;
    order.forEach((s, i) => {
      if (i === 0 || scores[s] !== scores[order[i - 1]]) place = i + 1;
      const r = el("tr"); r.dataset.seat = s; r.dataset.place = place;
      r.appendChild(el("td", null, ["", "🥇 1", "🥈 2", "🥉 3", "4"][place] || String(place)));
      r.appendChild(el("td", null, playerName(s)));
      const v = scores[s]; r.appendChild(el("td", "num " + (v > 0 ? "pos" : v < 0 ? "neg" : ""), (v > 0 ? "+" : "") + v));
      table.appendChild(r);
    });
    box.appendChild(table);
  }
  // ---------------------------------------------------------------- review (复盘) of the chosen seat
  function reviewAt() {
    if (!data.review) return null;
    let found = null;
    for (const r of data.review) { if (r.step <= index) found = r; else break; }
    return found;
  }
  function isDifference(r) { return r.differs || r.kind === "passed_hu" || r.kind === "missed_hu" || r.kind === "passed_pung"; }
  function renderReview() {
    const card = $("review-card"); const box = $("review"); box.replaceChildren();
    const seat = perspective === "all" ? null : Number(perspective);
    card.hidden = false;
    $("review-prev").disabled = $("review-next").disabled = !data.review;
    if (!data.review) {
      box.appendChild(el("div", "muted", seat === null ? "选一个视角（座位）看它的复盘 — choose a seat's view to review its decisions"
                                                       : "对局结束后可复盘 — the review opens when the match is over"));
      return;
    }
    const diffs = data.review.filter(isDifference).length;
    box.appendChild(el("div", "muted", seatName(seat) + " · " + data.review.length + " 次决定 decisions · " + diffs + " 处差异 differences"));
    const r = reviewAt();
    if (!r) { box.appendChild(el("div", "muted", "尚无决定 no decision yet")); return; }
    const item = el("div", "rv " + r.kind + (isDifference(r) ? " diff" : "")); item.id = "review-item";
    item.dataset.step = r.step; item.dataset.kind = r.kind;
    const at = el("div", "rv-at", r.step === index ? "此步 this step" : "上一次决定 last decision: 第 " + (r.step + 1) + " 步");
    item.appendChild(at);
    if (r.kind === "passed_hu") item.appendChild(el("div", "rv-flag", "过胡 passed a win on " + tileLabel(r.tile)));
    if (r.kind === "passed_pung") item.appendChild(el("div", "rv-flag soft", "过碰 passed a pung of " + tileLabel(r.tile)));
    if (r.kind === "missed_hu") item.appendChild(el("div", "rv-flag", "漏胡 could win on its own draw, discarded instead"));
    if (r.made) {
      const line = el("div", "rv-line");
      line.appendChild(el("span", "lbl", "打出 played")); line.appendChild(tile(r.made, { small: true }));
      line.appendChild(el("span", "lbl", judged(r.made_judged)));
      item.appendChild(line);
      const best = el("div", "rv-line best");
      best.appendChild(el("span", "lbl", "建议 best"));
      r.best.slice(0, 6).forEach((t) => best.appendChild(tile(t, { small: true })));
      if (r.best.length > 6) best.appendChild(el("span", "lbl", "+" + (r.best.length - 6)));
      best.appendChild(el("span", "lbl", judged(r.best_judged)));
      item.appendChild(best);
      const shown = r.differs ? [[r.made_judged, "打出后听 waits after the move"], [r.best_judged, "建议后听 waits after the best"]]
                              : [[r.made_judged, "听 waits"]];
      shown.forEach(([j, label]) => {
        if (j.shanten !== 0 || !j.waits.length) return;
        const w = el("div", "rv-line waits");
        w.appendChild(el("span", "lbl", label));
        j.waits.forEach((x) => {
          const c = el("span", "wait"); c.appendChild(tile(x.tile, { small: true }));
          c.appendChild(el("span", "lbl", "余" + x.unseen + " · 值" + x.value)); c.title = x.unseen + " unseen (live copies), a win worth " + x.value;
          w.appendChild(c);
        });
        item.appendChild(w);
      });
      if (r.differs && REASONS[r.reason]) item.appendChild(el("div", "rv-reason", "为何 why: " + REASONS[r.reason]));
      if (r.why) item.appendChild(el("div", "rv-why muted", r.why));
      item.appendChild(el("div", r.differs ? "rv-verdict diff" : "rv-verdict same", r.differs ? "≠ 与评估不同 differs from the evaluator" : "= 与评估一致 as the evaluator"));
    }
    box.appendChild(item);
  }
  // engine/review.py REASONS: what made the evaluator prefer its discard
  const REASONS = {
    safer: "更安全 safer against the declared hand (the move made was worth no more)",
    flush: "做一色 the flush it keeps is worth more",
    nearer_ready: "离听更近 nearer ready",
    waits_worth_more: "听得更好 its waits are worth more (live copies × value)",
    more_improving: "进张更多 more unseen tiles improve it",
    cannot_declare: "不能报听 the ready hand kept could not declare 听 (no wait worth 6+)",
    waits_poor: "听得太差 the waits kept had few live copies or little value",
    few_improving: "进张太少 the hand kept was nearer ready but too few unseen tiles improve it",
    ready_hands_worth_more: "下一摸更好 one draw ahead, the ready hands its draws make are worth more",
    ready_hands_poor: "下一摸太差 the hand kept was nearer ready but one draw ahead its ready hands are worth less",
  };
  const PLANS = { half_flush: "混一色 half flush", full_flush: "清一色 full flush" };
  function judged(j) {
    const sh = j.shanten <= 0 ? (j.shanten === 0 ? "听牌 ready" : "和 complete") : j.shanten + " 向听 from ready";
    let out = sh + " · 进张 " + j.improving_unseen + " unseen improving";
    if (j.worth !== undefined) out += " · 价值 worth " + Number(j.worth.toPrecision(3)) + (j.ahead ? " (看一摸 one draw ahead)" : "");
    if (j.plan) out += " · " + PLANS[j.plan.split(":")[0]] + " " + j.plan.split(":")[1];
    if (j.danger) out += " · 危险 danger " + j.danger.toFixed(2);
    return out;
  }
  function jumpDifference(delta) {
    if (!data.review) return;
    const list = data.review.filter(isDifference);
    const target = delta > 0 ? list.find((r) => r.step > index) : list.slice().reverse().find((r) => r.step < index);
    if (target) go(target.step);
  }
  function renderChart(current) {
    const ended = data.hands.filter((h) => h.scores && h.end <= index);  // no spoilers: hands played so far
    const series = [[0, 0, 0, 0]].concat(ended.map((h) => h.scores));
    const W = 330, H = 190, L = 34, R = 22, T2 = 10, B = 24;
    const all = series.flat(); const lo = Math.min(0, ...all), hi = Math.max(0, ...all) || 1;
    const x = (i) => L + (W - L - R) * (series.length > 1 ? i / (series.length - 1) : 0);
    const y = (v) => T2 + (H - T2 - B) * (hi - v) / ((hi - lo) || 1);
    const NS = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H); svg.setAttribute("class", "chart"); svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "比分走势 running scores; click a hand to jump to its end");
    const add = (tag, attrs, parent) => {
      const n = document.createElementNS(NS, tag);
      Object.keys(attrs).forEach((k) => n.setAttribute(k, attrs[k]));
      (parent || svg).appendChild(n); return n;
    };
    const text = (tx, ty, str, anchor) => { const t = add("text", { x: tx, y: ty, "text-anchor": anchor || "middle" }); t.textContent = str; };
    [lo, 0, hi].forEach((v) => { add("line", { x1: L, y1: y(v), x2: W - R, y2: y(v), stroke: v === 0 ? "#999" : "#e3e3e3", "stroke-width": 1 }); text(L - 4, y(v) + 3, String(v), "end"); });
    series.forEach((_, i) => text(x(i), H - 8, i === 0 ? "开始" : "第" + ended[i - 1].hand + "局"));
    if (current && current.scores && current.end <= index) {
      const at = ended.indexOf(current) + 1;
      if (at > 0) add("line", { x1: x(at), y1: T2, x2: x(at), y2: H - B, stroke: "#d89b00", "stroke-width": 2, "stroke-dasharray": "4 3" });
    }
    // lines never hide each other: each seat its own dash and marker, nudged apart where they meet
    const DASH = ["", "7 4", "2 3", "9 3 2 3"], NUDGE = [-1.8, -0.6, 0.6, 1.8];
    for (let s = 0; s < 4; s++) {
      const pts = series.map((sc, i) => x(i) + "," + (y(sc[s]) + NUDGE[s]));
      const pl = add("polyline", { points: pts.join(" "), fill: "none", stroke: SEAT_HEX[s], "stroke-width": 2.2,
                                   "stroke-linejoin": "round", "stroke-dasharray": DASH[s], class: "series", "data-seat": s });
      const title = document.createElementNS(NS, "title"); title.textContent = seatName(s); pl.appendChild(title);
      series.forEach((sc, i) => marker(add, s, x(i), y(sc[s]) + NUDGE[s]));
    }
    ended.forEach((h, i) => {  // a click target per hand: the column around its point
      const cx = x(i + 1), half = (W - L - R) / Math.max(1, series.length - 1) / 2;
      const hit = add("rect", { x: cx - half, y: T2, width: 2 * half, height: H - T2 - B + 14, fill: "transparent",
                                class: "hand-hit", "data-hand": h.hand, tabindex: 0 });
      const t = document.createElementNS(NS, "title"); t.textContent = "第" + h.hand + "局 hand " + h.hand + " — 点击跳到结算 click to jump"; hit.appendChild(t);
      hit.addEventListener("click", () => go(h.end));
      hit.addEventListener("keydown", (e) => { if (e.key === "Enter") go(h.end); });
    });
    const legend = el("div", "legend");
    for (let s = 0; s < 4; s++) {
      const item = el("span", "resp");
      const sw = document.createElementNS(NS, "svg"); sw.setAttribute("width", 26); sw.setAttribute("height", 10);
      const l = document.createElementNS(NS, "line");
      [["x1", 1], ["y1", 5], ["x2", 25], ["y2", 5], ["stroke", SEAT_HEX[s]], ["stroke-width", 2.2], ["stroke-dasharray", DASH[s]]].forEach(([k, v]) => l.setAttribute(k, v));
      sw.appendChild(l); marker((tag, attrs) => { const n = document.createElementNS(NS, tag); Object.keys(attrs).forEach((k) => n.setAttribute(k, attrs[k])); sw.appendChild(n); return n; }, s, 13, 5);
      item.appendChild(sw); item.appendChild(el("span", null, seatName(s))); legend.appendChild(item);
    }
    $("chart").replaceChildren(svg, legend);
  }
  function marker(add, s, cx, cy) {  // circle, square, triangle, diamond
    const c = SEAT_HEX[s];
    if (s === 0) return add("circle", { cx: cx, cy: cy, r: 3, fill: c });
    if (s === 1) return add("rect", { x: cx - 2.8, y: cy - 2.8, width: 5.6, height: 5.6, fill: c });
    if (s === 2) return add("polygon", { points: [cx, cy - 3.6, cx + 3.4, cy + 2.6, cx - 3.4, cy + 2.6].join(" "), fill: c });
    return add("polygon", { points: [cx, cy - 3.8, cx + 3.4, cy, cx, cy + 3.8, cx - 3.4, cy].join(" "), fill: "#fff", stroke: c, "stroke-width": 1.6 });
  }

  // ---------------------------------------------------------------- navigation
  function go(i) {
    if (!data) return;
    index = Math.max(0, Math.min(data.steps.length - 1, i));
    render();
  }
  function stepOfVersion(version) {
    let found = 0;
    data.steps.forEach((s, i) => { if (s.version <= version) found = i; });
    return found;
  }
  function jumpHand(delta) {
    const h = currentHand(); const at = h ? data.hands.indexOf(h) : -1;
    const target = data.hands[Math.max(0, Math.min(data.hands.length - 1, at + delta))];
    if (target) go(delta < 0 && h && index > h.start ? h.start : target.start);
  }
  function readHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    return { e: params.has("e") ? Number(params.get("e")) : null, seat: params.get("seat") };
  }
  function framesUrlFor(hand) {
    const url = new URL(framesUrl, location.href);
    if (owner) url.searchParams.set("owner", owner);
    url.searchParams.set("seat", perspective);
    if (hand !== undefined) url.searchParams.set("hand", String(hand));
    return url;
  }
  function fetchJson(url) {
    return fetch(url).then((r) => r.json().then((j) => ({ ok: r.ok, status: r.status, j: j })));
  }
  // A long match is served one hand per page (422 replay_paged): fetch the pages in turn and join
  // them (steps, hands and review entries renumbered by the steps before them).
  function loadPages(pages) {
    const parts = [];
    const next = (k) => k >= pages ? Promise.resolve(joinPages(parts)) : fetchJson(framesUrlFor(k)).then(({ ok, j }) => {
      if (!ok) throw new Error(j.detail || j.title || "cannot load the replay");
      parts.push(j); return next(k + 1);
    });
    return next(0);
  }
  function joinPages(parts) {
    const out = Object.assign({}, parts[parts.length - 1], { steps: [], hands: [], review: parts[0].review ? [] : undefined });
    parts.forEach((p) => {
      const offset = out.steps.length;
      out.steps = out.steps.concat(p.steps);
      (p.hands || []).forEach((h) => out.hands.push(Object.assign({}, h, { start: h.start + offset, end: h.end === null ? null : h.end + offset })));
      (p.review || []).forEach((r) => out.review.push(Object.assign({}, r, { step: r.step + offset })));
    });
    return out;
  }
  function load(keepVersion) {
    return fetchJson(framesUrlFor()).then(({ ok, j }) => {
      if (!ok && j.code === "replay_paged") return loadPages(j.pages);
      if (!ok) throw new Error(j.detail || j.title || "cannot load the replay");
      return j;
    }).then((j) => {
      data = j;
      $("error").hidden = true;
      setup();
      go(keepVersion !== null && keepVersion !== undefined ? stepOfVersion(keepVersion) : 0);
    }).catch((err) => { const e = $("error"); e.textContent = "无法加载 Cannot load: " + err.message; e.hidden = false; });
  }
  function setup() {
    $("slider").max = data.steps.length - 1;
    const meta = $("meta");
    meta.textContent = variantLabel(data.variant) + " · " + data.id + " · " +
      (data.status === "over" ? "已结束 finished" : "进行中 in play (public view)") + (data.imported ? " · 导入 imported" : "");
    const sel = $("perspective");
    for (let s = 0; s < 4; s++) sel.options[s + 1].textContent = playerName(s);
    sel.disabled = data.status !== "over";
    sel.value = data.status === "over" ? String(perspective) : "all";
    const hs = $("hand"); hs.replaceChildren();
    data.hands.forEach((h, i) => { const o = el("option", null, "第" + h.hand + "局 hand " + h.hand); o.value = String(i); hs.appendChild(o); });
    setupExports();
  }
  function setupExports() {
    const box = $("exports"); box.replaceChildren();
    const api = "/api/matches/" + encodeURIComponent(data.id) + "/export?format=";
    if (data.status === "over") {
      [["ndjson", "事件日志 event log (ndjson)"], ["json", "JSON"], ["text", "文本 text"]].forEach(([f, label]) => {
        const a = el("a", "btn", label); a.href = api + f; a.download = data.id + "." + (f === "text" ? "txt" : f);
        a.dataset.format = f; box.appendChild(a);
      });
    }
    const csv = el("a", "btn", "比分 scores (CSV)"); csv.dataset.format = "csv";
    const rows = [["hand"].concat([0, 1, 2, 3].map((s) => playerName(s)))];
    data.hands.filter((h) => h.scores).forEach((h) => rows.push([h.hand].concat(h.scores)));
    const quote = (v) => { const t = String(v); return /[",\n]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t; };
    csv.href = "data:text/csv;charset=utf-8," + encodeURIComponent("\ufeff" + rows.map((r) => r.map(quote).join(",")).join("\n") + "\n");
    csv.download = data.id + "-scores.csv";
    box.appendChild(csv);
  }
  $("review-prev").addEventListener("click", () => jumpDifference(-1));
  $("review-next").addEventListener("click", () => jumpDifference(1));
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(index - 1));
  $("next").addEventListener("click", () => go(index + 1));
  $("last").addEventListener("click", () => go(data.steps.length - 1));
  $("slider").addEventListener("input", (e) => go(Number(e.target.value)));
  $("hand").addEventListener("change", (e) => go(data.hands[Number(e.target.value)].start));
  $("perspective").addEventListener("change", (e) => {
    perspective = e.target.value;
    load(data ? data.steps[index].version : null);
  });
  document.addEventListener("keydown", (e) => {
    if (!data || e.target.tagName === "SELECT" || e.target.tagName === "INPUT" && e.target.type !== "range") return;
    let handled = true;
    if (e.key === "ArrowRight" && e.shiftKey || e.key === "PageDown") jumpHand(1);
    else if (e.key === "ArrowLeft" && e.shiftKey || e.key === "PageUp") jumpHand(-1);
    else if (e.key === "ArrowRight") go(index + 1);
    else if (e.key === "ArrowLeft") go(index - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(data.steps.length - 1);
    else handled = false;
    if (handled) e.preventDefault();
  });
  window.addEventListener("hashchange", () => {
    const h = readHash();
    const seat = h.seat === null ? "all" : h.seat;
    if (data && seat !== String(perspective) && data.status === "over") { perspective = seat; load(h.e); }
    else if (data && h.e !== null && data.steps[index].version !== h.e) go(stepOfVersion(h.e));
  });
  const start = readHash();
  if (start.seat !== null && ["0", "1", "2", "3"].includes(start.seat)) perspective = start.seat;
  load(start.e);
})();
