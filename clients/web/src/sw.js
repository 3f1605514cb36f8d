// The service worker: after one visit the page, its script and the offline games load with no
// network. Network first (a fresh build always wins), the cache when the network fails.
// config.json and grpc-web calls are never cached.
const CACHE = "ludus-v2";
const SHELL = ["./", "index.html", "app.js", "bot-worker.js", "style.css", "offline/ludus_offline.js", "offline/ludus_offline_bg.wasm"];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => Promise.all(SHELL.map((path) => cache.add(path).catch(() => undefined)))),
  );
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  // Caches of older builds (another CACHE name) are dropped.
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin || url.pathname.endsWith("/config.json")) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          void caches.open(CACHE).then((cache) => cache.put(request, copy));
        }
        return response;
      })
      .catch(() => caches.match(request, { ignoreSearch: true }).then((hit) => hit ?? Response.error())),
  );
});
