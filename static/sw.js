/* The service worker (served from /sw.js, its scope the whole site). It keeps the pages'
   styles, scripts and icons so a phone that has been here opens at once, and a page of its
   own for when the server cannot be reached. Pages always come from the server; the
   game's state (/api/…, the live stream) is never kept nor answered from a cache: a stale
   board must never pass for the table as it is now. */
"use strict";
const VERSION = "__VERSION__";            // the server puts in a hash of the static files
const ASSETS = ["__ASSETS__"];            // …and the files to keep
const CACHE = "sl-" + VERSION, OFFLINE = "/offline";
// the words when not even the reconnecting page is at hand, in one place for the translators
const WORDS = {reconnecting: "Reconnecting… the companion cannot be reached. This page tries again by itself."};
const PAGE_WAIT_MS = 6000;                // a page the LAN does not answer within this: offline

self.addEventListener("install", e => {
  e.waitUntil(caches.open(CACHE).then(c => c.addAll([OFFLINE, ...ASSETS])).then(() => self.skipWaiting()));
});

self.addEventListener("activate", e => {
  e.waitUntil(caches.keys()
    .then(keys => Promise.all(keys.filter(k => k.startsWith("sl-") && k !== CACHE).map(k => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", e => {
  const req = e.request, url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin) return;
  if (req.mode === "navigate") e.respondWith(page(req));
  else if (url.pathname.startsWith("/static/")) e.respondWith(asset(req));
  // anything else (the API, the live stream, QR codes, the manifest) goes to the network
});

async function page(req) {
  const stop = new AbortController(), timer = setTimeout(() => stop.abort(), PAGE_WAIT_MS);
  try {
    return await fetch(req, {signal: stop.signal});
  } catch (err) {
    const kept = await caches.match(OFFLINE);
    return kept || new Response(WORDS.reconnecting, {status: 503, headers: {"Content-Type": "text/plain; charset=utf-8"}});
  } finally {
    clearTimeout(timer);
  }
}

async function asset(req) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(req, {ignoreSearch: true});
  if (kept) return kept;
  const fresh = await fetch(req);
  if (fresh.ok) cache.put(req, fresh.clone());
  return fresh;
}
