/* Home page: create a match (options with Chinese names and a one-line explanation), open matches. */
(function () {
  "use strict";
  const { api, el, toast, REGISTRY, VARIANTS } = window.TF;
  // Each rule set's options (name, Chinese name, what it does, default), from the variant registry.
  const OPTIONS = Object.fromEntries(Object.entries(REGISTRY).map(([k, v]) => [k,
    Object.entries(v.option_names).map(([key, [zh, en]]) => [key, zh, en, v.options[key] === true])]));
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
      if (name || form.bots.checked) {
        await api("POST", `/web/matches/${made.id}/join`, { name: name || "我 Me" });
        window.TF.seatsChanged();
      }
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
