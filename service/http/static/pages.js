/* Tilefold pages: shared helpers (fetch with the CSRF header, DOM building, words in Chinese and English).
   Names and tiles from the server are always written with textContent, never as HTML. */
(function (root) {
  "use strict";
  const csrf = () => (document.querySelector("meta[name=csrf-token]") || {}).content || "";
  async function api(method, url, body) {
    const init = { method, headers: { "Accept": "application/json" }, credentials: "same-origin" };
    if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
    if (method !== "GET") init.headers["X-CSRF-Token"] = csrf();
    const res = await fetch(url, init);
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      const err = new Error((data && (data.detail || data.title)) || ("HTTP " + res.status));
      err.status = res.status; err.data = data;
      err.retryAfter = Number.parseInt(res.headers.get("Retry-After") || "", 10) || null;  // 429/503: seconds to wait
      throw err;
    }
    return data;
  }
  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = String(v);
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      node.appendChild(typeof kid === "string" || typeof kid === "number" ? document.createTextNode(String(kid)) : kid);
    }
    return node;
  }
  function bi(zh, en) { return [zh, " ", el("small", { text: en })]; }
  function toast(text) {
    const box = document.getElementById("toast");
    if (!box) return;
    box.textContent = text; box.classList.add("on");
    clearTimeout(toast.timer); toast.timer = setTimeout(() => box.classList.remove("on"), 4000);
  }
  // The rule sets, from the engine's variant registry (the page embeds GET /api/variants' JSON).
  const REGISTRY = JSON.parse((document.getElementById("tf-variants") || {}).textContent || "{}");
  const VARIANTS = Object.fromEntries(Object.entries(REGISTRY).map(([k, v]) => [k, [v.zh, v.en]]));
  const WINDS = [["东", "East"], ["南", "South"], ["西", "West"], ["北", "North"]];
  const WILD = Object.fromEntries(Object.entries(REGISTRY).map(([k, v]) => [k, [v.wild, "wild"]]));
  function left(deadline) {  // "2小时5分 2h 5m" until an ISO time, or null
    if (!deadline) return null;
    let s = Math.max(0, Math.round((Date.parse(deadline) - Date.now()) / 1000));
    const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60); s %= 60;
    if (d) return `${d}天${h}小时 ${d}d ${h}h`;
    if (h) return `${h}小时${m}分 ${h}h ${m}m`;
    return `${m}分${s}秒 ${m}m ${s}s`;
  }
  // A seat taken in this tab: other tabs of this browser (My matches) hear it as a "storage" event.
  const SEATS_KEY = "tf-seats-changed";
  function seatsChanged() { try { localStorage.setItem(SEATS_KEY, String(Date.now())); } catch (e) { /* private mode */ } }
  const MOVE = { hand_started: ["开局", "dealt"], discarded: ["打出", "discarded"], punged: ["碰", "punged"],
                 konged: ["杠", "konged"], ting_declared: ["报听", "declared ready"], won: ["胡", "won"],
                 hand_ended: ["本局结束", "hand over"], match_ended: ["终局", "match over"] };
  // This browser's part of every hand's wall (G-11 joint walls): 32 bytes from crypto.getRandomValues,
  // sent once when the seat is taken; kept per match so the table can show it went into the wall.
  function wallPart(matchId) {
    const bytes = new Uint8Array(32);
    crypto.getRandomValues(bytes);
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    try { localStorage.setItem("tf-wall-part-" + matchId, hex); } catch (e) { /* private mode: shown from the server's view */ }
    return hex;
  }
  root.TF = { api, el, bi, toast, REGISTRY, VARIANTS, WINDS, WILD, left, MOVE, csrf, seatsChanged, SEATS_KEY, wallPart };
})(window);
