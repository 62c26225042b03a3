// The board's service worker (SPEC §23), served at /sw.js with scope /. The hub puts two constants before this text:
// BUILD (the running build's version) and FILES (its bundled files). Plain JavaScript, since it is served as it is.
/* global BUILD, FILES, self, caches, clients */

const APP_CACHE = `hub-app-${BUILD}`;
/** The last payload of each platform (and the site's settings, without which no board renders), kept across builds. */
const DATA_CACHE = "hub-data";
const PAYLOAD = /^\/api\/v1\/platforms\/[A-Za-z0-9]+\/incentives$/;
const META = "/api/v1/meta";
/** Pages that are never kept: whatever is signed in stays on the network. */
const PRIVATE_PAGES = /^\/(admin|account|login|setup)(\/|$)/;
/** A cached copy says so, for the board's "offline, updated …". */
const FROM_CACHE = "x-hub-offline";

// Nothing is downloaded at install: the build's files are kept as the pages this worker serves fetch them (from the
// browser's HTTP cache, where they already are), so a visit costs no second download of the app.
self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(APP_CACHE).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith("hub-app-") && name !== APP_CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

/** Tells the page whether its payload came from the network or from what was kept (for "offline, updated …"). */
function tell(clientId, offline) {
  if (!clientId) return;
  self.clients.get(clientId).then((client) => client && client.postMessage({ hubOffline: offline }));
}

/** The network's answer, kept when it is good; the kept copy, marked, when the network fails. */
async function networkThenKept(request, cacheName, key, clientId) {
  const cache = await caches.open(cacheName);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(key, response.clone());
    tell(clientId, false);
    return response;
  } catch (error) {
    const kept = await cache.match(key);
    if (!kept) throw error;
    tell(clientId, true);
    const headers = new Headers(kept.headers);
    headers.set(FROM_CACHE, "1");
    return new Response(await kept.blob(), { status: kept.status, headers });
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (PAYLOAD.test(url.pathname) || url.pathname === META) {
    event.respondWith(networkThenKept(request, DATA_CACHE, url.pathname, PAYLOAD.test(url.pathname) ? event.clientId : null));
    return;
  }
  if (request.mode === "navigate") {
    if (PRIVATE_PAGES.test(url.pathname) || url.pathname.startsWith("/api/")) return;
    // The page comes fresh while online, and the latest is kept; offline, it is shown, and the app routes by the address.
    event.respondWith(
      caches.open(APP_CACHE).then((cache) =>
        fetch(request).then(
          (response) => {
            if (response.ok) event.waitUntil(cache.put("/", response.clone()));
            return response;
          },
          () => cache.match("/").then((kept) => kept || Response.error()),
        ),
      ),
    );
    return;
  }
  if (FILES.includes(url.pathname)) {
    event.respondWith(
      caches.open(APP_CACHE).then((cache) =>
        cache.match(url.pathname).then(
          (kept) =>
            kept ||
            fetch(request).then((response) => {
              if (response.ok) event.waitUntil(cache.put(url.pathname, response.clone()));
              return response;
            }),
        ),
      ),
    );
  }
});

self.addEventListener("push", (event) => {
  let message = null;
  try {
    message = event.data ? event.data.json() : null;
  } catch {
    message = null;
  }
  if (!message || typeof message.title !== "string") return;
  event.waitUntil(
    self.registration.showNotification(message.title, {
      body: typeof message.body === "string" ? message.body : "",
      tag: typeof message.tag === "string" ? message.tag : undefined,
      icon: "/icons/icon-192.png",
      data: { url: typeof message.url === "string" ? message.url : "/" },
    }),
  );
});

/**
 * Opens a page of this hub for a tapped notification: an open tab of the hub is taken to it and focused, else a new
 * window is opened. Only the message's path is taken, so it is always a page of this hub, under whichever name the
 * viewer reached it.
 */
function openHubPage(url) {
  const target = new URL(url || "/", self.location.origin);
  const path = `${target.pathname}${target.search}`;
  return self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((open) => {
    const board = open.find((client) => new URL(client.url).origin === self.location.origin);
    if (!board) return self.clients.openWindow(path);
    // Taken there first, then focused: a focus refused (no click to allow it) still leaves the tab on the region's page.
    return board.navigate(path).then(
      (moved) => (moved || board).focus().catch(() => moved || board),
      // A tab this worker does not control cannot be navigated: a new window is opened instead.
      () => self.clients.openWindow(path),
    );
  });
}

/** A tapped notification goes away, and the hub's page it names opens (an open board is taken there). */
function onNotificationClick(event) {
  event.notification.close();
  event.waitUntil(openHubPage(event.notification.data && event.notification.data.url));
}

self.addEventListener("notificationclick", onNotificationClick);
