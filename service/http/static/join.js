/* Invite page: pick a display name, take the next seat (the seat token goes into an HttpOnly cookie). */
(function () {
  "use strict";
  const { api, el, toast, VARIANTS } = window.TF;
  const matchId = document.body.dataset.match;
  const info = document.getElementById("join-info");
  async function load() {
    const m = await api("GET", `/api/matches/${matchId}`);
    const names = m.seats.map((s, i) => s ? s.name : "空位 empty");
    const length = m.options.rounds ? `${m.options.rounds}圈 rounds` : `${m.options.hands}局 hands`;
    info.replaceChildren(el("p", {}, el("b", { text: VARIANTS[m.variant][0] }), " " + VARIANTS[m.variant][1] + " · " + length +
      " · 底分 base " + m.options.base), el("p", { text: "座位 Seats: " + names.join(" · ") }));
    const form = document.getElementById("join-form");
    if (document.body.dataset.seated) {
      form.hidden = true; document.getElementById("join-done").hidden = false;
      info.appendChild(el("p", { text: "你已在座 You already hold a seat here." }));
    } else if (m.status !== "open") {
      form.hidden = true;
      info.appendChild(el("p", { text: "座位已满 This match is full." }));
    }
  }
  document.getElementById("join-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = document.getElementById("join-name").value.trim();
    if (!name) { toast("请填名字 please enter a name"); return; }
    try {
      const joined = await api("POST", `/web/matches/${matchId}/join`, { name, randomness: window.TF.wallPart(matchId) });
      window.TF.seatsChanged();
      location.href = joined.play;
    } catch (err) { toast("入座失败 could not join: " + err.message); load(); }
  });
  load().catch((err) => { info.textContent = err.message; });
})();
