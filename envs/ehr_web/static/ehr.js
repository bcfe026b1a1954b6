// Native <dialog> modals: buttons with data-open-dialog open them; a dialog rendered
// with data-open-on-load (a form that came back with errors) opens itself.
document.addEventListener("click", function (event) {
  var opener = event.target.closest("[data-open-dialog]");
  if (opener) {
    var dialog = document.getElementById(opener.getAttribute("data-open-dialog"));
    if (dialog) { dialog.showModal(); }
  }
  var closer = event.target.closest("[data-close-dialog]");
  if (closer) { closer.closest("dialog").close(); }
});
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("dialog[data-open-on-load]").forEach(function (d) { d.showModal(); });
});
// A header checkbox with data-check-all="NAME" checks or clears every NAME box of the page.
document.addEventListener("change", function (event) {
  var name = event.target.getAttribute && event.target.getAttribute("data-check-all");
  if (!name) { return; }
  document.querySelectorAll('input[type=checkbox][name="' + name + '"]').forEach(function (box) {
    box.checked = event.target.checked;
  });
});
// An advisory that must be answered cannot be closed with Escape.
document.addEventListener("cancel", function (event) {
  if (event.target.hasAttribute && event.target.hasAttribute("data-must-answer")) { event.preventDefault(); }
}, true);
