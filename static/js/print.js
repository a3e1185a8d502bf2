// The "Print" button of a printable page (no inline script: the Content-Security-Policy
// allows same-origin files only).
document.querySelectorAll("[data-print]").forEach(function (button) {
  button.addEventListener("click", function () { window.print(); });
});
