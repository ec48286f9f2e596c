/* The pit view (tables/templates/pit/): what a tap opened stays open while the 5 s poll, or a
   tap's answer, replaces the pit's part of the page (#pit-live) with a new copy: a count's list
   and a table card's "More". A dealer chosen but not yet swapped in holds the poll, as typing
   into a pit form does (console.js). */
(function () {
  "use strict";

  var opened = {};  // ids of the pit's disclosures open now

  /* "toggle" does not bubble: listened for on the way down. */
  document.addEventListener("toggle", function (event) {
    var details = event.target;
    if (!(details instanceof HTMLDetailsElement) || !details.id || !details.closest("#pit-live")) return;
    if (details.open) opened[details.id] = true;
    else delete opened[details.id];
  }, true);

  function reopen(root) {
    var scope = root && root.querySelectorAll ? root : document;
    scope.querySelectorAll("details[id]").forEach(function (details) {
      if (opened[details.id] && !details.open) details.open = true;
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target.matches("#pit-live select[name=dealer]")) event.target.dataset.dirty = "1";
  });
  document.addEventListener("htmx:confirm", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.id === "pit-live" && event.detail.verb === "get" && elt.querySelector("select[data-dirty]")) {
      event.preventDefault();
    }
  });

  if (window.htmx) window.htmx.onLoad(reopen);
})();
