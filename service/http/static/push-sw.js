/* The service worker of Web Push (docs/WEB.md, "Notifications with no tab open"), served at
   /push-sw.js so its scope is the whole site. A message is {kind, match, name, url} and nothing
   else: no tile, no hand, no other seat. It shows a notification; a click opens the match. */
"use strict";
const TITLES = {
  your_turn: "轮到你了 Your turn",
  hand_ended: "本局结束 Hand ended",
  match_ended: "对局结束 Match ended",
};
self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
  const url = typeof data.url === "string" && data.url.startsWith("/play/") ? data.url : "/my";
  const title = TITLES[data.kind] || "Tilefold";
  event.waitUntil(self.registration.showNotification(title, {
    body: typeof data.name === "string" ? data.name : "",
    tag: "tilefold-" + (typeof data.match === "string" ? data.match : ""),
    data: { url },
  }));
});
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const wanted = new URL((event.notification.data && event.notification.data.url) || "/my", self.location.origin).href;
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
    for (const w of windows) { if (w.url === wanted && "focus" in w) return w.focus(); }
    return self.clients.openWindow(wanted);
  }));
});
