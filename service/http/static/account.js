/* The account page: passkey ceremonies (WebAuthn through the browser's JSON helpers), recovery
   codes shown once, claiming this browser's seats, the signed-in devices (one signed out from
   here), API tokens (made, shown once, revoked), export and deletion (docs/WEB.md). */
(function () {
  "use strict";
  const { api, el, toast } = window.TF;
  const $ = (id) => document.getElementById(id);
  const signedIn = document.body.dataset.signedIn === "1";
  function fail(e) { $("acct-error").textContent = (e && e.message) || String(e); }
  function clearError() { $("acct-error").textContent = ""; }
  async function create(options) {
    const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(options);
    return (await navigator.credentials.create({ publicKey })).toJSON();
  }
  async function get(options) {
    const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(options);
    return (await navigator.credentials.get({ publicKey })).toJSON();
  }
  function showCodes(codes) {
    sessionStorage.setItem("tf-codes", JSON.stringify(codes));  // shown once, on the page that follows
  }
  async function runNow(button, work) {
    clearError(); button.disabled = true;
    try { await work(); } catch (e) { fail(e); } finally { button.disabled = false; }
  }
  function run(button, work) {
    button.addEventListener("click", (event) => { event.preventDefault(); runNow(button, work); });
  }
  if (!signedIn) {
    const link = new URLSearchParams(location.hash.slice(1)).get("link");
    if (link) { history.replaceState(null, "", location.pathname); $("link-card").hidden = false; }
    $("sign-up-form").addEventListener("submit", (e) => e.preventDefault());
    run($("sign-up"), async () => {
      const name = $("acct-new-name").value.trim();
      if (!name) { $("acct-new-name").focus(); throw new Error("请填写显示名 Enter a display name"); }
      const options = await api("POST", "/web/account/sign-up/options", { name });
      const done = await api("POST", "/web/account/sign-up", { credential: await create(options) });
      showCodes(done.recovery_codes); location.reload();
    });
    run($("sign-in"), async () => {
      const options = await api("POST", "/web/account/sign-in/options", {});
      await api("POST", "/web/account/sign-in", { credential: await get(options) });
      location.reload();
    });
    run($("link-device"), async () => {
      const options = await api("POST", "/web/account/linked-passkey/options", { code: link });
      await api("POST", "/web/account/linked-passkey", { credential: await create(options) });
      location.reload();
    });
    $("recover-form").addEventListener("submit", (e) => e.preventDefault());
    run($("recover"), async () => {
      const code = $("recovery-code").value.trim();
      if (!code) { $("recovery-code").focus(); throw new Error("请填写恢复码 Enter a recovery code"); }
      const options = await api("POST", "/web/account/recover/options", { code });
      await api("POST", "/web/account/recover", { credential: await create(options) });
      location.reload();
    });
    return;
  }
  async function facts() {
    const p = await api("GET", "/web/account");
    const list = $("acct-facts");
    list.replaceChildren(
      el("li", { text: `通行密钥 passkeys: ${p.passkeys}` }),
      el("li", { text: `剩余恢复码 recovery codes left: ${p.recovery_codes_left}` }),
      el("li", { text: `座位 seats: ${p.seats.filter((s) => s.seat >= 0).length}` }),
      el("li", {}, el("a", { href: `/players/${encodeURIComponent(p.id)}`, id: "profile-link" }, "我的战绩 ",
        el("small", { text: "my profile: ratings and figures" }))));
    listSessions(p.sessions);
    listTokens(p.api_tokens);
  }
  const when = (iso) => `${iso.slice(0, 16).replace("T", " ")} UTC`;
  function listSessions(sessions) {  // this device marked; every other one with its own Sign out button
    $("sessions").replaceChildren(...sessions.map((s) => {
      const said = `${s.device}, 登录于 signed in ${when(s.since)}`;
      return el("li", { class: "device", dataset: { session: s.id } },
        el("span", { class: "what" }, el("strong", { text: s.device }), ` · 登录于 signed in ${when(s.since)}`,
          s.last_used ? ` · 最近使用 last used ${when(s.last_used)}` : ""),
        s.current
          ? el("span", { class: "here" }, "本设备 ", el("small", { text: "this device" }))
          : el("button", { type: "button", class: "device-sign-out", "aria-label": `退出 Sign out: ${said}`,
            onclick: (event) => runNow(event.currentTarget, async () => {
              await api("POST", `/web/account/sessions/${encodeURIComponent(s.id)}/sign-out`, {});
              toast(`已退出 signed out: ${s.device}`); await facts();
            }) }, "退出 ", el("small", { text: "Sign out" })));
    }));
  }
  function listTokens(tokens) {
    $("tokens").replaceChildren(...tokens.map((t) => el("li", { class: "token", dataset: { token: t.id } },
      el("span", { class: "what" }, el("strong", { text: t.name }), ` · 创建 made ${when(t.created)} · `,
        t.last_used ? `最近使用 last used ${when(t.last_used)}` : "未用过 never used"),
      el("button", { type: "button", class: "token-revoke", "aria-label": `吊销 Revoke: ${t.name}`,
        onclick: (event) => runNow(event.currentTarget, async () => {
          await api("POST", `/web/account/tokens/${encodeURIComponent(t.id)}/revoke`, {});
          toast(`已吊销 revoked: ${t.name}`); await facts();
        }) }, "吊销 ", el("small", { text: "Revoke" })))));
  }
  const codes = sessionStorage.getItem("tf-codes");
  function listCodes(found) {
    $("codes").replaceChildren(...found.map((c) => el("li", { text: c })));
    $("codes-card").hidden = false;
  }
  if (codes) { sessionStorage.removeItem("tf-codes"); listCodes(JSON.parse(codes)); }
  facts().catch(fail);
  run($("claim"), async () => {
    const done = await api("POST", "/web/account/claim", {});
    $("claim-done").textContent = `并入 claimed: ${done.claimed.length}`;
    window.TF.seatsChanged(); await facts();
  });
  run($("add-passkey"), async () => {
    const options = await api("POST", "/web/account/passkeys/options", {});
    await api("POST", "/web/account/passkeys", { credential: await create(options) });
    toast("已添加 added"); await facts();
  });
  run($("device-link"), async () => {
    const done = await api("POST", "/web/account/device-link", {});
    $("link-url").value = `${location.origin}/account#link=${done.code}`;
    $("link-box").hidden = false; $("link-url").select();
  });
  $("token-form").addEventListener("submit", (e) => e.preventDefault());
  run($("token-create"), async () => {  // shown once: the server keeps only its MAC
    const name = $("token-name").value.trim();
    if (!name) { $("token-name").focus(); throw new Error("请填写令牌名称 Name the token"); }
    const made = await api("POST", "/web/account/tokens", { name });
    $("token-value").value = made.token; $("token-made").hidden = false; $("token-name").value = "";
    $("token-value").select(); await facts();
  });
  run($("token-copy"), async () => {
    $("token-value").select();
    try { await navigator.clipboard.writeText($("token-value").value); } catch (e) { document.execCommand("copy"); }
    toast("已复制 copied");
  });
  run($("renew-codes"), async () => {
    const done = await api("POST", "/web/account/recovery-codes", {});
    listCodes(done.recovery_codes); await facts();
  });
  // Web Push: this device's subscription (docs/WEB.md, "Notifications with no tab open")
  function unb64(text) {
    const raw = atob((text + "=".repeat((4 - text.length % 4) % 4)).replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }
  async function pushRegistration() {
    return navigator.serviceWorker.register("/push-sw.js", { scope: "/" });
  }
  function showPush(on, note) {
    const button = $("push-toggle");
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.replaceChildren(on ? "停止通知 " : "通知我 ", el("small", {}, on ? "Stop notifying this device" : "Notify me on this device"));
    $("push-state").textContent = note || (on ? "本设备会收到通知。 This device is notified." : "");
  }
  async function pushState() {
    if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
      $("push-toggle").disabled = true;
      showPush(false, "这个浏览器不支持推送通知。 This browser cannot receive push notifications.");
      return;
    }
    const registration = await navigator.serviceWorker.getRegistration("/");
    const found = registration && await registration.pushManager.getSubscription();
    showPush(Boolean(found));
  }
  run($("push-toggle"), async () => {
    const registration = await pushRegistration();
    const found = await registration.pushManager.getSubscription();
    if (found) {
      await api("POST", "/web/account/push/remove", { endpoint: found.endpoint });
      await found.unsubscribe();
      showPush(false, "本设备不再收到通知。 This device is no longer notified.");
      return;
    }
    if (await Notification.requestPermission() !== "granted") {
      showPush(false, "浏览器没有允许通知。 The browser did not allow notifications.");
      return;
    }
    const { public_key: key } = await api("GET", "/web/account/push");
    const made = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: unb64(key) });
    await api("POST", "/web/account/push", { subscription: made.toJSON() });
    showPush(true);
  });
  pushState().catch(fail);
  async function stopPushHere() {  // signed out, this device is no longer notified
    try {
      const registration = await navigator.serviceWorker.getRegistration("/");
      const found = registration && await registration.pushManager.getSubscription();
      if (found) { await api("POST", "/web/account/push/remove", { endpoint: found.endpoint }); await found.unsubscribe(); }
    } catch (e) { /* nothing subscribed here, or no push in this browser */ }
  }
  run($("sign-out"), async () => { await stopPushHere(); await api("POST", "/web/account/sign-out", {}); location.reload(); });
  run($("sign-out-everywhere"), async () => { await api("POST", "/web/account/sign-out-everywhere", {}); location.reload(); });
  run($("delete"), async () => {
    if (!$("delete-sure").checked) { $("delete-sure").focus(); throw new Error("请先勾选“我确定” Tick “I am sure” first"); }
    await api("POST", "/web/account/delete", {}); location.reload();
  });
})();
