// Trajectory viewer: one frame per screen, with the action the agent took on it drawn over
// the screenshot (click marker, typed text, key). Arrow keys, j/k, Home and End step
// through the frames; the current frame is kept in the URL hash (#step-N) for links.
(function () {
  "use strict";
  var data = document.getElementById("frames");
  var shot = document.getElementById("shot");
  if (!data || !shot) { return; }
  var frames = JSON.parse(data.textContent);
  var overlay = document.getElementById("overlay");
  var position = document.getElementById("position");
  var actionText = document.getElementById("action-text");
  var url = document.getElementById("url");
  var stepError = document.getElementById("step-error");
  var strip = document.querySelectorAll("#filmstrip button");
  var items = document.querySelectorAll("#step-list li");
  var current = 0;

  function describe(action) {
    if (!action) { return "End of the episode: no further action."; }
    switch (action.type) {
      case "click": case "double_click": case "right_click": case "move":
        return action.type.replace("_", " ") + " at (" + action.x + ", " + action.y + ")";
      case "drag": return "drag from (" + action.x + ", " + action.y + ")";
      case "scroll": return "scroll by (" + (action.dx || 0) + ", " + (action.dy || 0) + ")";
      case "type": return "type \u201c" + action.text + "\u201d";
      case "key": return "press " + action.keys;
      case "goto": case "new_tab": return action.type.replace("_", " ") + " " + (action.url || "");
      case "done": return "done" + (action.answer ? ": \u201c" + action.answer + "\u201d" : "");
      default:
        var rest = Object.keys(action).filter(function (k) { return k !== "type"; })
          .map(function (k) { return k + "=" + JSON.stringify(action[k]); });
        return action.type.replace(/_/g, " ") + (rest.length ? " (" + rest.join(", ") + ")" : "");
    }
  }

  function label(className, text) {
    var node = document.createElement("div");
    node.className = className;
    node.textContent = text;
    return node;
  }

  // Coordinates are screenshot pixels; place marks in percent of the image's natural size.
  function drawAction(action) {
    overlay.textContent = "";
    if (!action || !shot.naturalWidth) { return; }
    if (typeof action.x === "number" && typeof action.y === "number") {
      var mark = label("click-mark " + action.type, "");
      mark.style.left = (100 * action.x / shot.naturalWidth) + "%";
      mark.style.top = (100 * action.y / shot.naturalHeight) + "%";
      overlay.appendChild(mark);
    }
    if (action.type === "type" || action.type === "fill_element") {
      overlay.appendChild(label("typed", "\u2328 " + action.text));
    } else if (action.type === "key") {
      overlay.appendChild(label("keycap", action.keys));
    } else if (action.type === "done") {
      overlay.appendChild(label("typed", "\u2714 done"));
    }
  }

  function show(index) {
    current = Math.max(0, Math.min(frames.length - 1, index));
    var frame = frames[current];
    position.textContent = "Step " + frame.step + " of " + frames[frames.length - 1].step;
    url.textContent = frame.url || "";
    actionText.textContent = "Action on this screen: " + describe(frame.action);
    stepError.textContent = frame.error ? "Error: " + frame.error : "";
    overlay.textContent = "";
    if (frame.screenshot) {
      shot.hidden = false;
      if (shot.getAttribute("src") === frame.screenshot && shot.complete) { drawAction(frame.action); }
      else { shot.setAttribute("src", frame.screenshot); }
    } else {
      shot.hidden = true;
      shot.removeAttribute("src");
    }
    strip.forEach(function (button, n) { button.setAttribute("aria-current", n === current ? "step" : "false"); });
    items.forEach(function (item, n) { item.classList.toggle("current", n === current); });
    // Scroll the strip and the list themselves, never the page (scrollIntoView would).
    var film = document.getElementById("filmstrip"), list = document.querySelector(".steps");
    if (strip[current]) {
      var box = strip[current].parentNode;
      film.scrollLeft = box.offsetLeft - film.offsetLeft - (film.clientWidth - box.offsetWidth) / 2;
    }
    if (items[current]) { list.scrollTop = items[current].offsetTop - list.offsetTop - list.clientHeight / 3; }
    history.replaceState(null, "", "#step-" + frame.step);
  }

  items.forEach(function (item, n) {
    var act = item.querySelector(".act");
    if (act) { act.textContent = frames[n].action ? describe(frames[n].action) : "end of episode"; }
  });
  shot.addEventListener("load", function () { drawAction(frames[current].action); });
  document.getElementById("prev").addEventListener("click", function () { show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { show(current + 1); });
  strip.forEach(function (button) {
    button.addEventListener("click", function () { show(Number(button.dataset.frame)); });
  });
  items.forEach(function (item) {
    item.addEventListener("click", function () { show(Number(item.dataset.frame)); });
  });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    var moves = {ArrowRight: current + 1, j: current + 1, ArrowLeft: current - 1, k: current - 1,
                 Home: 0, End: frames.length - 1};
    if (event.key in moves) {
      event.preventDefault();
      show(moves[event.key]);
    }
  });
  // A link to #step-N (a check's evidence, a shared URL) shows that step.
  function fromHash() {
    var match = /^#step-(\d+)$/.exec(location.hash);
    var found = match ? frames.findIndex(function (f) { return f.step === Number(match[1]); }) : 0;
    return found < 0 ? 0 : found;
  }
  function showFromHash() {
    show(fromHash());
    document.getElementById("frame").scrollIntoView({block: "start"});
  }
  window.addEventListener("hashchange", showFromHash);
  // An evidence link shows its step at once (hashchange comes later, after the click).
  document.querySelectorAll("a.evidence-link").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      history.replaceState(null, "", link.getAttribute("href"));
      showFromHash();
    });
  });
  show(fromHash());
}());
