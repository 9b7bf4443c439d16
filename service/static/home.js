/* Home page: create a match (options with Chinese names and a one-line explanation), open matches. */
(function () {
  "use strict";
  const { api, el, toast, VARIANTS } = window.TF;
  const OPTIONS = {
    koudiandian: [
      ["wilds", "耗子", "each hand one tile kind is wild (K-13)", false],
      ["kong_keeps_waits", "改变听口不能杠", "after 报听 a kong must keep exactly the same waits (K-3)", false],
      ["must_win", "有胡必胡", "a possible win is always taken (K-5)", false],
      ["feeder_pays_kong", "点杠包杠", "whoever fed an exposed kong pays all of it (K-9)", false],
      ["discarder_pays_kongs", "点炮包杠", "the discarder of the winning tile pays every kong (K-9)", false],
      ["dealer_bonus", "带庄多五分", "5 more points on each share the dealer pays or gets (K-12)", false],
    ],
    hanshan: [
      ["wild_self_draw_only", "有配子只能自摸", "a hand holding a 配子 wins only by self-draw (H-3)", true],
      ["win_on_discarded_wild", "见配给胡", "a discarded 配子 may be won on (H-3)", false],
      ["discarder_pays_all", "点炮一家付", "the discarder pays the whole win alone (H-5)", false],
    ],
  };
  const form = document.getElementById("create");
  const variant = () => form.querySelector("input[name=variant]:checked").value;

  function drawOptions() {
    const box = document.getElementById("option-list");
    box.replaceChildren(...OPTIONS[variant()].map(([key, zh, en, on]) =>
      el("label", { class: "check opt" }, el("input", { type: "checkbox", name: "opt", value: key, checked: on }),
         el("b", { text: zh }), " ", el("small", { text: en }))));
  }
  form.querySelectorAll("input[name=variant]").forEach((r) => r.addEventListener("change", drawOptions));
  drawOptions();

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const options = {};
    form.querySelectorAll("input[name=opt]").forEach((box) => { options[box.value] = box.checked; });
    const [unit, count] = form.length.value.split(":");
    options[unit] = Number(count);
    options.base = Math.max(1, Number(form.base.value) || 1);
    const body = { variant: variant(), options };
    if (form.deadline.value) body.deadline_seconds = Number(form.deadline.value);
    const button = document.getElementById("create-btn");
    button.disabled = true;
    try {
      const made = await api("POST", "/web/matches", body);
      const name = form.name.value.trim();
      if (name || form.bots.checked) await api("POST", `/web/matches/${made.id}/join`, { name: name || "我 Me" });
      if (form.bots.checked) await api("POST", `/api/matches/${made.id}/bots`, {});
      if (form.bots.checked) { location.href = made.play; return; }
      form.hidden = true;
      document.getElementById("created").hidden = false;
      document.getElementById("invite-url").value = made.invite_url;
      document.getElementById("go-table").href = made.play;
    } catch (err) {
      toast("开局失败 could not create: " + err.message);
    } finally { button.disabled = false; }
  });
  document.getElementById("copy").addEventListener("click", async () => {
    const input = document.getElementById("invite-url");
    input.select();
    try { await navigator.clipboard.writeText(input.value); toast("已复制 copied"); } catch (e) { document.execCommand("copy"); }
  });

  async function openMatches() {
    const list = document.getElementById("open-list");
    try {
      const data = await api("GET", "/api/matches");
      const open = data.matches.filter((m) => m.status === "open").reverse().slice(0, 20);
      list.replaceChildren(...(open.length ? open.map((m) => {
        const taken = m.seats.filter(Boolean).map((s) => s.name);
        return el("li", {}, el("a", { href: `/join/${m.id}` }, VARIANTS[m.variant][0] + " " + VARIANTS[m.variant][1]),
                  " · ", `${taken.length}/4 `, el("span", { class: "muted", text: taken.join("、") }));
      }) : [el("li", { class: "muted", text: "暂无 none right now" })]));
    } catch (err) { list.replaceChildren(el("li", { class: "muted", text: err.message })); }
  }
  openMatches();
  setInterval(openMatches, 15000);
})();
