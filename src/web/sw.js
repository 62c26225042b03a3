// The board's service worker (SPEC §23, §16.4), served at /sw.js with scope /. The hub puts four constants before this
// text: BUILD (the running build's version), FILES (its bundled files), PLATFORMS and REGIONS (the catalogue's, which
// name the board's public pages). Plain JavaScript, since it is served as it is.
/* global BUILD, FILES, PLATFORMS, REGIONS, self, caches, clients */

const APP_CACHE = `hub-app-${BUILD}`;
/**
 * The last payload of each platform and the site's settings (without which no board renders), kept across builds.
 * Named anew when what may be kept changed, so a copy an older worker kept is dropped at activation.
 */
const DATA_CACHE = "hub-data-2";
const META = "/api/v1/meta";
const SIGN_OUT = "/api/v1/auth/logout";
/** A cached copy says so, for the board's "offline, updated …". */
const FROM_CACHE = "x-hub-offline";

/** Whether a path is one platform's incentives payload: the only API answer kept besides the site's settings. */
function isPayload(path) {
  return PLATFORMS.some((platform) => path === `/api/v1/platforms/${platform}/incentives`);
}

/** Whether a path is one of the app's public pages: the board, a platform's board, a region's page. Nothing else is kept. */
function isPublicPage(path) {
  if (path === "/") return true;
  const [platform, region, ...rest] = path.slice(1).split("/");
  if (!PLATFORMS.includes(platform) || rest.length > 0) return false;
  return region === undefined || REGIONS.includes(region);
}

/**
 * Whether an answer may be kept: a success the hub lets be stored. The hub marks every answer that is not for
 * everyone `no-store` or `private` (all reads while sign-in is required, every answer that sets a cookie); a
 * browser never shows a worker the Set-Cookie header itself.
 */
function mayKeep(response) {
  return response.status === 200 && !/\b(no-store|private)\b/i.test(response.headers.get("cache-control") || "");
}

/**
 * Drops every copy of what the hub answered (payloads, settings, pages), keeping only the build's files. Done when
 * a viewer signs out, when a read is answered 401, and when a read may not be stored (sign-in is required).
 */
async function forget() {
  await caches.delete(DATA_CACHE);
  const cache = await caches.open(APP_CACHE);
  const kept = await cache.keys();
  await Promise.all(kept.filter((request) => !FILES.includes(new URL(request.url).pathname)).map((request) => cache.delete(request)));
}

// Nothing is downloaded at install: the build's files are kept as the pages this worker serves fetch them (from the
// browser's HTTP cache, where they already are), so a visit costs no second download of the app.
self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(APP_CACHE).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith("hub-") && name !== APP_CACHE && name !== DATA_CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

/** A page that saw a read answered 401 (the app's client tells this worker) has its hub's copies dropped. */
self.addEventListener("message", (event) => {
  if (event.data && event.data.hubForget === true) event.waitUntil(forget());
});

/** Tells the page whether its payload came from the network or from what was kept (for "offline, updated …"). */
function tell(clientId, offline) {
  if (!clientId) return;
  self.clients.get(clientId).then((client) => client && client.postMessage({ hubOffline: offline }));
}

/**
 * The network's answer, kept under `key` when it may be stored; a 401 or an answer that may not be stored drops
 * every copy instead. When the network fails, the kept copy, marked.
 */
async function networkThenKept(request, cacheName, key, clientId) {
  let response;
  try {
    response = await fetch(request);
  } catch (error) {
    const kept = await (await caches.open(cacheName)).match(key);
    if (!kept) throw error;
    tell(clientId, true);
    const headers = new Headers(kept.headers);
    headers.set(FROM_CACHE, "1");
    return new Response(await kept.blob(), { status: kept.status, headers });
  }
  if (mayKeep(response)) await (await caches.open(cacheName)).put(key, response.clone());
  else if (response.status === 401 || response.ok) await forget();
  tell(clientId, false);
  return response;
}

/** A page's answer: fresh while online, kept under its own path when it may be; offline, the copy of that path. */
async function page(event, path, keep) {
  const cache = await caches.open(APP_CACHE);
  let response;
  try {
    response = await fetch(event.request);
  } catch (error) {
    const kept = await cache.match(path);
    if (!kept) throw error;
    return kept;
  }
  // A page asked for with a query is not kept: its first paint shows what the query says, which a link from
  // anywhere could choose. Offline, it is shown from its path's plain copy, and the app reads the query itself.
  if (keep && mayKeep(response)) event.waitUntil(cache.put(path, response.clone()));
  else if (response.status === 401) event.waitUntil(forget());
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && url.pathname === SIGN_OUT) {
    // Signing out drops the copies, whatever the hub answers (an expired session is signed out all the same).
    event.respondWith(fetch(request).finally(() => forget()));
    return;
  }
  if (request.method !== "GET") return;
  if (isPayload(url.pathname) || url.pathname === META) {
    event.respondWith(networkThenKept(request, DATA_CACHE, url.pathname, isPayload(url.pathname) ? event.clientId : null));
    return;
  }
  if (request.mode === "navigate") {
    // Only the app's public pages go through this worker; every other page (admin, account, sign-in, metrics,
    // docs, badges, embeds, feeds, pictures, anything unknown) is the network's alone and never kept.
    if (isPublicPage(url.pathname)) event.respondWith(page(event, url.pathname, url.search === ""));
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
