/* The dealer's count grid: each chip's value and the running total, in dollars, as pieces are
   typed. Only a help for the eye: the server counts again from the pieces posted. */
(function () {
  "use strict";

  function dollars(cents) {
    var whole = Math.floor(cents / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return "$" + whole + "." + String(cents % 100).padStart(2, "0");
  }

  function pieces(input) {
    var n = Number(input.value);
    return input.value.trim() && Number.isInteger(n) && n > 0 ? n : 0;
  }

  function update(form) {
    var total = 0;
    form.querySelectorAll("input[data-chip]").forEach(function (input) {
      var cents = pieces(input) * Number(input.dataset.chip);
      total += cents;
      var shown = input.parentElement.querySelector("[data-chip-value]");
      if (shown) shown.textContent = dollars(cents);
    });
    var out = form.querySelector("[data-count-total]");
    if (out) out.textContent = dollars(total);
  }

  function wire(root) {
    root.querySelectorAll("form[data-count-grid]").forEach(function (form) {
      if (form.dataset.ready) return;
      form.dataset.ready = "1";
      form.addEventListener("input", function () { update(form); });
      update(form);
    });
  }

  document.addEventListener("DOMContentLoaded", function () { wire(document); });
  document.addEventListener("htmx:load", function (event) { wire(event.target); });
})();
