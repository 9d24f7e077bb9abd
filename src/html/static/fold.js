// At a phone's width the specimen list's filters, label sheets and counts
// start folded, so that the first records are on the first screen; a tap on
// their summary unfolds them. Without this script they stay open.
(function () {
  "use strict";
  var side = document.querySelector("details.side");
  if (side && window.matchMedia("(max-width: 40rem)").matches) side.open = false;
})();
