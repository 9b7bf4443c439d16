/* The table /play/<match>: renders the seat's view from the API (already redacted for this seat),
   sends actions, follows the SSE stream. No game rule lives here: legal actions come from the API.
   Names and tiles are written with textContent; tiles are drawn by tiles.js. */
(function () {
  "use strict";
  const { api, el, bi, toast, VARIANTS, WINDS, WILD, left, csrf } = window.TF;
  const T = window.TilefoldTiles;
  const TX = window.TilefoldExplain;
  const body = document.body;
  const matchId = body.dataset.match;
  let seat = body.dataset.seat === "" ? null : Number(body.dataset.seat);
  const owner = Boolean(body.dataset.owner);
  const names = JSON.parse((document.getElementById("pattern-names") || {}).textContent || "{}");
  const $ = (id) => document.getElementById(id);
  const ACT = { hu: ["胡", "hu"], pung: ["碰", "pung"], kong: ["杠", "kong"], pass: ["过", "pass"],
                ting: ["听", "ting"], discard: ["打", "discard"] };
  const BY = { self_draw: ["自摸", "self-draw"], kong_draw: ["杠上开花", "on a kong replacement"],
               discard: ["点炮", "on a discard"], rob_kong: ["抢杠", "robbing a kong"] };
  const KONG = { exposed: ["明杠", "exposed kong"], added: ["加杠", "added kong"], concealed: ["暗杠", "concealed kong"] };

  let view = null;          // the last GET .../view answer
  let selected = null;      // the tile chosen for a discard (tap, then confirm or tap again)
  let tingChoices = null;   // {version, choices} from /web/matches/<id>/ting
  let tingOpen = false;
  let sending = false;
  let stream = null;
  let closedResult = false;  // the final settlement was closed to look at the table
  let moves = [];           // the seat's feed (GET .../events, its own redaction): the move log
  let movesAfter = null;    // the feed version read up to
  let ratings = null;       // once over: the match's rating changes (GET .../ratings), asked once

  // ------------------------------------------------------------------ names and seats
  const seatName = (s) => (view && view.seats[s] ? view.seats[s].name : "—");
  // A seat's wind is the engine's (view.hand.winds for the hand on the table, last_result.winds for
  // the hand settled): the page never derives it from a dealer (the next hand's dealer is view.dealer).
  const WIND_AT = { E: 0, S: 1, W: 2, N: 3 };
  const windOf = (s, winds) => {
    const list = winds || (view && view.view && view.view.hand ? view.view.hand.winds : null);
    return list ? WINDS[WIND_AT[list[s]]] : ["", ""];
  };
  const position = (s) => (seat === null ? s : (s - seat + 4) % 4);  // 0 me (bottom), 1 right, 2 top, 3 left
  const tileLine = (code) => `${T.zh(code)} ${code}`;
  const wildWord = () => (view && view.view && WILD[view.view.variant]) || ["百搭", "wild"];

  // ------------------------------------------------------------------ loading
  async function claimFromFragment() {
    const found = /(?:^|[#&])seat=([^&]+)/.exec(location.hash);
    if (!found) return;
    history.replaceState(null, "", location.pathname + location.search);  // the secret leaves the address bar at once
    try {
      const claimed = await api("POST", `/web/matches/${matchId}/claim`, { token: decodeURIComponent(found[1]) });
      seat = claimed.seat;
      window.TF.seatsChanged();
    } catch (err) { toast("链接无效 link no longer works: " + err.message); }
  }

  async function refresh() {
    try {
      if (seat === null) {
        const summary = await api("GET", `/api/matches/${matchId}`);
        view = { seats: summary.seats, status: summary.status, view: null, legal_actions: [], deadlines: [] };
        renderLobby(summary);
        return;
      }
      const fresh = await api("GET", `/api/matches/${matchId}/view`);
      if (!view || fresh.version > view.version || fresh.status !== view.status) show(fresh, true);
    } catch (err) {
      if (err.status === 403 || err.status === 401) { seat = null; toast("座位已失效 this seat's invite was replaced"); }
      setConn(false);
    }
  }

  let pending = null;
  function soon() { clearTimeout(pending); pending = setTimeout(refresh, 60); }

  function follow() {  // the public SSE endpoint (the seat cookie stands in for the Bearer token)
    if (stream) stream.close();
    const after = view && view.version ? `?after=${view.version}` : "";
    stream = new EventSource(`/api/matches/${matchId}/stream${after}`);
    stream.onopen = () => { setConn(true); soon(); };
    stream.onmessage = () => soon();
    stream.addEventListener("end", () => { stream.close(); stream = null; soon(); });
    stream.onerror = () => {
      setConn(false);
      if (stream && stream.readyState === EventSource.CLOSED) { stream = null; setTimeout(reconnect, 3000); }
    };
  }
  function reconnect() { if (!stream && !(view && view.status === "over")) { refresh(); follow(); } }
  function setConn(ok) {
    const box = $("conn");
    box.className = "conn " + (ok ? "ok" : "off");
    box.textContent = ok ? "● 在线 live" : "○ 重新连接中 reconnecting…";
  }
  window.addEventListener("online", () => { refresh(); if (!stream || stream.readyState === EventSource.CLOSED) follow(); });
  window.addEventListener("offline", () => setConn(false));
  document.addEventListener("visibilitychange", () => { if (!document.hidden) soon(); });

  // ------------------------------------------------------------------ rendering
  function show(fresh, pushed) {
    const before = view;
    view = fresh;
    body.dataset.version = String(fresh.version);  // what this page shows (tests wait on it)
    if (!before || before.version !== fresh.version) { selected = keepSelection(); tingChoices = null; tingOpen = false; }
    if (fresh.status === "open" || !fresh.view) { renderLobby(fresh); return; }
    $("lobby").hidden = true;
    $("table").hidden = false; $("me").hidden = false;
    renderStatus();
    for (let s = 0; s < 4; s++) if (position(s) !== 0 || seat === null) renderSeat(s);
    renderCenter();
    renderMe();
    renderActions();
    renderResult();
    markLastDiscard();
    loadMoves();
    notifyTurn(Boolean(pushed) && Boolean(before) && before.version !== fresh.version);
  }
  function keepSelection() {
    return selected && view.legal_actions.some((a) => a.action === "discard" && a.tile === selected) ? selected : null;
  }

  // G-11 joint walls: say that this seat's randomness went into the wall (docs/AUDIT.md)
  function renderWallPart() {
    const info = view.randomness || {}, line = $("wall-part");
    line.hidden = info.protocol !== "joint" || seat === null;
    if (line.hidden) return;
    line.textContent = info.seat_part
      ? `你的随机数 ${info.seat_part.slice(0, 12)}… 已混入每一局的牌墙 · Your randomness ${info.seat_part.slice(0, 12)}… went into this hand's wall, with the server's committed part (checkable after the hand: tilefold verify)`
      : "此座位未提供随机数 · This seat added no randomness: the wall rests on the server's committed part and the other seats'";
    line.dataset.part = info.seat_part || "";
  }

  function renderStatus() {
    const v = view.view, hand = v.hand;
    const variant = VARIANTS[v.variant];
    $("title").replaceChildren(el("b", { text: variant[0] }), " " + variant[1]);
    const total = v.options.rounds ? `${v.options.rounds}圈 rounds` : `${v.options.hands}局`;
    const number = hand ? hand.number : v.hands_played;
    $("hand-info").textContent = `第${number}局 hand ${number} / ${total} · 底分 base ${v.options.base}`;
    $("wall").textContent = hand ? `牌墙 wall ${hand.wall_count}` : "";
    renderWallPart();
    const wild = $("wild");
    wild.replaceChildren();
    if (hand && hand.wild) {
      const w = wildWord();
      wild.append(`${w[0]} ${w[1]}: `, T.element(hand.wild, { mark: w[0][0] }), " " + tileLine(hand.wild));
    }
    document.title = (view.legal_actions.length ? "● 轮到你 " : "") + `${variant[0]} · Tilefold`;
  }

  function seatHead(s) {
    const v = view.view, hand = v.hand;
    const wind = windOf(s);
    const head = el("div", { class: "seat-head" },
      el("span", { class: "wind", title: wind[1] + " wind", text: wind[0] }),
      el("span", { class: "name", text: seatName(s), title: seatName(s) }),  // a cut name in full on hover / long-press
      view.seats[s] && view.seats[s].bot ? el("small", { class: "muted", text: " 电脑 bot" }) : null,
      (hand ? hand.dealer : v.dealer) === s ? el("span", { class: "tag dealer", title: "dealer", text: "庄" }) : null,
      hand && hand.seats[s].ready ? el("span", { class: "tag ready", title: "declared ready", text: "听" }) : null,
      hand && s !== seat ? el("span", { class: "count", title: "手牌张数 tiles in hand", "aria-label": `${hand.seats[s].concealed_count} 张 tiles in hand`,
        text: `${hand.seats[s].concealed_count}张` }) : null,
      el("span", { class: "score", title: "score", text: String(v.scores[s]) }));
    return head;
  }

  function meldRow(s) {
    const row = el("div", { class: "melds" });
    const hand = view.view.hand;
    for (const m of hand.seats[s].melds) {
      const group = el("span", { class: "meld" });
      const count = m.type === "kong" ? 4 : 3;
      const from = m.from === null || m.from === undefined ? null : (m.from - s + 4) % 4;  // 1 next, 2 opposite, 3 previous
      const sideAt = from === 3 ? 0 : from === 2 ? 1 : from === 1 ? count - 1 : -1;
      for (let i = 0; i < count; i++) {
        const hidden = m.kong === "concealed" && (i === 0 || i === count - 1);
        group.appendChild(T.element(hidden ? null : m.tile, { sideways: i === sideAt }));
      }
      const kind = m.type === "kong" ? KONG[m.kong] || ACT.kong : ACT.pung;
      const label = from === null ? `${kind[0]} ${kind[1]} ${m.tile}` :
        `${kind[0]} ${kind[1]} ${m.tile} 来自 from ${windOf(m.from)[0]} ${seatName(m.from)}`;
      group.setAttribute("aria-label", label);
      group.title = label;
      if (from !== null) group.appendChild(el("small", { class: "from", text: `←${windOf(m.from)[0]} ${seatName(m.from)}` }));
      row.appendChild(group);
    }
    return row;
  }

  function river(s) {
    const box = el("div", { class: "river", role: "group", "aria-label": `${seatName(s)} 的牌河 discards` });
    const hand = view.view.hand;
    const w = hand.window;
    const last = hand.seats[s].discards.length - 1;
    hand.seats[s].discards.forEach((d, i) => {
      const t = T.element(d.tile, { dim: d.claimed });
      if (w && w.source === s && w.kind === "claim" && i === last) t.classList.add("just");
      if (d.claimed) t.classList.add("claimed");
      if (d.face_down) t.classList.add("facedown");
      box.appendChild(t);
    });
    return box;
  }

  function renderSeat(s) {
    const box = $("pos-" + position(s));
    const hand = view.view.hand;
    box.replaceChildren(seatHead(s));
    box.dataset.seat = s;
    box.classList.toggle("turn", Boolean(hand && hand.turn === s && view.view.phase === "turn"));
    if (!hand) return;
    const backs = el("div", { class: "backs", role: "img", "aria-label": `${hand.seats[s].concealed_count} 张暗牌 hidden tiles` });
    for (let i = 0; i < hand.seats[s].concealed_count; i++) backs.appendChild(T.element(null));
    box.append(backs, meldRow(s), river(s));
  }

  function renderCenter() {
    const v = view.view, hand = v.hand;
    const box = $("center");
    box.replaceChildren();
    if (!hand) return;
    const mine = view.legal_actions.length > 0;
    let line;
    if (v.phase === "turn") {
      line = hand.turn === seat ? bi("轮到你出牌", "your turn") : bi(`${windOf(hand.turn)[0]} ${seatName(hand.turn)} 出牌中`, "to play");
    } else if (["claim", "rob", "ting", "waiting"].includes(v.phase)) {
      line = mine ? bi("请选择", "your decision") : bi("等待他人", "waiting for others");
    } else line = bi("本局结束", "hand over");
    box.append(el("div", { class: "whose" }, line));
    const due = myDeadline();
    if (due) box.append(el("div", { class: "countdown", id: "countdown", dataset: { due } }, "剩余 " + left(due)));
    const last = lastDiscard();
    if (last) box.append(el("div", { class: "last" }, el("small", { text: `${seatName(last.seat)} 打出 discarded` }),
                            T.element(last.tile)));
  }
  function myDeadline() {
    const v = view.view;
    const wanted = v.phase === "turn" ? v.hand.turn : seat;
    const item = (view.deadlines || []).find((d) => d.seat === wanted && d.deadline);
    return item ? item.deadline : null;
  }
  function lastDiscard() {
    const w = view.view.hand.window;
    if (w && w.tile && w.source !== null && w.source !== undefined) return { seat: w.source, tile: w.tile };
    return null;
  }

  function renderMe() {
    const hand = view.view.hand;
    const box = $("pos-0");
    if (seat === null) return;
    box.replaceChildren(seatHead(seat), river(seat));
    box.dataset.seat = seat;
    box.classList.toggle("turn", Boolean(hand && hand.turn === seat && view.view.phase === "turn"));
    $("my-melds").replaceChildren(hand ? meldRow(seat) : "");
    const row = $("hand");
    row.replaceChildren();
    if (!hand) return;
    const tiles = T.sort(T.parse(hand.seats[seat].concealed));
    const drawn = hand.drawn;
    if (drawn && tiles.includes(drawn)) tiles.splice(tiles.lastIndexOf(drawn), 1);
    const discardable = new Set(view.legal_actions.filter((a) => a.action === "discard").map((a) => a.tile));
    const wild = hand.wild;
    const standIn = hand.stand_in;  // H-2: the 白板 that may play the 配子's kind (the engine's view says which)
    const add = (code, isDrawn) => {
      const can = discardable.has(code) && !sending;
      const stands = standIn && code === standIn.tile;
      const label = `${code} ${T.zh(code)}` + (isDrawn ? " 摸到的牌 drawn" : "") + (code === wild ? ` ${wildWord()[0]} wild` : "") +
        (stands ? ` 可当${T.zh(standIn.as)} stands in for ${standIn.as} (H-2)` : "") +
        (can ? " — 点两下打出 tap twice to discard" : "");
      const button = el("button", { type: "button", class: "tile-btn" + (isDrawn ? " drawn" : "") + (selected === code ? " selected" : ""),
        "aria-label": label, "aria-pressed": selected === code ? "true" : "false", "aria-disabled": can ? null : "true",
        title: stands ? `白板可当${T.zh(standIn.as)} the 白板 stands in for ${standIn.as} (H-2)` : null,
        dataset: stands ? { tile: code, standIn: standIn.as } : { tile: code } },
        T.element(code, { mark: code === wild ? wildWord()[0][0] : stands ? "替" : null }));
      button.addEventListener("click", () => tapTile(code, can));
      row.appendChild(button);
    };
    tiles.forEach((code) => add(code, false));
    if (drawn) add(drawn, true);
    row.onkeydown = arrowKeys;
  }
  function arrowKeys(ev) {
    if (!["ArrowLeft", "ArrowRight"].includes(ev.key)) return;
    const buttons = [...$("hand").querySelectorAll("button")];
    const at = buttons.indexOf(document.activeElement);
    const next = buttons[Math.max(0, Math.min(buttons.length - 1, at + (ev.key === "ArrowLeft" ? -1 : 1)))];
    if (next) { next.focus(); ev.preventDefault(); }
  }
  function tapTile(code, can) {
    if (!can) { if (view.legal_actions.length) toast("这张牌现在不能打 this tile cannot be discarded now"); return; }
    if (selected === code) { send({ action: "discard", tile: code }); return; }  // double tap
    selected = code;
    renderMe(); renderActions();
    const again = $("hand").querySelector(`button[data-tile="${code}"].selected`);
    if (again) again.focus();
  }

  function actionButton(action, tile, extra) {
    const words = ACT[action];
    const text = [words[0], " ", el("small", { text: words[1] })];
    if (tile) text.push(" ", T.element(tile));
    const label = `${words[0]} ${words[1]}` + (tile ? ` ${tileLine(tile)}` : "") + (extra ? " " + extra : "");
    return el("button", { type: "button", class: "act act-" + action, "aria-label": label, dataset: { action, tile: tile || "" },
      disabled: sending, onclick: () => send(tile ? { action, tile } : { action }) },
      ...text);
  }

  function renderActions() {
    const box = $("actions");
    box.replaceChildren();
    const legal = view.legal_actions || [];
    const v = view.view;
    if (!legal.length) { $("ting-box").hidden = true; return; }
    if (["claim", "rob", "ting"].includes(v.phase) && v.hand.window) {
      const w = v.hand.window;
      const prompt = w.kind === "ting" ? bi("要报听吗？", "declare ready?") :
        [`${seatName(w.source)} ${w.kind === "rob" ? "加杠" : "打出"} `, w.tile ? T.element(w.tile) : "", " ",
         el("small", { text: w.kind === "rob" ? "added a kong — rob it?" : "discarded — claim it?" })];
      box.appendChild(el("div", { class: "prompt" }, prompt));
    }
    const order = ["hu", "kong", "pung", "ting", "pass"];
    const seen = new Set();  // one 听 button opens the list of 报听 discards with their waits
    for (const a of legal.slice().sort((x, y) => order.indexOf(x.action) - order.indexOf(y.action))) {
      if (a.action === "discard") continue;
      if (a.action === "ting" && a.tile) {
        if (seen.has("ting*")) continue;
        seen.add("ting*");
        box.appendChild(el("button", { type: "button", class: "act act-ting", "aria-label": "听 ting 报听 declare ready: choose the discard",
          "aria-expanded": tingOpen ? "true" : "false", onclick: openTing, disabled: sending }, "听 ", el("small", { text: "ting 报听…" })));
        continue;
      }
      box.appendChild(actionButton(a.action, a.tile));
    }
    if (selected) {
      box.appendChild(el("button", { type: "button", class: "act act-discard primary", "aria-label": `打出 discard ${tileLine(selected)}`,
        dataset: { action: "discard", tile: selected }, disabled: sending,
        onclick: () => send({ action: "discard", tile: selected }) }, "打出 ", el("small", { text: "discard" }), " ", T.element(selected)));
    } else if (legal.some((a) => a.action === "discard")) {
      box.appendChild(el("span", { class: "hint muted" }, bi("点一张牌，再确认或再点一下", "tap a tile, then confirm or tap it again")));
    }
    renderTing();
  }

  async function openTing() {
    tingOpen = !tingOpen;
    if (tingOpen && (!tingChoices || tingChoices.version !== view.version)) {
      try { tingChoices = await api("GET", `/web/matches/${matchId}/ting`); } catch (err) { toast(err.message); }
    }
    renderActions();
  }
  function renderTing() {
    const box = $("ting-box");
    box.hidden = !tingOpen || !tingChoices;
    if (box.hidden) return;
    const w = wildWord();
    box.replaceChildren(el("h3", {}, bi("报听：打哪张？", "declare ready: which discard?")),
      el("p", { class: "small" }, ...bi("每张听牌下是自摸它的得分", "under each wait: what a self-drawn win on it scores")));
    const list = el("ul", { class: "ting-list" });
    for (const c of tingChoices.choices) {
      // a wait that cannot win says which rule forbids it (engine.ting_choices' `refused`: K-4, K-13, H-3 …)
      const cannot = (x) => `不能胡 can't win${x.refused ? ` (${x.refused.rule}: ${x.refused.message})` : ""}`;
      const waits = c.waits.map((x) => `${x.tile} ${T.zh(x.tile)} ${x.points === null ? cannot(x) : x.points + "分"}`).join("、");
      const button = el("button", { type: "button", class: "act act-ting", dataset: { action: "ting", tile: c.discard },
        "aria-label": `听 ting 打 ${tileLine(c.discard)} discard, 听 waits ${waits}`, disabled: sending,
        onclick: () => send({ action: "ting", tile: c.discard }) },
        "听 ", el("small", { text: "ting" }), " 打 ", T.element(c.discard));
      const waitsBox = el("span", { class: "waits" }, el("small", { text: "听 waits:" }),
        ...c.waits.map((x) => el("span", { class: "wait" }, T.element(x.tile),
          x.points === null ?
            el("small", { class: "refused", title: x.refused ? x.refused.message : null, dataset: { rule: x.refused ? x.refused.rule : "" },
              text: `不能胡 can't win${x.refused ? " · " + x.refused.rule : ""}` }) :
            el("small", { text: `${x.points}分 pts` }))));
      if (!c.waits.length) waitsBox.append(el("small", { text: ` 任意${w[0]} any tile` }));
      list.appendChild(el("li", {}, button, waitsBox));
    }
    box.appendChild(list);
  }

  async function send(command) {
    if (sending) return;
    sending = true;
    try {
      const done = await api("POST", `/api/matches/${matchId}/actions`, { ...command, expected_version: view.version });
      selected = null; tingOpen = false;
      sending = false;
      // the stream may have shown a newer version while this answer was on its way: never go back to it
      if (!view || done.view.version >= view.version) show(done.view);
      else { renderMe(); renderActions(); }
    } catch (err) {
      sending = false;
      if (err.status === 409) toast("牌局已变化，已刷新 the table moved on; refreshed");
      else toast("不行 not allowed: " + err.message);
      refresh();
    }
  }

  // ------------------------------------------------------------------ the move log
  // The last moves in words, newest first, with their tiles: the seat's own feed (the API's
  // redaction: another seat's draw, a face-down discard, a window's answers never show).
  const LOG_TYPES = new Set(["hand_started", "discarded", "punged", "konged", "ting_declared", "won", "hand_ended"]);
  const LOG_SHOWN = 12;
  async function loadMoves() {
    if (seat === null || !view || (movesAfter !== null && movesAfter >= view.version)) return;
    const after = movesAfter === null ? Math.max(0, view.version - 60) : movesAfter;
    movesAfter = view.version;  // one read per version shown
    try {
      const got = await api("GET", `/api/matches/${matchId}/events?after=${after}`);
      const known = new Set(moves.map((e) => e.version));
      for (const e of got.events) if (e.version !== null && !known.has(e.version) && LOG_TYPES.has(e.type)) moves.push(e);
      moves = moves.slice(-60);
      renderMoves();
      markLastDiscard();
    } catch (err) { movesAfter = after; }
  }
  function markLastDiscard() {  // the river entry of the hand's last discard, for everyone (the log says whose)
    for (const t of document.querySelectorAll("#table .river .last-discard")) t.classList.remove("last-discard");
    const s = lastDiscarder();
    if (s === null || !view || !view.view || !view.view.hand) return;
    const tiles = $("pos-" + position(s)).querySelectorAll(".river .tf-tile");
    const t = tiles[tiles.length - 1];
    if (t) { t.classList.add("last-discard"); if (!t.title.includes("last discard")) t.title += " · 最后打出 the last discard"; }
  }
  function lastDiscarder() {  // the seat whose discard was the hand's last move of its kind (for the river mark)
    for (let i = moves.length - 1; i >= 0; i--) {
      if (moves[i].type === "hand_started") return null;
      if (moves[i].type === "discarded") return moves[i].payload.seat;
    }
    return null;
  }
  function moveWords(e) {
    const p = e.payload, who = p.seat !== undefined && p.seat !== null ? `${windOf(p.seat)[0]} ${seatName(p.seat)} ` : "";
    const tile = p.tile ? T.element(p.tile) : null;
    switch (e.type) {
      case "hand_started": return [`第${p.hand}局开始 `, el("small", { text: `hand ${p.hand} dealt, dealer ${seatName(p.dealer)}` })];
      case "discarded": return [who + (p.face_down ? "扣牌打出 " : "打出 "), tile || "", el("small", { text: p.face_down ? " discarded face down" : " discarded" })];
      case "punged": return [who + "碰 ", tile, el("small", { text: ` punged from ${seatName(p.from)}` })];
      case "konged": return [who + ((KONG[p.kind] || ACT.kong)[0]) + " ", tile, el("small", { text: " " + (KONG[p.kind] || ACT.kong)[1] })];
      case "ting_declared": return [who + "报听 ", tile || "", el("small", { text: " declared ready" })];
      case "won": return [who + "胡 ", tile || "", el("small", { text: ` ${(BY[p.by] || [p.by, p.by])[1]}` })];
      case "hand_ended": return [p.winner === null || p.winner === undefined ? "荒庄 " : "本局结束 ", el("small", { text: "hand over" })];
      default: return [e.type];
    }
  }
  function renderMoves() {
    const box = $("moves");
    if (!box) return;
    const shown = moves.slice(-LOG_SHOWN).reverse();
    box.replaceChildren(...shown.map((e) => el("li", { dataset: { version: e.version, type: e.type } }, ...moveWords(e))));
    $("moves-box").hidden = !shown.length;
  }

  // ------------------------------------------------------------------ settlement
  function renderResult() {
    const v = view.view, r = v.last_result;
    const box = $("result");
    const over = view.status === "over";
    const seenKey = `tf-seen-${matchId}`;
    const fresh = Boolean(r) && (over ? !closedResult : Number(localStorage.getItem(seenKey) || 0) < r.hand);
    const opening = box.hidden && fresh;
    box.hidden = !fresh;
    $("show-result").hidden = !(r && over && closedResult);
    if (!fresh) return;
    box.replaceChildren(el("button", { type: "button", class: "close", "aria-label": "关闭 close (看牌桌 view the table)",
      onclick: () => { if (over) closedResult = true; else localStorage.setItem(seenKey, String(r.hand)); renderResult(); } }, "✕"),
      el("h2", {}, over ? bi("终局", "match over") : bi(`第${r.hand}局 结算`, `hand ${r.hand} settlement`)));
    box.appendChild(settlementWords(r, v.variant));
    if (r.revealed && r.revealed.hands) {  // every hand as it ended: concealed tiles, then its melds
      const hands = el("div", { class: "revealed", id: "revealed" });
      r.revealed.hands.forEach((h, s) => hands.appendChild(el("div", { class: "rev", dataset: { seat: s } },
        el("span", { class: "who", text: settledName(r, s), title: settledName(r, s) }),
        ...T.sort(T.parse(h)).map((c) => T.element(c, { mark: c === r.wild ? wildWord()[0][0] : null })),
        ...((r.melds || [])[s] || []).map((m) => settledMeld(m)))));
      box.appendChild(hands);
    }
    if (over) box.appendChild(standings());
    const links = el("p", { class: "links" });
    if (over) {
      links.append(el("a", { class: "button", href: `/replay/${matchId}` }, ...bi("回放", "replay")), " ",
        el("a", { class: "button", href: `/api/matches/${matchId}/export?format=text` }, ...bi("导出文本", "export text")), " ",
        el("a", { class: "button", href: `/api/matches/${matchId}/export?format=ndjson` }, ...bi("导出日志", "export log")));
    } else {
      links.append(el("button", { type: "button", class: "primary", id: "next-hand",
        onclick: () => { localStorage.setItem(seenKey, String(r.hand)); renderResult(); } }, ...bi("继续", "continue")));
    }
    box.appendChild(links);
    if (opening) box.querySelector(".close").focus();  // keyboard users land on the settlement
  }
  // The settled hand's seats are named with that hand's winds (last_result.winds, the engine's).
  const settledName = (r, s) => `${windOf(s, r.winds)[0]} ${seatName(s)}`;
  function settledMeld(m) {
    const kind = m.type === "kong" ? KONG[m.kong] || ACT.kong : ACT.pung;
    const group = el("span", { class: "meld", title: `${kind[0]} ${kind[1]} ${tileLine(m.tile)}`,
      "aria-label": `${kind[0]} ${kind[1]} ${tileLine(m.tile)}` });
    for (let i = 0; i < (m.type === "kong" ? 4 : 3); i++) group.appendChild(T.element(m.tile));
    return group;
  }
  function explainCtx(r, variant) {
    return { tile: (code, o) => T.element(code, { mark: o.wild ? wildWord()[0][0] : null }),
             seatName: (s) => settledName(r, s), names: names[variant] || {}, extra: names.extra || {}, wildName: wildWord()[0] };
  }
  function settlementWords(r, variant) {
    const box = el("div", { class: "settle", id: "settlement" });
    const table = (names[variant] || {});
    const st = r.settlement || {};
    if (r.outcome === "draw" || r.winner === null || r.winner === undefined) {
      box.appendChild(el("p", { class: "win-line" }, ...bi("荒庄，无人胡牌", "exhausted wall: nobody won")));
    } else {
      const by = BY[r.win.by] || [r.win.by, r.win.by];
      const from = r.win.from !== null && r.win.from !== undefined && r.win.from !== r.winner ?
        [`，${seatName(r.win.from)} 点炮`, el("small", { text: ` (${seatName(r.win.from)} discarded it)` })] : [];
      box.appendChild(el("p", { class: "win-line" }, el("b", { text: settledName(r, r.winner) }), " 胡 ", T.element(r.win.tile),
        ` ${by[0]}`, ...from, " ", el("small", { text: `wins with ${r.win.tile}, ${by[1]}` })));
      if (r.explain) box.appendChild(TX.hand(r.explain, explainCtx(r, variant)));  // engine.explain, as the replay
      const score = st.score || {};
      const list = el("ul", { class: "patterns", id: "patterns" });
      for (const p of score.patterns || []) {
        const code = typeof p === "string" ? p : p.code;
        const nm = table[code] || (names.extra || {})[code] || [code, code];
        list.appendChild(el("li", { dataset: { code } }, `${nm[0]} `, el("small", { text: nm[1] }),
          typeof p === "string" || p.points === undefined ? "" : ` ${p.points}`));
      }
      if (!(score.patterns || []).length) list.appendChild(el("li", {}, ...bi("平胡，无特殊牌型", "plain win, no special hand")));
      box.appendChild(list);
      if (r.explain && r.explain.payment) box.appendChild(TX.payment(r.explain.payment, score, explainCtx(r, variant)));
      else if ("multiplier" in score) box.appendChild(el("p", { text: `点数 points ${score.points} × 倍数 multiplier ${score.multiplier} = ${score.value}` }));
      else if ("pattern_score" in score) box.appendChild(el("p", { text: `番数 pattern score ${score.pattern_score}` }));
    }
    const rows = el("table", { class: "pay", id: "settle-table" },
      el("tr", {}, el("th", { text: "玩家 player" }), el("th", { text: "胡牌 win" }), el("th", { text: "杠 kongs" }),
         el("th", { text: "合计 total" }), el("th", { text: "比分 score" })));
    for (let s = 0; s < 4; s++) {
      const cell = (arr) => { const n = arr ? arr[s] : 0; return el("td", { class: "num " + (n > 0 ? "pos" : n < 0 ? "neg" : ""), text: (n > 0 ? "+" : "") + n }); };
      rows.appendChild(el("tr", { dataset: { seat: s } }, el("td", { class: "who", text: settledName(r, s), title: settledName(r, s) }),
        cell(st.win_deltas), cell(st.kong_deltas), cell(st.deltas), el("td", { class: "num", text: String(r.scores[s]) })));
    }
    box.appendChild(rows);
    box.appendChild(el("p", { class: "why" }, payWords(r)));
    return box;
  }
  function payWords(r) {  // who pays what and why, in words
    const st = r.settlement || {};
    const d = st.deltas || [0, 0, 0, 0];
    const payers = [0, 1, 2, 3].filter((s) => d[s] < 0).map((s) => `${seatName(s)} 付 pays ${-d[s]}`);
    const gainers = [0, 1, 2, 3].filter((s) => d[s] > 0).map((s) => `${seatName(s)} 得 gets ${d[s]}`);
    if (!payers.length) return "无人付分 nobody pays (荒庄不算杠 no kong payments without a winner)";
    let why = "";
    if (r.win && r.win.by === "discard") why = "（点炮者付 the discarder pays）";
    else if (r.win) why = "（自摸三家付 each other player pays）";
    if (st.kong_deltas && st.kong_deltas.some((x) => x)) why += "（含杠分 kong payments included）";
    return payers.concat(gainers).join("；") + " " + why;
  }
  function standings() {
    const scores = view.view.scores;
    const order = [0, 1, 2, 3].sort((a, b) => scores[b] - scores[a]);
    if (ratings === null) loadRatings();
    return el("ol", { class: "standings", id: "standings" }, ...order.map((s, i) =>
      el("li", { dataset: { seat: s } }, ["🥇 ", "🥈 ", "🥉 ", ""][i], el("b", { text: seatName(s) }),
        ` ${scores[s] > 0 ? "+" : ""}${scores[s]}`, i === 0 ? " 第一 winner" : "", ratingChange(s))));
  }
  async function loadRatings() {  // a rated match (docs/API.md, "Ratings and figures") shows each seat's change
    ratings = { rated: false, seats: [] };
    try { ratings = await api("GET", `/api/matches/${matchId}/ratings`); } catch (e) { return; }
    if (ratings.rated && view.status === "over" && !$("result").hidden) renderResult();
  }
  function ratingChange(s) {
    const c = ratings && ratings.rated ? ratings.seats.find((x) => x.seat === s) : null;
    if (!c) return null;
    const sign = c.change > 0 ? "+" : c.change < 0 ? "−" : "±";
    return el("span", { class: "rating-change" }, "评分 ", el("small", { text: "rating" }),
      ` ${sign}${Math.abs(c.change).toFixed(2)} → `,
      el("a", { href: `/players/${encodeURIComponent(c.player)}`,
        "aria-label": `${seatName(s)}: 评分 rating ${c.after.rating.toFixed(2)}, 战绩 profile` }, c.after.rating.toFixed(2)));
  }

  // ------------------------------------------------------------------ lobby (not started, or no seat here)
  function renderLobby(m) {
    $("table").hidden = true; $("me").hidden = true; $("result").hidden = true;
    const box = $("lobby");
    box.hidden = false;
    const taken = m.seats.filter(Boolean).length;
    const heading = m.status === "open" ? bi(`等待入座 ${taken}/4`, "waiting for players") :
      bi(m.status === "over" ? "对局已结束" : "对局进行中", m.status === "over" ? "match over" : "match in progress");
    box.replaceChildren(el("h1", {}, ...heading),
      el("ul", { class: "list" }, ...m.seats.map((s, i) => el("li", {}, `${WINDS[i][0]}位 `,
        s ? el("b", { text: s.name + (s.bot ? " (电脑 bot)" : "") }) : el("span", { class: "muted", text: "空位 empty" })))));
    if (seat === null) {
      box.appendChild(el("p", {}, ...bi("这个浏览器在这局没有座位。", "This browser holds no seat in this match."), " ",
        el("a", { href: `/join/${matchId}` }, "入座 join")));
    } else {
      box.appendChild(el("p", {}, ...bi("把邀请链接发给朋友：", "share the invite link:")));
      box.appendChild(el("input", { readonly: true, value: body.dataset.invite, class: "wide", "aria-label": "邀请链接 invite link" }));
    }
    if (owner && m.status === "open") {
      box.appendChild(el("p", {}, el("button", { type: "button", id: "add-bots", onclick: addBots }, ...bi("其余座位由电脑玩", "fill the empty seats with bots"))));
    }
    $("status-bar").hidden = false;
    $("title").replaceChildren(el("b", { text: (VARIANTS[m.variant || (m.view && m.view.variant)] || ["Tilefold"])[0] }));
  }
  async function addBots() {
    try { await api("POST", `/api/matches/${matchId}/bots`, {}); soon(); } catch (err) { toast(err.message); }
  }

  // ------------------------------------------------------------------ comforts: orders, notifications, chat, owner
  async function loadOrders() {
    if (seat === null) return;
    try {
      const o = await api("GET", `/api/matches/${matchId}/orders`);
      $("auto-pass").checked = o.auto_pass; $("auto-discard").checked = o.auto_discard;
    } catch (err) { /* a finished match has no orders to change */ }
  }
  async function saveOrders() {
    try {
      await api("PUT", `/api/matches/${matchId}/orders`, { auto_pass: $("auto-pass").checked, auto_discard: $("auto-discard").checked });
      toast("已保存 saved");
    } catch (err) { toast(err.message); loadOrders(); }
  }
  $("auto-pass").addEventListener("change", saveOrders);
  $("auto-discard").addEventListener("change", saveOrders);

  $("notify-btn").addEventListener("click", async () => {
    if (!("Notification" in window)) { toast("浏览器不支持 notifications unsupported"); return; }
    const answer = await Notification.requestPermission();
    toast(answer === "granted" ? "轮到你时会提醒 you will be notified on your turn" : "未允许 not allowed");
  });
  function notifyTurn(moved) {  // others moved (the stream, not this page's own action) and now it is this seat's turn
    const now = view.legal_actions.length > 0;
    if (now && moved && document.hidden && "Notification" in window && Notification.permission === "granted") {
      try { new Notification("轮到你了 Your turn", { body: `${VARIANTS[view.view.variant][0]} · Tilefold`, tag: matchId }); } catch (e) { /* ignore */ }
    }
  }

  let chatAfter = 0;
  async function chatLoop() {
    if (seat === null) return;
    for (;;) {
      try {
        const got = await api("GET", `/api/matches/${matchId}/chat?after=${chatAfter}&wait=20`);
        for (const line of got.lines) addChat(line);
        chatAfter = Math.max(chatAfter, got.version);
      } catch (err) {  // a refusal's Retry-After (the per-address wait cap) is honoured; otherwise 3 s
        await new Promise((r) => setTimeout(r, 1000 * Math.max(3, err.retryAfter || 0)));
      }
    }
  }
  function addChat(line) {
    if ($("chat-lines").querySelector(`[data-v="${line.version}"]`)) return;
    $("chat-lines").appendChild(el("li", { dataset: { v: line.version } }, el("b", { text: seatName(line.seat) + ": " }), line.text));
    if (line.version > chatAfter && line.seat !== seat) toast(`${seatName(line.seat)}: ${line.text}`);
  }
  $("chat-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const text = $("chat-text").value.trim();
    if (!text) return;
    try { const got = await api("POST", `/api/matches/${matchId}/chat`, { text }); got.lines.forEach(addChat); $("chat-text").value = ""; }
    catch (err) { toast(err.message); }
  });

  function ownerTools() {
    if (!owner) return;
    $("owner-tools").hidden = false;
    $("owner-invite").value = body.dataset.invite;
    const box = $("reinvite");
    box.replaceChildren(el("p", { class: "small" }, ...bi("有人换了浏览器？给他的座位发新链接（旧链接作废）：", "someone lost their browser? issue a fresh link for their seat (the old one stops working):")));
    (view ? view.seats : []).forEach((s, i) => {
      if (!s || s.bot) return;
      box.appendChild(el("button", { type: "button", class: "small", onclick: async () => {
        try {
          const got = await api("POST", `/api/matches/${matchId}/seats/${i}/invite`, {});
          box.appendChild(el("input", { readonly: true, class: "wide", value: got.play_url, "aria-label": `${s.name} 的新链接 new link` }));
        } catch (err) { toast(err.message); }
      } }, `重新邀请 re-invite ${s.name}`));
    });
  }

  $("show-result").addEventListener("click", () => { closedResult = false; renderResult(); });
  setInterval(() => {  // the countdown ticks between updates
    const box = $("countdown");
    if (box) box.textContent = "剩余 " + left(box.dataset.due);
  }, 1000);
  setInterval(() => { if (!document.hidden) soon(); }, 30000);  // a safety net under the stream

  (async function start() {
    await claimFromFragment();
    await refresh();
    follow();
    loadOrders();
    ownerTools();
    chatLoop();
  })();
  void csrf;
})();
