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
  const BY = { self_draw: ["自摸", "self-draw"], kong_draw: ["杠上开花", "win on a kong replacement"],
               discard: ["点炮", "on a discard"], rob_kong: ["抢杠", "robbing a kong"] };
  const RESP = { pass: ["过", "pass"], pung: ["碰", "pung"], kong: ["杠", "kong"], hu: ["胡", "hu"], ting: ["报听", "ting"] };
  const KONG = { exposed: ["明杠", "exposed kong"], added: ["加杠", "added kong"], concealed: ["暗杠", "concealed kong"] };
  const WINDOW = { claim: ["叫牌", "claims on a discard"], rob: ["抢杠", "robbing the kong"], ting: ["报听", "declare ready"] };
  const PHASE = { lobby: "等待 lobby", ting: "报听 ting", turn: "出牌 turn", claim: "叫牌 claim", rob: "抢杠 rob",
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
      return t;
    }
    t.dataset.tile = name;
    if (HONOUR[name]) {
      t.classList.add("h", HONOUR[name][1]);
      t.appendChild(el("b", null, HONOUR[name][0]));
    } else {
      t.classList.add(name[1]);
      t.appendChild(el("b", null, NUM[Number(name[0]) - 1]));
      t.appendChild(el("i", null, SUIT[name[1]]));
    }
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
  function seatName(s) {
    if (s === null || s === undefined) return "?";
    const seat = data.seats && data.seats[s];
    return "座位" + s + (seat ? " (" + seat.name + ")" : "");
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
    renderSettlement(ended);
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
      head.appendChild(el("span", "name", seatName(s)));
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
  function renderSettlement(ended) {
    const card = $("settlement-card"); const box = $("settlement"); box.replaceChildren();
    card.hidden = !ended;
    if (!ended) return;
    const names = (data.names && data.names[data.variant]) || {};
    const head = el("div", "win-line");
    if (ended.outcome === "draw") head.appendChild(pair("荒庄", "exhausted wall — no winner"));
    else {
      const b = BY[ended.win.by] || [ended.win.by, ended.win.by];
      head.appendChild(el("b", null, seatName(ended.winner))); head.appendChild(pair("胡", "wins"));
      head.appendChild(tile(ended.win.tile, { small: true })); head.appendChild(pair(b[0], b[1]));
      if (ended.win.from !== null && ended.win.from !== undefined) { head.appendChild(pair("来自", "from")); head.appendChild(el("span", null, seatName(ended.win.from))); }
    }
    box.appendChild(head);
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
      if ("multiplier" in score) box.appendChild(el("div", null, "点数 points " + score.points + " × 倍数 multiplier " + score.multiplier + " = " + score.value));
      if ("pattern_score" in score) {
        const ex = (data.names.extra || {})[score.extra] || [score.extra, score.extra];
        box.appendChild(el("div", null, "番数 pattern score " + score.pattern_score + " · " + ex[0] + " " + ex[1]));
      }
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
  function renderChart(current) {
    const ended = data.hands.filter((h) => h.scores && h.end <= index);  // no spoilers: hands played so far
    const series = [[0, 0, 0, 0]].concat(ended.map((h) => h.scores));
    const W = 330, H = 190, L = 34, R = 22, T = 10, B = 24;
    const all = series.flat(); const lo = Math.min(0, ...all), hi = Math.max(0, ...all) || 1;
    const x = (i) => L + (W - L - R) * (series.length > 1 ? i / (series.length - 1) : 0);
    const y = (v) => T + (H - T - B) * (hi - v) / ((hi - lo) || 1);
    const NS = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H); svg.setAttribute("class", "chart"); svg.setAttribute("role", "img");
    const line = (x1, y1, x2, y2, stroke, width, dash) => {
      const l = document.createElementNS(NS, "line");
      [["x1", x1], ["y1", y1], ["x2", x2], ["y2", y2], ["stroke", stroke], ["stroke-width", width]].forEach(([k, v]) => l.setAttribute(k, v));
      if (dash) l.setAttribute("stroke-dasharray", dash);
      svg.appendChild(l);
    };
    const text = (tx, ty, str, anchor) => {
      const t = document.createElementNS(NS, "text"); t.setAttribute("x", tx); t.setAttribute("y", ty);
      t.setAttribute("text-anchor", anchor || "middle"); t.textContent = str; svg.appendChild(t);
    };
    [lo, 0, hi].forEach((v) => { line(L, y(v), W - R, y(v), v === 0 ? "#999" : "#e3e3e3", 1); text(L - 4, y(v) + 3, String(v), "end"); });
    series.forEach((_, i) => text(x(i), H - 8, i === 0 ? "开始" : "第" + i + "局"));
    if (current && current.scores) {
      const at = ended.indexOf(current) + 1;
      if (at > 0 && data.hands[data.hands.indexOf(current)].end <= index) line(x(at), T, x(at), H - B, "#d89b00", 2, "4 3");
    }
    for (let s = 0; s < 4; s++) {
      const pl = document.createElementNS(NS, "polyline");
      pl.setAttribute("points", series.map((sc, i) => x(i) + "," + y(sc[s])).join(" "));
      pl.setAttribute("fill", "none"); pl.setAttribute("stroke", SEAT_HEX[s]); pl.setAttribute("stroke-width", 2.5);
      pl.setAttribute("stroke-linejoin", "round");
      const title = document.createElementNS(NS, "title"); title.textContent = seatName(s); pl.appendChild(title);
      svg.appendChild(pl);
      series.forEach((sc, i) => {
        const c = document.createElementNS(NS, "circle"); c.setAttribute("cx", x(i)); c.setAttribute("cy", y(sc[s]));
        c.setAttribute("r", 2.8); c.setAttribute("fill", SEAT_HEX[s]); svg.appendChild(c);
      });
    }
    const legend = el("div", "legend");
    for (let s = 0; s < 4; s++) {
      const item = el("span", "resp"); const d = el("span", "dot"); d.style.cssText = "display:inline-block;width:10px;height:10px;border-radius:50%;background:" + SEAT_HEX[s];
      item.appendChild(d); item.appendChild(el("span", null, seatName(s))); legend.appendChild(item);
    }
    $("chart").replaceChildren(svg, legend);
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
  function load(keepVersion) {
    const url = new URL(framesUrl, location.href);
    if (owner) url.searchParams.set("owner", owner);
    url.searchParams.set("seat", perspective);
    return fetch(url).then((r) => r.json().then((j) => ({ ok: r.ok, j: j }))).then(({ ok, j }) => {
      if (!ok) throw new Error(j.detail || j.title || "cannot load the replay");
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
    for (let s = 0; s < 4; s++) sel.options[s + 1].textContent = seatName(s);
    sel.disabled = data.status !== "over";
    sel.value = data.status === "over" ? String(perspective) : "all";
    const hs = $("hand"); hs.replaceChildren();
    data.hands.forEach((h, i) => { const o = el("option", null, "第" + h.hand + "局 hand " + h.hand); o.value = String(i); hs.appendChild(o); });
  }
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
