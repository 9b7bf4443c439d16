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

  function chosenOptions() {
    const options = {};
    form.querySelectorAll("input[name=opt]").forEach((box) => { options[box.value] = box.checked; });
    const [unit, count] = form.length.value.split(":");
    options[unit] = Number(count);
    options.base = Math.max(1, Number(form.base.value) || 1);
    return options;
  }

  // Play now (signed in): the oldest open table of these rules and options, or a new one.
  document.getElementById("play-now-btn").addEventListener("click", async (ev) => {
    const button = ev.currentTarget;
    button.disabled = true;
    try {
      const placed = await api("POST", "/web/play-now", { variant: variant(), options: chosenOptions(), name: form.name.value.trim() });
      window.TF.seatsChanged();
      location.href = placed.play;
    } catch (err) {
      toast(err.status === 401 ? "先登录 sign in first: /account" : "入座失败 could not seat you: " + err.message);
    } finally { button.disabled = false; }
  });

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const options = chosenOptions();
    const body = { variant: variant(), options };
    if (form.deadline.value) body.deadline_seconds = Number(form.deadline.value);
    if (form.claim.value) body.claim_seconds = Number(form.claim.value);
    const button = document.getElementById("create-btn");
    button.disabled = true;
    try {
      const made = await api("POST", "/web/matches", body);
      const name = form.name.value.trim();
      if (name || form.bots.checked) {
        await api("POST", `/web/matches/${made.id}/join`, { name: name || "我 Me", randomness: window.TF.wallPart(made.id) });
        window.TF.seatsChanged();
      }
      if (form.bots.checked) {
        const levels = [form.level2.value, form.level3.value, form.level4.value];  // one per empty seat, lowest first
        await api("POST", `/api/matches/${made.id}/bots`, { levels });
      }
      if (form.bots.checked) { location.href = made.play; return; }
      form.hidden = true;
      document.getElementById("created").hidden = false;
      document.getElementById("invite-url").value = made.invite_url;
      document.getElementById("go-table").href = made.play;
      followSeats(made.id, Boolean(name));
    } catch (err) {
      toast("开局失败 could not create: " + err.message);
    } finally { button.disabled = false; }
  });
  document.getElementById("copy").addEventListener("click", async () => {
    const input = document.getElementById("invite-url");
    input.select();
    try { await navigator.clipboard.writeText(input.value); toast("已复制 copied"); } catch (e) { document.execCommand("copy"); }
  });

  // Matches open for joining: newest first (the API's order), only those with a free seat, a page at
  // a time: the list reads the API's pages (?before=) until it has OPEN_PAGE of them; 更多 more reads on.
  const OPEN_PAGE = 10, SCAN_PAGES = 5;
  let openNext = "/api/matches";
  async function openMatches(more) {
    const list = document.getElementById("open-list");
    const moreBtn = document.getElementById("open-more");
    if (!more) openNext = "/api/matches";
    const found = [];
    try {
      for (let pages = 0; openNext && found.length < OPEN_PAGE && pages < SCAN_PAGES; pages++) {
        const data = await api("GET", openNext);
        found.push(...data.matches.filter((m) => m.status === "open" && m.seats.some((s) => !s)));
        openNext = data.next;
      }
      const items = found.map((m) => {
        const taken = m.seats.filter(Boolean).map((s) => s.name);
        return el("li", { dataset: { match: m.id } }, el("a", { href: `/join/${m.id}` }, VARIANTS[m.variant][0] + " " + VARIANTS[m.variant][1]),
                  " · ", `${taken.length}/4 `, el("span", { class: "muted", text: taken.join("、") }),
                  m.created_at ? el("small", { text: " · " + new Date(m.created_at).toLocaleString() }) : null);
      });
      if (more) list.append(...items);
      else list.replaceChildren(...(items.length ? items : [el("li", { class: "muted", text: "暂无 none right now" })]));
    } catch (err) { if (!more) list.replaceChildren(el("li", { class: "muted", text: err.message })); }
    moreBtn.hidden = !openNext;
  }
  document.getElementById("open-more").addEventListener("click", () => openMatches(true));
  openMatches(false);
  setInterval(() => { if (document.getElementById("open-more").hidden || !document.querySelector("#open-list li + li")) openMatches(false); }, 15000);

  // The creator's page follows the seats filling (a long-poll on the creator's seat view when seated,
  // else the public summary every 5 s) and says when the match has started.
  async function followSeats(id, seated) {
    let tag = null;
    for (;;) {
      let m = null;
      try {
        if (seated) {
          const res = await fetch(`/api/matches/${id}/view?wait=20`, { credentials: "same-origin",
            headers: Object.assign({ Accept: "application/json" }, tag ? { "If-None-Match": tag } : {}) });
          if (res.status === 304) continue;
          if (!res.ok) throw new Error("HTTP " + res.status);
          tag = res.headers.get("ETag");
          m = await res.json();
        } else m = await api("GET", `/api/matches/${id}`);
      } catch (err) { await new Promise((r) => setTimeout(r, 5000)); continue; }
      showSeats(m);
      if (m.status !== "open") return;
      if (!seated) await new Promise((r) => setTimeout(r, 5000));
    }
  }
  function showSeats(m) {
    const taken = m.seats.filter(Boolean).length;
    document.getElementById("created-seats").replaceChildren(...m.seats.map((s, i) => el("li", {}, `${i + 1}. `,
      s ? el("b", { text: s.name + (s.bot ? " (电脑 bot)" : ""), title: s.name }) : el("span", { class: "muted", text: "空位 empty" }))));
    const status = document.getElementById("created-status");
    if (m.status === "open") status.replaceChildren(`等待入座 ${taken}/4 `, el("small", { text: `waiting for players: ${taken} of 4 seated` }));
    else {
      status.replaceChildren(el("b", { text: "对局已开始！" }), " ", el("small", { text: "the match has started: go to the table" }));
      document.body.dataset.started = "1";
    }
  }
})();
