/* Following without mail, on every page: registers the service worker (/sw.js: the offline
 * page, moves kept offline, push notifications), gives each play page's move form an
 * idempotency key (a move sent twice with it is made once), asks the worker to send kept moves
 * when the browser is back online, and runs the push toggles ([data-push]) of the play page
 * and /me. Every part is an extra: without this script the site works as before.
 */
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;

  navigator.serviceWorker.register("/sw.js").catch(function () {});

  function flush() {
    navigator.serviceWorker.ready.then(function (registration) {
      if (registration.active) registration.active.postMessage("flush");
    });
  }
  window.addEventListener("online", function () {
    flush();
    // The offline page stands at the address that could not be fetched: fetch it again now
    // (with a move kept, the worker's "move-sent" brings the match instead).
    if (document.querySelector("section.offline") && !document.getElementById("offline-kept")) {
      window.location.reload();
    }
  });
  if (navigator.onLine) flush();

  navigator.serviceWorker.addEventListener("message", function (event) {
    // A kept move reached the server: show its match again.
    if (event.data && event.data.kind === "move-sent" && document.getElementById("offline-kept")) {
      window.location.href = event.data.url;
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("#move-form"), function (form) {
      if (form.querySelector("[name=idempotency_key]")) return;
      var key = document.createElement("input");
      key.type = "hidden";
      key.name = "idempotency_key";
      key.value = newKey();
      form.appendChild(key);
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-push]"), initPush);
  });

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  // -- push toggles -------------------------------------------------------------------------

  function initPush(box) {
    var button = box.querySelector("button");
    var status = box.querySelector("[role=status]");
    if (!button || !("PushManager" in window) || !("Notification" in window)) return;
    box.hidden = false;
    var words = { on: box.getAttribute("data-words-on"), off: box.getAttribute("data-words-off"),
                  denied: box.getAttribute("data-words-denied"),
                  failed: box.getAttribute("data-words-failed") };
    navigator.serviceWorker.ready.then(function (registration) {
      return registration.pushManager.getSubscription();
    }).then(function (current) { show(!!current); });

    button.addEventListener("click", function () {
      button.disabled = true;
      navigator.serviceWorker.ready.then(function (registration) {
        return registration.pushManager.getSubscription().then(function (current) {
          return current ? turnOff(current) : turnOn(registration);
        });
      }).catch(function () { status.textContent = words.failed; })
        .then(function () { button.disabled = false; });
    });

    function turnOn(registration) {
      return Notification.requestPermission().then(function (permission) {
        if (permission !== "granted") { status.textContent = words.denied; return; }
        return fetch(box.getAttribute("data-key-url")).then(function (r) { return r.json(); })
          .then(function (answer) {
            return registration.pushManager.subscribe({
              userVisibleOnly: true, applicationServerKey: decode(answer.key) });
          }).then(function (subscription) {
            return send(box.getAttribute("data-subscribe-url"), subscription.toJSON());
          }).then(function () { show(true); });
      });
    }

    function turnOff(subscription) {
      return send(box.getAttribute("data-unsubscribe-url"), { endpoint: subscription.endpoint })
        .catch(function () {}).then(function () { return subscription.unsubscribe(); })
        .then(function () { show(false); });
    }

    function send(url, body) {
      var headers = { "Content-Type": "application/json" };
      var csrf = box.getAttribute("data-csrf");
      if (csrf) headers["X-CSRFToken"] = csrf;
      return fetch(url, { method: "POST", headers: headers, credentials: "same-origin",
                          body: JSON.stringify(body) }).then(function (response) {
        if (!response.ok && response.status !== 404) throw new Error(String(response.status));
      });
    }

    function show(on) {
      button.setAttribute("aria-pressed", on ? "true" : "false");
      status.textContent = on ? words.on : words.off;
    }
  }

  function decode(text) {
    var padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(padded);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }
})();
