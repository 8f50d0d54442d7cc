/* pbem's service worker (served at /sw.js, so it looks after every page of the site).
 *
 * - Offline, a page that cannot be fetched is answered with the offline page (/offline),
 *   cached when the worker is installed; stylesheets and scripts are kept as they are fetched.
 * - A move posted from a play page (POST /play/<token>) while offline is kept in IndexedDB with
 *   an idempotency key, and the offline page says so (/offline?kept=1). It is sent once the
 *   network is back: when a page says so ("flush", on the browser's online event or on load),
 *   or when Background Sync fires. The server makes a move sent twice with one key once, so a
 *   copy sent by two flushes at once, or a move that did reach the server before the
 *   connection dropped, is never made twice. A mail reply stays the fallback.
 */
"use strict";

var CACHE = "pbem-offline-v1";
var OFFLINE = "/offline";
var KEPT = "/offline?kept=1";
var STORE = "moves";

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.addAll([OFFLINE, KEPT]); })
    .then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim().then(flush));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && /^\/play\/[^/]+$/.test(url.pathname)) {
    event.respondWith(sendOrKeep(request));
  } else if (request.method === "GET" && request.mode === "navigate") {
    event.respondWith(fetch(request).catch(function () { return caches.match(OFFLINE); }));
  } else if (request.method === "GET" && url.pathname.indexOf("/static/") === 0) {
    event.respondWith(caches.match(request).then(function (kept) {
      return kept || fetch(request).then(function (response) {
        if (response.ok) {
          var copy = response.clone();
          caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
        }
        return response;
      });
    }));
  }
});

self.addEventListener("message", function (event) {
  if (event.data === "flush") event.waitUntil(flush());
});

self.addEventListener("sync", function (event) {
  if (event.tag === "pbem-moves") event.waitUntil(flush());
});

// A push (pbem/push/sender.py): {title, body, url, tag}. A newer one about the same match
// replaces the older on the screen (its tag), as the push service replaced it by its Topic.
self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
  event.waitUntil(self.registration.showNotification(data.title || "pbem", {
    body: data.body || "", tag: data.tag, renotify: true, data: { url: data.url || "/me" }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var target = (event.notification.data && event.notification.data.url) || "/me";
  event.waitUntil(self.clients.openWindow(target));
});

function sendOrKeep(request) {
  return request.clone().text().then(function (body) {
    return fetch(request).catch(function () {
      var form = new URLSearchParams(body);
      if (!form.get("idempotency_key")) form.set("idempotency_key", newKey());
      return keep({ url: request.url, body: form.toString() }).then(function () {
        if (self.registration.sync) self.registration.sync.register("pbem-moves").catch(function () {});
        return caches.match(KEPT);
      });
    });
  });
}

var flushing = null;

function flush() {
  // One flush at a time in this worker; the server's key covers any other copy.
  if (!flushing) flushing = sendKept().then(done, done);
  return flushing;
  function done() { flushing = null; }
}

function sendKept() {
  return all().then(function (moves) {
    return moves.reduce(function (previous, move) {
      return previous.then(function () {
        return fetch(move.url, {
          method: "POST", body: move.body, credentials: "same-origin", redirect: "manual",
          headers: { "Content-Type": "application/x-www-form-urlencoded" }
        }).then(function () {
          // The server answered (made, already made, or refused with its reason): sent.
          return remove(move.id).then(function () { return tell(move.url); });
        }, function () { /* still offline: kept for the next flush */ });
      });
    }, Promise.resolve());
  });
}

function tell(url) {
  return self.clients.matchAll({ type: "window" }).then(function (windows) {
    windows.forEach(function (client) { client.postMessage({ kind: "move-sent", url: url }); });
  });
}

function newKey() {
  if (self.crypto && self.crypto.randomUUID) return self.crypto.randomUUID();
  return Date.now().toString(36) + Math.random().toString(36).slice(2);
}

// -- the kept moves (IndexedDB) ----------------------------------------------------------------

function db() {
  return new Promise(function (resolve, reject) {
    var opening = indexedDB.open("pbem", 1);
    opening.onupgradeneeded = function () {
      opening.result.createObjectStore(STORE, { keyPath: "id", autoIncrement: true });
    };
    opening.onsuccess = function () { resolve(opening.result); };
    opening.onerror = function () { reject(opening.error); };
  });
}

function run(mode, work) {
  return db().then(function (base) {
    return new Promise(function (resolve, reject) {
      var transaction = base.transaction(STORE, mode);
      var result = work(transaction.objectStore(STORE));
      transaction.oncomplete = function () { resolve(result && result.result); };
      transaction.onerror = function () { reject(transaction.error); };
    });
  });
}

function keep(move) { return run("readwrite", function (store) { return store.add(move); }); }
function all() { return run("readonly", function (store) { return store.getAll(); }); }
function remove(id) { return run("readwrite", function (store) { return store.delete(id); }); }
