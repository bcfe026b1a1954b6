// Feedback in view: after a form post, the result (first field error, alert or flash) is
// scrolled into the viewport, and a failed post's page is made reloadable without
// re-posting the form (its history entry becomes a plain GET of the form's page).
(function () {
  var script = document.currentScript;
  if (!script || script.dataset.postResult !== "1") { return; }
  var reloadUrl = script.dataset.reloadUrl;
  if (reloadUrl && window.history && window.history.replaceState) {
    window.history.replaceState(null, "", reloadUrl);
  }
  function showResult() {
    var result = document.querySelector(
      "[aria-invalid='true'], .field-error, .error, [role='alert'], .alert, .flash");
    if (!result) { return; }
    var box = result.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) {
      result.scrollIntoView({block: "center", inline: "nearest"});
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", showResult);
  } else {
    showResult();
  }
})();
