/* pbem's own page script: click-to-move on the board, replay keys, and a cheap poll while a
 * player waits. Served as a static file so the strict Content-Security-Policy (script-src
 * 'self', no inline script) holds. Every part is an extra: without this script the move list,
 * the text box and the replay links work as before.
 *
 * Click-to-move reads the JSON in #pbem-clicks, written by the server from the legal moves:
 * {"moves": [{"move": "e2-e3", "clicks": ["e2", "e3"]}, ...], "words": {"start", "next"},
 *  "notes": {"e5": "e5 is empty."}, "about": {"e2": "Blue checker"}}: why a square or card
 *  starts no move, and what is on it (read after its name by screen readers).
 * Board elements carry data-click="<token>"; a token with no element becomes a button. The
 * script only follows these lists, so it never offers a move the rules would refuse.
 *
 * Whether a complete move waits for "Submit move" is the player's own setting, rendered as
 * data-submit-without-confirm="yes|no" on #click-move; the tick box under the board saves it
 * on the server at each tick (its form is an ordinary POST with a Save button, which this
 * script replaces).
 */
(function () {
  "use strict";

  // The page's sentences in the reader's language: a JSON object rendered by the template
  // (#pbem-words), each with {name} placeholders; English (the second argument) without it.
  var WORDS = (function () {
    var el = document.getElementById("pbem-words");
    try { return el ? JSON.parse(el.textContent) : {}; } catch (e) { return {}; }
  })();

  function say(key, english, values) {
    var text = typeof WORDS[key] === "string" ? WORDS[key] : english;
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      return values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }

  var ARROWS = {
    ArrowLeft: { x: -1, y: 0 }, ArrowRight: { x: 1, y: 0 },
    ArrowUp: { x: 0, y: -1 }, ArrowDown: { x: 0, y: 1 }
  };

  function init(root) {
    // The replay keys work only with this script, so only then are they mentioned.
    Array.prototype.forEach.call(root.querySelectorAll("nav.replay .keys"), function (el) {
      el.hidden = false;
    });
    initClicks(root);
    initListPick(root);
    initAnalysis(root);
    initPoll(root);
  }

  // A typed move wins over the list on the server; picking from the list after a refused
  // typed move means the pick, so the script empties the text box for it.
  function initListPick(root) {
    var list = root.querySelector("#move-form select[name=move]");
    var typed = root.querySelector("#move-form [name=move_text]");
    if (!list || !typed) return;
    list.addEventListener("change", function () { if (list.value) typed.value = ""; });
  }

  // -- click to move --------------------------------------------------------------------------

  function initClicks(root) {
    var data = root.querySelector("#pbem-clicks");
    var panel = root.querySelector("#click-move");
    var form = root.querySelector("#move-form");
    var board = root.querySelector(".board-wrap");
    if (!data || !panel || !form || !board) return;
    var spec = JSON.parse(data.textContent);
    var moves = spec.moves;
    var words = spec.words;
    var notes = spec.notes || {};
    var about = spec.about || {};
    var status = panel.querySelector("#click-status");
    var error = panel.querySelector("#click-error");
    var choices = panel.querySelector("#click-choices");
    var confirmBox = panel.querySelector("#click-confirm");
    var submitButton = panel.querySelector("#click-submit");
    var skip = panel.querySelector("#click-skip-confirm");
    var setting = panel.querySelector("#click-setting");
    var settingStatus = panel.querySelector("#click-setting-status");
    var saved = panel.getAttribute("data-submit-without-confirm") === "yes";
    var picked = [];
    var ready = null;

    var targets = wireTargets(board, choices, moves, about, choose);
    var firsts = {};
    moves.forEach(function (entry) { firsts[entry.clicks[0]] = true; });

    // The setting as the server has it, not as a browser may restore the box from a visit
    // before; each tick is saved at once, so the form's Save button is not needed.
    skip.checked = saved;
    setting.querySelector("#click-setting-save").hidden = true;
    setting.addEventListener("submit", function (event) { event.preventDefault(); save(); });
    skip.addEventListener("change", save);
    submitButton.addEventListener("click", function () { if (ready) send(ready); });
    panel.querySelector("#click-clear").addEventListener("click", function () {
      picked = [];
      error.textContent = "";
      render();
    });
    panel.hidden = false;
    board.classList.add("clicking");
    render();

    function continuations() { return nextClicks(moves, picked); }

    function choose(token) {
      var now = continuations();
      var last = picked[picked.length - 1];
      if (now.next[token]) {
        picked.push(token);
      } else if (picked.length && token === last) {
        picked.pop();
      } else if (firsts[token]) {
        picked = [token];
      } else {
        explain(token, now.next);
        return;
      }
      error.textContent = "";
      render();
      var after = continuations();
      if (ready && skip.checked && !Object.keys(after.next).length) send(ready);
    }

    function explain(token, next) {
      var options = Object.keys(next);
      if (picked.length && options.length) {
        error.textContent = say("notContinue", "{token} does not continue {picked}: click " +
          "{next} ({options}), or click {last} again to take it back.",
          { token: token, picked: picked.join(" "), next: words.next, options: options.join(", "),
            last: picked[picked.length - 1] });
        return;
      }
      var starts = { note: notes[token], token: token, start: words.start,
                     starts: Object.keys(firsts).join(", ") };
      error.textContent = notes[token]
        ? say("noteStart", "{note} Click {start} ({starts}).", starts)
        : say("cannotStart", "{token} cannot start a move now: click {start} ({starts}).", starts);
    }

    function render() {
      var now = continuations();
      markTargets(targets, now.next, picked);
      var options = Object.keys(now.next);
      ready = now.complete.length ? now.complete[0] : null;
      confirmBox.hidden = !ready;
      submitButton.querySelector("code").textContent = ready || "";
      if (ready) {
        status.textContent = options.length
          ? say("readyOrGoOn", "Your move: {move}. Press Submit move to send it, or go on with " +
                "{options}.", { move: ready, options: options.join(", ") })
          : say("ready", "Your move: {move}. Press Submit move to send it.", { move: ready });
      } else if (picked.length) {
        status.textContent = say("selected", "Selected {picked}. Now click {next}: {options}.",
          { picked: picked.join(" "), next: words.next, options: options.join(", ") });
      } else {
        status.textContent = say("clickStart", "Click {start}: {options}.",
          { start: words.start, options: options.join(", ") });
      }
    }

    function save() {
      var wanted = skip.checked;
      settingStatus.textContent = say("saving", "Saving…");
      fetch(setting.action, {
        method: "POST", body: new URLSearchParams(new FormData(setting)),
        headers: { Accept: "application/json" }, credentials: "same-origin"
      })
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (answer) {
          saved = answer.submit_without_confirm === true;
          panel.setAttribute("data-submit-without-confirm", saved ? "yes" : "no");
          // A later tick, still on its way, wins over this answer.
          if (skip.checked === wanted) skip.checked = saved;
          settingStatus.textContent = saved
            ? say("savedGo", "Saved: your moves now go as soon as they are complete.")
            : say("savedWait", "Saved: your moves now wait for Submit move.");
        })
        .catch(function () {
          skip.checked = saved;
          settingStatus.textContent = "";
          error.textContent = say("notSaved", "Your setting was not saved (the server did not " +
            "accept it). Reload the page and try again.");
        });
    }

    function send(move) {
      form.querySelector("[name=move_text]").value = move;
      form.querySelector("[name=move]").value = "";
      submitButton.disabled = true;
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    }
  }

  // -- clickable targets (the board and the analysis board) ----------------------------------

  // Makes every [data-click] element of the board a button for its token, and each token
  // with no place on the board (synch, add, take O4 G4) a button in `choices`; `choose` is
  // called with the token clicked. Returns the elements by token.
  function wireTargets(board, choices, moves, about, choose) {
    var targets = {};
    Array.prototype.forEach.call(board.querySelectorAll("[data-click]"), function (el) {
      var token = el.getAttribute("data-click");
      (targets[token] = targets[token] || []).push(el);
      el.setAttribute("role", "button");
      el.setAttribute("aria-label", token);
      if (about[token]) el.setAttribute("aria-description", about[token]);
      el.addEventListener("click", function () { choose(token); });
      el.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          choose(token);
        } else if (ARROWS[event.key]) {
          // Arrow keys walk the board square by square, legal or not, so a keyboard user
          // can reach (and hear about) any square, while Tab visits only the legal ones.
          event.preventDefault();
          var next = neighbour(board, el, ARROWS[event.key]);
          if (next) next.focus();
        }
      });
    });
    moves.forEach(function (entry) {
      entry.clicks.forEach(function (token) {
        if (targets[token]) return;
        var button = document.createElement("button");
        button.type = "button";
        button.textContent = token;
        button.setAttribute("data-click", token);
        button.addEventListener("click", function () { choose(token); });
        choices.appendChild(button);
        targets[token] = [button];
      });
    });
    return targets;
  }

  // The nearest clickable element of the board from `from` in the arrow's direction.
  function neighbour(board, from, dir) {
    var a = from.getBoundingClientRect();
    var best = null;
    var bestScore = Infinity;
    Array.prototype.forEach.call(board.querySelectorAll("[data-click]"), function (el) {
      var b = el.getBoundingClientRect();
      var dx = (b.left + b.width / 2) - (a.left + a.width / 2);
      var dy = (b.top + b.height / 2) - (a.top + a.height / 2);
      var along = dir.x ? dx * dir.x : dy * dir.y;
      if (along < 2) return;
      var score = along + 3 * Math.abs(dir.x ? dy : dx);
      if (score < bestScore) { best = el; bestScore = score; }
    });
    return best;
  }

  // What may follow the tokens picked so far: `next`, the tokens that go on to a move, and
  // `complete`, the moves they already make.
  function nextClicks(moves, picked) {
    var next = {};
    var complete = [];
    moves.forEach(function (entry) {
      var clicks = entry.clicks;
      if (clicks.length < picked.length) return;
      for (var i = 0; i < picked.length; i++) if (clicks[i] !== picked[i]) return;
      if (clicks.length === picked.length) {
        if (complete.indexOf(entry.move) < 0) complete.push(entry.move);
      } else {
        next[clicks[picked.length]] = true;
      }
    });
    return { next: next, complete: complete };
  }

  // Shows which targets go on (`legal`) and which are picked. Legal and picked targets are in
  // the tab order; the others stay clickable (to hear why not) without making a keyboard user
  // tab through a whole board. A choice button shows only while it is legal or picked.
  function markTargets(targets, next, picked) {
    Object.keys(targets).forEach(function (token) {
      var legal = !!next[token];
      var chosen = picked.indexOf(token) >= 0;
      targets[token].forEach(function (el) {
        el.classList.toggle("legal", legal);
        el.classList.toggle("picked", chosen);
        if (chosen) el.setAttribute("aria-pressed", "true"); else el.removeAttribute("aria-pressed");
        if (el.tagName.toLowerCase() === "button") {
          el.hidden = !legal && !chosen;
        } else {
          el.setAttribute("tabindex", legal || chosen ? "0" : "-1");
        }
      });
    });
  }

  // -- the analysis board ---------------------------------------------------------------------
  //
  // Moves for both sides from the position now, answered by the server (POST …/analyse with
  // {"moves": line, "board": true}: the board drawn for the line's end and its click data, the
  // same data the board above is clicked with). Nothing is sent to the match; "Store this line"
  // adds the line to the seat's conditional moves (PUT …/conditional) and reloads the page.
  // In text mode (data-text-mode="on") there is no picture: the line's last position is shown
  // as the game's text drawing (the answer's board_text), and a typed line is first asked as a
  // text mode command ({"ask": …}, answered in "said" and said in #analysis-said); one that is
  // no command is a move for the line.

  function initAnalysis(root) {
    var section = root.querySelector("#analysis");
    if (!section) return;
    var url = section.getAttribute("data-analyse-url");
    var storeUrl = section.getAttribute("data-conditional-url");
    var ply = Number(section.getAttribute("data-ply"));
    var seat = Number(section.getAttribute("data-seat"));
    var board = section.querySelector("#analysis-board");
    var textMode = section.getAttribute("data-text-mode") === "on";
    var textBoard = section.querySelector("#analysis-text");
    var said = section.querySelector("#analysis-said");
    var lineText = section.querySelector("#analysis-line");
    var status = section.querySelector("#analysis-status");
    var error = section.querySelector("#analysis-error");
    var choices = section.querySelector("#analysis-choices");
    var back = section.querySelector("#analysis-back");
    var save = section.querySelector("#analysis-save");
    var line = [];
    var seats = [];  // who made each move of the line
    var moves = [];
    var legal = [];
    var picked = [];
    var targets = {};
    var busy = false;

    // Opened on demand: until then the page has one board (and one set of square buttons).
    var open = section.querySelector("#analysis-open");
    var body = section.querySelector("#analysis-body");
    section.hidden = false;
    open.addEventListener("click", function () {
      var opening = body.hidden;
      body.hidden = !opening;
      open.setAttribute("aria-expanded", opening ? "true" : "false");
      open.textContent = opening ? say("closeAnalysis", "Close the analysis board")
                                 : say("openAnalysis", "Open the analysis board");
      if (opening) show(); else if (board) board.innerHTML = "";
    });
    back.addEventListener("click", function () {
      if (!line.length) return;
      line.pop();
      seats.pop();
      show();
    });
    section.querySelector("#analysis-reset").addEventListener("click", function () {
      line = [];
      seats = [];
      show();
    });
    if (save) save.addEventListener("click", store);
    // A typed move is added to the line as a clicked one is; refused, it is taken off again
    // and the reason shown (an alert), the line as it was.
    var typed = section.querySelector("#analysis-type");
    var pending = false;
    typed.addEventListener("submit", function (event) {
      event.preventDefault();
      var box = typed.querySelector("#analysis-move");
      var move = box.value.trim();
      if (!move || busy) return;
      box.value = "";
      if (textMode) { ask(move); return; }
      line.push(move);
      pending = true;
      show();
    });

    function ask(text) {
      busy = true;
      error.textContent = "";
      post(url, { moves: line, ask: text })
        .then(function (answer) {
          busy = false;
          if (answer.said === null) {
            line.push(text);
            pending = true;
            show();
            return;
          }
          var spoken = document.createElement("p");
          spoken.textContent = text + ": " + answer.said;
          said.innerHTML = "";
          said.appendChild(spoken);
        })
        .catch(function (problem) {
          busy = false;
          error.textContent = problem;
        });
    }

    function show() {
      if (busy) return;
      busy = true;
      error.textContent = "";
      post(url, { moves: line, board: !textMode })
        .then(function (answer) {
          busy = false;
          pending = false;
          draw(answer);
        })
        .catch(function (problem) {
          busy = false;
          if (pending) line.pop();
          pending = false;
          error.textContent = problem;
        });
    }

    function draw(answer) {
      seats = answer.positions.slice(1).map(function (p) { return p.seat; });
      legal = answer.legal_moves;
      moves = answer.clicks ? answer.clicks.moves : [];
      picked = [];
      targets = {};
      choices.innerHTML = "";
      if (textMode) {
        textBoard.textContent = answer.board_text;
        said.innerHTML = "";
      } else {
        board.innerHTML = answer.board_html;
        targets = wireTargets(board, choices, moves,
                              answer.clicks ? answer.clicks.about || {} : {}, choose);
      }
      lineText.textContent = line.length
        ? say("line", "Line: {moves}", { moves: line.map(function (move, i) {
            return seats[i] === seat ? say("yours", "you {move}", { move: move })
                                     : say("theirs", "they {move}", { move: move });
          }).join(", ") })
        : say("positionNow", "The position now (move {ply}).", { ply: ply });
      back.disabled = !line.length;
      if (save) {
        var usable = line.length > 1 && seats[0] !== seat && seats[seats.length - 1] === seat;
        save.disabled = !usable;
        save.title = usable ? "" : say("lineRule", "A line starts with your opponent's move " +
          "and ends with your answer.");
      }
      if (answer.outcome) {
        status.textContent = say("gameOver", "Game over in this line: {reason}.",
          { reason: answer.outcome.reason });
      }
      mark(answer);
    }

    function continuations() { return nextClicks(moves, picked); }

    function choose(token) {
      if (busy) return;
      var now = continuations();
      if (now.next[token]) {
        picked.push(token);
      } else if (picked.length && token === picked[picked.length - 1]) {
        picked.pop();
      } else {
        picked = [];
        now = continuations();
        if (!now.next[token]) {
          error.textContent = say("noLegal", "{token} starts no legal move here.", { token: token });
          mark(null);
          return;
        }
        picked.push(token);
      }
      error.textContent = "";
      var after = continuations();
      if (after.complete.length && !Object.keys(after.next).length) {
        line.push(after.complete[0]);
        show();
        return;
      }
      mark(null);
    }

    function mark(answer) {
      var now = continuations();
      markTargets(targets, now.next, picked);
      if (answer && answer.outcome) return;
      var mine = answer && answer.to_move[0] === seat;
      var who = answer ? answer.to_move_label : null;
      if (!(textMode ? legal : moves).length) {
        status.textContent = say("noMove", "No move to play here.");
      } else if (textMode && answer) {
        status.textContent = mine ? say("youToMoveText", "You to move: type a move or a command.")
          : say("toMoveText", "{who} to move: type a move or a command.", { who: who });
      } else if (picked.length) {
        status.textContent = say("selectedOneOf", "Selected {picked}: now click one of {options}.",
          { picked: picked.join(" "), options: Object.keys(now.next).join(", ") });
      } else if (mine) {
        status.textContent = say("youToMove", "You to move: click a highlighted square or choice.");
      } else if (who) {
        status.textContent = say("toMove", "{who} to move: click a highlighted square or choice.",
          { who: who });
      }
    }

    function store() {
      error.textContent = "";
      fetch(storeUrl, { credentials: "same-origin", cache: "no-store" })
        .then(function (response) { return response.json(); })
        .then(function (stored) {
          var lines = stored.lines.filter(function (old) {
            // A stored line answering the same move differently is replaced by the new one
            // (one answer per position); the others stay, and the server merges them.
            return old[0] !== line[0] || old[1] === line[1];
          });
          lines.push(line);
          return send(storeUrl, "PUT", { lines: lines, ply: ply });
        })
        .then(function () { window.location.reload(); })
        .catch(function (problem) { error.textContent = problem; });
    }
  }

  function post(url, body) { return send(url, "POST", body); }

  function send(url, method, body) {
    return fetch(url, {
      method: method, body: JSON.stringify(body), credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" }
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok) throw (answer.detail || ("HTTP " + response.status));
        return answer;
      });
    });
  }

  // -- replay keys ----------------------------------------------------------------------------

  var KEYS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };

  document.addEventListener("keydown", function (event) {
    var step = KEYS[event.key];
    if (!step || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var target = event.target;
    if (target.closest && target.closest("input, select, textarea, [contenteditable], [data-click]")) {
      return;
    }
    var link = document.querySelector("nav.replay a[data-replay=" + step + "]");
    if (!link) return;
    event.preventDefault();
    window.location.href = link.href;
  });

  // -- live updates while waiting -------------------------------------------------------------

  var pollTimer = null;

  function initPoll(root) {
    var section = root.querySelector("[data-poll-url]");
    window.clearTimeout(pollTimer);
    if (!section) return;
    var url = section.getAttribute("data-poll-url");
    var tag = section.getAttribute("data-poll-etag");
    var delay = 1000 * (Number(section.getAttribute("data-poll-seconds")) || 10);

    function tick() {
      fetch(url, { headers: { "If-None-Match": tag }, cache: "no-store", credentials: "same-origin" })
        .then(function (response) {
          var fresh = response.headers.get("ETag");
          // Never swap the page under someone typing (a vacation date, a time zone).
          if (response.status === 200 && fresh && fresh !== tag && !typing()) return refresh();
          pollTimer = window.setTimeout(tick, delay);
        })
        .catch(function () { pollTimer = window.setTimeout(tick, delay); });
    }
    pollTimer = window.setTimeout(tick, delay);
  }

  function typing() {
    var el = document.activeElement;
    if (el && el.closest && el.closest("main input, main select, main textarea")) return true;
    // A draft left in the chat box or the notes is not thrown away by a refresh either.
    return Array.prototype.some.call(document.querySelectorAll("main textarea"), function (box) {
      return box.value !== box.defaultValue;
    });
  }

  // Fetch this page again and swap its content in: the new position, the move list and, when
  // it is the player's turn, the board to click and the title "Your turn".
  function refresh() {
    return fetch(window.location.href, { cache: "no-store", credentials: "same-origin" })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("main");
        var main = document.querySelector("main");
        if (!fresh || !main) return;
        main.innerHTML = fresh.innerHTML;
        document.title = doc.title;
        init(main);
      })
      .catch(function () { pollTimer = window.setTimeout(function () { init(document); }, 10000); });
  }

  init(document);
})();
