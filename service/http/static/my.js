/* My matches: every match this browser holds a seat in, your turn first, time left, the last move; live. */
(function () {
  "use strict";
  const { el, VARIANTS, WINDS, left, MOVE } = window.TF;
  const STATE = { your_turn: ["轮到你", "your turn"], waiting: ["等待他人", "waiting for others"],
                  open: ["等人入座", "waiting for players"], over: ["已结束", "finished"] };
  function move(m) {
    const last = m.last_move;
    if (!last) return "";
    const who = last.seat !== null && last.seat !== undefined && m.seats[last.seat] ? m.seats[last.seat].name + " " : "";
    const tile = last.tile ? " " + window.TilefoldTiles.zh(last.tile) + " " + last.tile : "";
    const words = MOVE[last.type] || [last.type, ""];
    return `${who}${words[0]}${tile} (${words[1]})`;
  }
  function item(m) {
    const state = STATE[m.state];
    const time = m.deadline && m.state === "your_turn" ? left(m.deadline) : null;
    return el("li", { class: "match " + m.state, dataset: { match: m.id } },
      el("a", { href: `/play/${m.id}`, class: "go" },
        el("span", { class: "badge " + m.state, text: `${state[0]} ${state[1]}` }), " ",
        el("b", { text: VARIANTS[m.variant][0] }), " ",
        el("span", { text: `${WINDS[m.seat][0]}位 seat ${WINDS[m.seat][1]}` }),
        m.hand_no ? el("span", { class: "muted", text: ` · 第${m.hand_no}局 hand ${m.hand_no}` }) : null),
      el("div", { class: "muted small", text: m.seats.map((s) => s ? s.name : "—").join(" · ") }),
      el("div", { class: "small" }, move(m)),
      time ? el("div", { class: "small deadline", text: "剩余 time left: " + time }) : null,
      m.state === "over" ? el("div", { class: "small" }, el("a", { class: "replay", href: `/replay/${m.id}` }, "回放 ", el("small", { text: "replay" }))) : null);
  }
  let shown = null, tag = null;  // the last list and its ETag
  function render() {
    if (!shown) return;
    document.getElementById("my-list").replaceChildren(...(shown.length ? shown.map(item)
      : [el("li", { class: "muted" }, "这个浏览器还没有座位。", el("a", { href: "/" }, "开一局 create a match"))]));
  }
  // One request: with `wait`, a long-poll answered when one of the matches moves for this browser
  // (304 when nothing did); the seconds to pause before the next one (a refusal's Retry-After).
  async function fetchList(wait) {
    const headers = { "Accept": "application/json" };
    if (wait && tag) headers["If-None-Match"] = tag;
    const url = wait && tag ? "/web/mine?wait=25" : "/web/mine";
    const res = await fetch(url, { headers, credentials: "same-origin", cache: "no-store" });
    if (res.status === 304) return 0;
    if (!res.ok) return Math.max(3, Number.parseInt(res.headers.get("Retry-After") || "", 10) || 0);
    const data = await res.json();
    tag = res.headers.get("ETag"); shown = data.matches; render();
    return 0;
  }
  async function follow() {  // live: one long-poll at a time, never a timer asking every few seconds
    for (;;) {
      let pause;
      try { pause = await fetchList(true); } catch (err) { pause = 3; }  // offline: keep the last list
      if (pause) await new Promise((r) => setTimeout(r, 1000 * pause));
    }
  }
  follow();
  setInterval(render, 5000);  // the time left counts down between answers (no request)
  document.addEventListener("visibilitychange", () => { if (!document.hidden) fetchList(false).catch(() => {}); });
  // a seat taken in another tab (pages.js seatsChanged): a cookie is not an event, so no wait hears it
  window.addEventListener("storage", (ev) => { if (ev.key === window.TF.SEATS_KEY) fetchList(false).catch(() => {}); });
})();
