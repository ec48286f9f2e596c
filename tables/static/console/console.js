/* Casekeeper console: the tap-to-bet flow, the card picker slots, keying a manual deal's hands,
   and the pit's polling guard.
   Everything here only helps the dealer compose a form; the server decides and refuses. */
(function () {
  "use strict";

  var RANK_ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  var SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

  function cardLabel(code) {
    return code ? code.slice(0, -1) + (SUITS[code.slice(-1)] || code.slice(-1)) : "";
  }

  /* A typed amount ("1500", "$1,500.5") spelled as the chips' confirm labels and the server spell
     dollars (ledger/dollars.py): "$1,500.00", "$1,500.50". Text the server will refuse is shown as
     typed. */
  var TYPED_DOLLARS = /^\$?\s*([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)?(?:\.([0-9]{1,2}))?$/;
  function typedDollars(text) {
    var found = TYPED_DOLLARS.exec(text);
    if (!found || (found[1] === undefined && found[2] === undefined)) return "$" + text.replace(/^\$/, "");
    var whole = (found[1] || "0").replace(/,/g, "").replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    var cents = (found[2] || "").padEnd(2, "0");
    return "$" + whole + "." + cents;
  }

  /* The Faro bet form: player, a place on the layout (or even / odd / high, or at the last turn an
     order to call), a chip, then one confirm that spells the whole bet out. The chip stays in hand
     from one bet to the next (remembered for this table in sessionStorage); a called order posts
     to the call_turn URL instead of the bet's. */
  function initBetForm(form) {
    if (form.dataset.ready) return;
    form.dataset.ready = "1";
    var source = document.getElementById("faro-placements");
    var placements = source ? JSON.parse(source.textContent).map(function (p) { return p.join("|"); }) : [];
    var button = form.querySelector("[data-confirm]");
    var hint = form.querySelector("[data-hint]");
    var chipKey = "faro-chip:" + form.getAttribute("action").split("/rounds/")[0];

    function checked(name) { return form.querySelector("input[name=" + name + "]:checked"); }
    function clear(name) { form.querySelectorAll("input[name=" + name + "]").forEach(function (i) { i.checked = false; }); }

    function chipInHand() {
      var custom = form.querySelector("input[name=custom_amount]");
      if (checked("amount") || (custom && custom.value.trim())) return;
      var kept = null;
      try { kept = window.sessionStorage.getItem(chipKey); } catch (e) { kept = null; }
      var chip = kept && form.querySelector('input[name=amount][value="' + kept + '"]');
      if (chip) chip.checked = true;
    }

    function update() {
      // Looked up each time: the amounts fieldset is swapped in anew when the limits change.
      var custom = form.querySelector("input[name=custom_amount]");
      var copper = form.querySelector("input[name=coppered]");
      var player = checked("player");
      var target = checked("target");
      var order = checked("order");
      var ranks = Array.prototype.map.call(form.querySelectorAll("input[name=ranks]:checked"), function (i) { return i.value; });
      ranks.sort(function (a, b) { return RANK_ORDER.indexOf(a) - RANK_ORDER.indexOf(b); });
      var chip = checked("amount");
      var typed = custom && custom.value.trim();
      var place = null, placeOk = false, message = "";
      if (order) {
        place = order.dataset.label;
        placeOk = true;
      } else if (target) {
        place = target.dataset.label;
        placeOk = true;
      } else if (ranks.length) {
        place = ranks.join("\u2013");
        placeOk = placements.indexOf(ranks.join("|")) !== -1;
        message = placeOk ? (ranks.length === 1 ? "On the " + place : "One stack covering " + place)
          : place + " is not a place one stack can cover";
      }
      var chosen = ranks.join(" ");
      form.querySelectorAll("[data-spot]").forEach(function (spot) {
        var sorted = spot.dataset.spot.split(" ").sort(function (a, b) { return RANK_ORDER.indexOf(a) - RANK_ORDER.indexOf(b); });
        spot.classList.toggle("chosen", sorted.join(" ") === chosen);
      });
      if (copper) {
        copper.disabled = !!(target || order);
        if (target || order) copper.checked = false;
      }
      var amount = typed ? typedDollars(typed) : (chip ? chip.dataset.label : null);
      if (!player) message = message || "Tap a player";
      else if (!place) message = "Tap the layout: a card, the cards one stack covers, or even / odd / high";
      else if (placeOk && !amount) message = "Choose a chip";
      if (hint) {
        hint.textContent = message;
        hint.classList.toggle("bad", !!place && !placeOk);
      }
      var ready = !!player && placeOk && !!amount;
      button.disabled = !ready;
      if (!ready) button.textContent = order ? "Call the turn" : "Place bet";
      else if (order) button.textContent = "Call " + place + " for " + amount + " (" + player.dataset.name + ")";
      else button.textContent = "Bet " + amount + " on " + place + (copper && copper.checked ? " (coppered)" : "") + " for " + player.dataset.name;
    }

    form.addEventListener("click", function (event) {
      var spot = event.target.closest("[data-spot]");
      if (spot) {
        // A chip between cards: exactly the cards around it.
        var around = spot.dataset.spot.split(" ");
        clear("target");
        clear("order");
        form.querySelectorAll("input[name=ranks]").forEach(function (i) { i.checked = around.indexOf(i.value) !== -1; });
        update();
        return;
      }
      var label = event.target.closest("label");
      var input = label && label.querySelector("input[name=target], input[name=order]");
      if (input && input.checked && event.target !== input) {
        // A second tap on even / odd / high or on an order takes it back off.
        event.preventDefault();
        input.checked = false;
        update();
      }
    });
    form.addEventListener("change", function (event) {
      var name = event.target.name;
      if (event.target.checked && (name === "ranks" || name === "target" || name === "order")) {
        if (name !== "ranks") clear("ranks");
        if (name !== "target") clear("target");
        if (name !== "order") clear("order");
      }
      var custom = form.querySelector("input[name=custom_amount]");
      if (name === "amount" && custom) custom.value = "";
      if (name === "amount" && event.target.checked) {
        try { window.sessionStorage.setItem(chipKey, event.target.value); } catch (e) { /* private mode: no memory */ }
      }
      update();
    });
    form.addEventListener("input", function (event) {
      if (event.target.name !== "custom_amount") return;
      if (event.target.value.trim()) clear("amount");
      update();
    });
    /* A called order goes to the call_turn action; everything else is a bet. */
    form.addEventListener("htmx:configRequest", function (event) {
      if (checked("order")) event.detail.path = form.dataset.callUrl;
    });
    form.addEventListener("submit", function () {
      form.action = checked("order") ? form.dataset.callUrl : form.getAttribute("hx-post");
    });
    form.addEventListener("htmx:afterSwap", function () { chipInHand(); update(); });
    function clearChoices() {
      ["player", "ranks", "target", "order", "amount"].forEach(clear);
      var custom = form.querySelector("input[name=custom_amount]");
      var copper = form.querySelector("input[name=coppered]");
      if (custom) custom.value = "";
      if (copper) copper.checked = false;
    }

    /* A bet that went through is answered with what it changed, not a new form
       (tables/console/dealer/answers.py): the choices are cleared here, the chip stays in hand.
       The button's words follow once htmx has enabled it again (after the request). */
    form.addEventListener("faro-bet-placed", function () {
      clearChoices();
      chipInHand();
    });
    form.addEventListener("htmx:afterRequest", update);
    /* "Clear" empties the form, chip in hand and a refusal's message included. A plain reset would
       bring back what the form was drawn with: after a refusal, the refused player, place and chip. */
    form.addEventListener("reset", function (event) {
      event.preventDefault();
      clearChoices();
      try { window.sessionStorage.removeItem(chipKey); } catch (e) { /* private mode: nothing kept */ }
      form.querySelectorAll(".inline-error").forEach(function (error) { error.remove(); });
      update();
    });
    chipInHand();
    update();
  }

  function initSlots(form) {
    if (form.dataset.ready) return;
    form.dataset.ready = "1";
    var slots = Array.prototype.slice.call(form.querySelectorAll("[data-slot]"));
    var button = form.querySelector("[data-confirm]");
    var verbs = JSON.parse(form.dataset.verbs || "[]");
    var active = 0;

    function inputFor(slot) { return form.querySelector("input[name=" + slot.dataset.slot + "]"); }

    function render() {
      var chosen = [];
      slots.forEach(function (slot, index) {
        var value = inputFor(slot).value;
        var face = slot.querySelector(".slot-card");
        face.textContent = value ? cardLabel(value) : "tap a card";
        face.classList.toggle("red", /[HD]$/.test(value));
        slot.classList.toggle("active", index === active);
        slot.setAttribute("aria-pressed", index === active ? "true" : "false");
        if (value) chosen.push(value);
      });
      form.querySelectorAll("[data-card]").forEach(function (card) {
        card.classList.toggle("chosen", chosen.indexOf(card.dataset.card) !== -1);
      });
      var full = chosen.length === slots.length;
      button.disabled = !full;
      button.textContent = full
        ? form.dataset.label + ": " + chosen.map(function (c, i) { return cardLabel(c) + " " + (verbs[i] || ""); }).join(", ")
        : form.dataset.label;
    }

    form.addEventListener("click", function (event) {
      var slot = event.target.closest("[data-slot]");
      if (slot) {
        active = slots.indexOf(slot);
        inputFor(slot).value = "";
        render();
        return;
      }
      var card = event.target.closest("[data-card]");
      if (!card || card.disabled) return;
      var code = card.dataset.card;
      slots.forEach(function (s) { if (inputFor(s).value === code) inputFor(s).value = ""; });
      inputFor(slots[active]).value = code;
      var next = slots.findIndex(function (s) { return !inputFor(s).value; });
      active = next === -1 ? active : next;
      render();
    });
    render();
  }

  /* Keying a manual deal: one picker per hand, one hand shown at a time. A card ticked for one
     hand is greyed (with that hand's initials) on the others; a complete hand takes no more and
     hands over to the next; the deal button waits until every hand is complete. */
  function initKeying(form) {
    if (form.dataset.ready) return;
    form.dataset.ready = "1";
    var panels = Array.prototype.slice.call(form.querySelectorAll("[data-hand-panel]"));
    var tabs = Array.prototype.slice.call(form.querySelectorAll("[data-hand-tab]"));
    var button = form.querySelector("[data-confirm]");
    var status = form.querySelector("[data-status]");
    var label = button.textContent;
    var active = 0;

    function boxes(panel) { return Array.prototype.slice.call(panel.querySelectorAll("input[type=checkbox]")); }
    function keyed(panel) { return boxes(panel).filter(function (b) { return b.checked; }).map(function (b) { return b.value; }); }
    function left(panel) { return Number(panel.dataset.size) - keyed(panel).length; }
    function nextOpen(from) {
      for (var step = 1; step <= panels.length; step++) {
        var index = (from + step) % panels.length;
        if (left(panels[index]) > 0) return index;
      }
      return from;
    }

    boxes(form).forEach(function (box) { box.dataset.name = box.getAttribute("aria-label"); });

    function render() {
      var holder = {};
      panels.forEach(function (panel, index) {
        keyed(panel).forEach(function (code) { if (!(code in holder)) holder[code] = index; });
      });
      var total = 0, needed = 0, complete = true;
      panels.forEach(function (panel, index) {
        var mine = keyed(panel);
        var open = left(panel);
        total += mine.length;
        needed += Number(panel.dataset.size);
        if (open !== 0) complete = false;
        boxes(panel).forEach(function (box) {
          var card = box.closest(".pcard");
          var owner = holder[box.value];
          var given = !box.checked && owner !== undefined && owner !== index;
          var full = !box.checked && !given && open <= 0;
          box.disabled = given || full;
          card.classList.toggle("given", given);
          card.classList.toggle("full", full);
          if (given) card.dataset.holder = panels[owner].dataset.short;
          else delete card.dataset.holder;
          box.setAttribute("aria-label", box.dataset.name + (given ? ", given to " + panels[owner].dataset.label : ""));
        });
        var chips = panel.querySelector("[data-keyed]");
        chips.textContent = "";
        mine.forEach(function (code) {
          var chip = document.createElement("span");
          chip.className = "cardchip" + (/[HD]$/.test(code) ? " red" : "");
          chip.textContent = cardLabel(code);
          chips.appendChild(chip);
        });
        var tab = tabs[index];
        tab.querySelector("[data-left]").textContent =
          open > 0 ? open + " of " + panel.dataset.size + " to key" : open < 0 ? -open + " too many" : "complete \u2713";
        tab.classList.toggle("done", open === 0);
        tab.classList.toggle("over", open < 0);
        tab.classList.toggle("active", index === active);
        tab.setAttribute("aria-pressed", index === active ? "true" : "false");
        panel.hidden = index !== active;
      });
      button.disabled = !complete;
      var missing = needed - total;
      button.textContent = complete ? label : label + " (" + missing + (missing === 1 ? " card" : " cards") + " to key)";
      status.textContent = complete
        ? "Every hand is keyed: check the hands, then deal."
        : total + " of " + needed + " cards keyed. Now keying: " + panels[active].dataset.label + ".";
    }

    tabs.forEach(function (tab, index) {
      tab.addEventListener("click", function () { active = index; render(); });
    });
    form.addEventListener("change", function (event) {
      var panel = event.target.closest("[data-hand-panel]");
      if (!panel) return;
      var index = panels.indexOf(panel);
      if (event.target.checked && left(panel) === 0) active = nextOpen(index);
      render();
    });
    form.addEventListener("click", function (event) {
      var clear = event.target.closest("[data-clear]");
      if (!clear) return;
      boxes(clear.closest("[data-hand-panel]")).forEach(function (box) { box.checked = false; });
      render();
    });
    var firstOpen = panels.findIndex(function (panel) { return left(panel) !== 0; });
    active = firstOpen === -1 ? 0 : firstOpen;
    render();
  }

  /* A receipt (templates/console/_receipt.html) shows two lines; "more" opens the rest. A success fades after
     data-fade-after ms unless the dealer is reading it (opened, or focus inside); a refusal has no
     data-fade-after and stays until dismissed. A faded receipt is hidden, not removed. */
  function initReceipt(receipt) {
    if (receipt.dataset.ready) return;
    receipt.dataset.ready = "1";
    var body = receipt.querySelector("[data-receipt-body]");
    var more = receipt.querySelector("[data-receipt-more]");
    var close = receipt.querySelector("[data-close-receipt]");
    var timer = null;

    function hide() {
      stop();
      receipt.hidden = true;
    }
    function stop() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    }
    function fade() {
      receipt.classList.add("fading");
      timer = setTimeout(hide, 700);  // the CSS transition is 0.6 s
    }
    function schedule() {
      stop();
      receipt.classList.remove("fading");
      var after = Number(receipt.dataset.fadeAfter);
      if (after > 0 && !receipt.classList.contains("expanded")) timer = setTimeout(fade, after);
    }

    if (close) close.addEventListener("click", hide);
    if (more && body && body.scrollHeight > body.clientHeight + 1) {
      more.hidden = false;
      more.addEventListener("click", function () {
        var open = receipt.classList.toggle("expanded");
        more.setAttribute("aria-expanded", open ? "true" : "false");
        more.textContent = open ? "less" : "more";
        if (open) stop();
        else schedule();
      });
    }
    receipt.addEventListener("focusin", stop);
    receipt.addEventListener("focusout", function (event) {
      if (!receipt.contains(event.relatedTarget) && !receipt.classList.contains("expanded")) schedule();
    });
    schedule();
  }

  /* htmx swaps nothing on a 5xx or when the server cannot be reached (htmx-config in base.html):
     say so where receipts appear, instead of leaving the dealer looking at an unchanged screen. */
  function showProblem(text, kind) {
    var receipt = document.createElement("div");
    receipt.className = "receipt err";
    receipt.dataset.problem = kind;
    receipt.setAttribute("role", "alert");
    receipt.dataset.testid = "receipt";
    var body = document.createElement("div");
    body.className = "receipt-body";
    body.dataset.receiptBody = "";
    var line = document.createElement("p");
    line.textContent = text;
    body.appendChild(line);
    var close = document.createElement("button");
    close.type = "button";
    close.className = "close-receipt";
    close.dataset.closeReceipt = "";
    close.setAttribute("aria-label", "Dismiss");
    close.textContent = "\u00d7";
    receipt.appendChild(body);
    receipt.appendChild(close);
    var old = document.querySelector(".table-head .receipt, .receipt-slot .receipt");
    var home = document.querySelector(".head-receipt, .receipt-slot");
    if (old) old.replaceWith(receipt);
    else if (home) home.appendChild(receipt);
    else document.getElementById("main").prepend(receipt);
    initReceipt(receipt);
  }

  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    showProblem("The server failed (error " + status + ") and the screen was not updated. Reload the page to see where things stand before trying again.", "server");
  });
  document.addEventListener("htmx:sendError", function () {
    showProblem("No answer from the server: check the connection, then reload the page to see whether it was done.", "connection");
  });
  /* Once the server answers again (the pit's poll, the bet form's), "no answer" is no longer true. */
  document.addEventListener("htmx:afterRequest", function (event) {
    if (!event.detail.successful) return;
    document.querySelectorAll('.receipt[data-problem="connection"]').forEach(function (r) { r.hidden = true; });
  });

  /* htmx loads new content a root at a time: a whole screen, or a part swapped out of band (the
     bet form itself after a turn, tables/console/dealer/answers.py), so the root is looked at too. */
  function each(scope, selector, setUp) {
    if (scope.matches && scope.matches(selector)) setUp(scope);
    scope.querySelectorAll(selector).forEach(setUp);
  }

  /* A poll inside a form (the Faro bet form's chips, which poll the table's limits) would inherit the
     form's hx-disabled-elt, "find button[type=submit]": looked for inside the poll itself, it finds
     nothing and htmx logs an error on every poll. A poll must not grey out the dealer's buttons
     anyway, so it disables nothing ("unset" stops htmx's inheritance). */
  function pollDisablesNothing(poll) {
    if (!poll.hasAttribute("hx-disabled-elt")) poll.setAttribute("hx-disabled-elt", "unset");
  }

  function init(root) {
    var scope = root && root.querySelectorAll ? root : document;
    each(scope, "form[data-faro-bet]", initBetForm);
    each(scope, "form[data-card-slots]", initSlots);
    each(scope, "form[data-keying]", initKeying);
    each(scope, ".receipt", initReceipt);
    each(scope, '[hx-trigger^="every "]', pollDisablesNothing);
    scope.querySelectorAll("#pit-live input").forEach(function (input) {
      input.addEventListener("input", function () { input.dataset.dirty = "1"; });
    });
  }

  /* The pit polls every 5 s, but never while someone is typing into one of its forms. */
  function pitIdle(live) {
    if (live.contains(document.activeElement) && document.activeElement.matches("input, select, textarea")) return false;
    return !live.querySelector("input[data-dirty]");
  }

  /* The check runs here, not in an hx-trigger filter ("every 5s [pitIdle()]"): htmx evaluates
     filters as code, which the Content-Security-Policy forbids (no 'unsafe-eval'). */
  document.addEventListener("htmx:confirm", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.id === "pit-live" && event.detail.verb === "get" && !pitIdle(elt)) event.preventDefault();
  });

  if (window.htmx) {
    window.htmx.onLoad(init);
  } else {
    document.addEventListener("DOMContentLoaded", function () { init(document); });
  }
})();
