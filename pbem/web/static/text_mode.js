/* Text mode (templates/play/_text_mode.html, templates/matches/_text_view.html): each line is sent without leaving the page, and
   its answer, a refusal or the move made is put in the live region, which a screen reader
   reads out at once (a region filled by a page load is not read). While the player waits, the
   match is asked every few seconds whether it moved; when it did, the opponent's move and whose
   turn it is are said there too. Without this script the form posts and the page comes back. */
(function () {
  "use strict";
  var form = document.querySelector(".text-mode form.text-line");
  if (!form) return;
  var region = document.getElementById("text-mode");
  var input = document.getElementById("text-line");
  // Back from a line (the page's address ends in #text-mode, which stops `autofocus`): the
  // command line takes the focus again, ready for the next.
  // After the load, when the browser has gone to the #text-mode fragment.
  window.addEventListener("load", function () { window.setTimeout(function () { input.focus(); }, 0); });

  function swapFrom(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    ["text-last"].forEach(function (id) {
      var fresh = doc.getElementById(id), here = document.getElementById(id);
      if (fresh && here) here.textContent = fresh.textContent;
    });
    var board = doc.querySelector(".text-board"), mine = document.querySelector(".text-board");
    if (board && mine) mine.textContent = board.textContent;
    var ply = doc.querySelector(".text-line input[name=ply]");
    if (ply) form.querySelector("input[name=ply]").value = ply.value;
    return doc;
  }

  function say(paragraphs) {
    region.innerHTML = "";
    paragraphs.forEach(function (p) { region.appendChild(document.importNode(p, true)); });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    // The match page's line is a read (a GET form on its own address); a seat's is a post.
    var read = form.method.toLowerCase() === "get";
    var address = read ? form.action.split("#")[0] + "?" +
      new URLSearchParams(new FormData(form)).toString() : form.action;
    fetch(address, read ? { cache: "no-store", credentials: "same-origin" }
                        : { method: "POST", body: new FormData(form), credentials: "same-origin" })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var doc = swapFrom(html);
        var answers = doc.getElementById("text-mode");
        say(answers ? Array.prototype.slice.call(answers.children) : []);
        input.value = "";
        input.focus();
      })
      .catch(function () { form.submit(); });
  });

  // The chat at the board: a message from another player, newer than the last one seen, is
  // said in the live region (oldest first), whether or not the match is waiting.
  var chatFrom = region.closest("[data-chat-url]");
  var pause = 1000 * (Number((document.querySelector("[data-poll-seconds]") || region)
    .getAttribute("data-poll-seconds")) || 10);
  function chatTick() {
    var last = Number(chatFrom.getAttribute("data-chat-last")) || 0;
    fetch(chatFrom.getAttribute("data-chat-url"), { cache: "no-store", credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : { messages: [] }; })
      .then(function (page) {
        var fresh = page.messages.filter(function (m) { return m.id > last; }).reverse();
        if (!fresh.length) return;
        chatFrom.setAttribute("data-chat-last", String(fresh[fresh.length - 1].id));
        var said = fresh.filter(function (m) { return !m.mine; }).map(function (m) {
          var line = document.createElement("p");
          line.textContent = chatFrom.getAttribute("data-chat-said")
            .replace("{author}", m.author).replace("{text}", m.text);
          return line;
        });
        if (said.length) say(said);
      })
      .catch(function () {})
      .then(function () { window.setTimeout(chatTick, pause); });
  }
  if (chatFrom) window.setTimeout(chatTick, pause);

  var section = document.querySelector("[data-poll-url]");
  if (!section) return;
  var tag = section.getAttribute("data-poll-etag");
  var delay = 1000 * (Number(section.getAttribute("data-poll-seconds")) || 10);
  function tick() {
    fetch(section.getAttribute("data-poll-url"), { headers: { "If-None-Match": tag },
                                                    cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        var fresh = response.headers.get("ETag");
        if (response.status !== 200 || !fresh || fresh === tag) return;
        tag = fresh;
        return fetch(window.location.href, { cache: "no-store", credentials: "same-origin" })
          .then(function (page) { return page.text(); })
          .then(function (html) {
            swapFrom(html);
            var line = document.createElement("p");
            line.textContent = document.getElementById("text-last").textContent;
            say([line]);
          });
      })
      .catch(function () {})
      .then(function () { window.setTimeout(tick, delay); });
  }
  window.setTimeout(tick, delay);
})();
