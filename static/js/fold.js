/*
 * Opens folded sections marked `data-open-wide` on wide screens: on a phone the
 * filters stay folded so that the table comes first; on a desktop they are open.
 */
(function () {
  "use strict";
  function unfold() {
    if (window.matchMedia("(min-width: 700px)").matches) {
      Array.prototype.forEach.call(document.querySelectorAll("details[data-open-wide]"), function (d) {
        d.open = true;
      });
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", unfold);
  } else {
    unfold();
  }
})();
