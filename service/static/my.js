/* My matches: every match this browser holds a seat in, your turn first, time left, the last move; live. */
(function () {
  "use strict";
  const { api, el, VARIANTS, WINDS, left, MOVE } = window.TF;
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
      time ? el("div", { class: "small deadline", text: "剩余 time left: " + time }) : null);
  }
  async function refresh() {
    const list = document.getElementById("my-list");
    try {
      const data = await api("GET", "/web/mine");
      list.replaceChildren(...(data.matches.length ? data.matches.map(item)
        : [el("li", { class: "muted" }, "这个浏览器还没有座位。", el("a", { href: "/" }, "开一局 create a match"))]));
    } catch (err) { /* keep the last list; retry on the next tick */ }
  }
  refresh();
  setInterval(refresh, 4000);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
})();
