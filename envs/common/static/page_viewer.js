// Page viewer for scanned documents (_page_viewer.html): one page at a time, thumbnails,
// page jump, zoom and rotate; every control also answers the keyboard.
(function () {
  "use strict";
  var PAGE_WIDTH = 850, PAGE_HEIGHT = 1100;
  var ZOOM_STEPS = [50, 75, 100, 125, 150, 200];

  function setUp(root) {
    var total = parseInt(root.dataset.pageTotal, 10);
    var stage = root.querySelector('[data-pv="stage"]');
    var jump = root.querySelector('[data-pv="jump"]');
    var zoomSelect = root.querySelector('[data-pv="zoom"]');
    var status = root.querySelector('[data-pv="status"]');
    var pages = Array.prototype.slice.call(root.querySelectorAll("[data-pv-page]"));
    var thumbs = Array.prototype.slice.call(root.querySelectorAll("[data-pv-thumb]"));
    var label = root.getAttribute("aria-label").replace(/ page viewer$/, "");
    var state = {page: parseInt(root.dataset.startPage, 10) || 1, zoom: "fit", rotation: 0};
    root.classList.add("pv-live");

    function percent() {
      // The zoom as a number: "fit" and "page" depend on the stage's size and the rotation.
      var turned = state.rotation % 180 !== 0;
      var across = turned ? PAGE_HEIGHT : PAGE_WIDTH, down = turned ? PAGE_WIDTH : PAGE_HEIGHT;
      var room = stage.clientWidth - 32;
      if (state.zoom === "fit") return Math.max(20, Math.floor(100 * room / across));
      if (state.zoom === "page") return Math.max(20, Math.floor(100 * Math.min(room / across, (stage.clientHeight - 40) / down)));
      return state.zoom;
    }

    function render() {
      var scale = percent() / 100, width = PAGE_WIDTH * scale, height = PAGE_HEIGHT * scale;
      var turned = state.rotation % 180 !== 0;
      pages.forEach(function (figure, index) {
        var shown = index + 1 === state.page;
        figure.hidden = !shown;
        if (!shown) return;
        var frame = figure.querySelector(".pv-frame"), image = frame.querySelector("img");
        frame.style.width = (turned ? height : width) + "px";
        frame.style.height = (turned ? width : height) + "px";
        image.style.width = width + "px";
        image.style.height = height + "px";
        // Rotate about the top-left corner, then slide the page back into its frame.
        var slide = {0: "", 90: "translateX(" + height + "px) ", 180: "translate(" + width + "px," + height + "px) ",
                     270: "translateY(" + width + "px) "}[state.rotation];
        image.style.transform = slide + "rotate(" + state.rotation + "deg)";
      });
      thumbs.forEach(function (thumb) {
        if (parseInt(thumb.dataset.pvThumb, 10) === state.page) thumb.setAttribute("aria-current", "page");
        else thumb.removeAttribute("aria-current");
      });
      jump.value = state.page;
      zoomSelect.value = String(state.zoom);
      var text = "Page " + state.page + " of " + total + " \u00b7 " + percent() + "%" +
                 (state.rotation ? " \u00b7 rotated " + state.rotation + "\u00b0" : "");
      status.textContent = text;
      stage.setAttribute("aria-label", label + ", page " + state.page + " of " + total +
                         ". Arrow keys or Page Up and Page Down turn pages.");
      root.querySelector('[data-pv="prev"]').disabled = root.querySelector('[data-pv="first"]').disabled = state.page <= 1;
      root.querySelector('[data-pv="next"]').disabled = root.querySelector('[data-pv="last"]').disabled = state.page >= total;
    }

    function goTo(page) {
      if (isNaN(page)) { jump.value = state.page; return; }
      state.page = Math.min(total, Math.max(1, page));
      stage.scrollTop = 0;
      render();
    }

    function zoomBy(direction) {
      var now = percent(), next = now;
      if (direction > 0) next = ZOOM_STEPS.filter(function (step) { return step > now; })[0] || ZOOM_STEPS[ZOOM_STEPS.length - 1];
      else next = ZOOM_STEPS.filter(function (step) { return step < now; }).pop() || ZOOM_STEPS[0];
      state.zoom = next;
      render();
    }

    function rotate(degrees) {
      state.rotation = (state.rotation + degrees + 360) % 360;
      render();
    }

    var actions = {
      first: function () { goTo(1); }, last: function () { goTo(total); },
      prev: function () { goTo(state.page - 1); }, next: function () { goTo(state.page + 1); },
      go: function () { goTo(parseInt(jump.value, 10)); },
      "zoom-in": function () { zoomBy(1); }, "zoom-out": function () { zoomBy(-1); },
      "rotate-left": function () { rotate(-90); }, "rotate-right": function () { rotate(90); }
    };
    root.addEventListener("click", function (event) {
      var thumb = event.target.closest("[data-pv-thumb]");
      if (thumb) { event.preventDefault(); goTo(parseInt(thumb.dataset.pvThumb, 10)); return; }
      var button = event.target.closest("button[data-pv]");
      if (button && actions[button.dataset.pv]) actions[button.dataset.pv]();
    });
    jump.addEventListener("keydown", function (event) {
      if (event.key === "Enter") { event.preventDefault(); actions.go(); }
    });
    jump.addEventListener("change", actions.go);
    zoomSelect.addEventListener("change", function () {
      var value = zoomSelect.value;
      state.zoom = value === "fit" || value === "page" ? value : parseInt(value, 10);
      render();
    });
    root.addEventListener("keydown", function (event) {
      var target = event.target;
      if (target.matches("input, select, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
      var key = event.key, handled = true;
      if (key === "PageDown" || (key === "ArrowRight" && target === stage)) actions.next();
      else if (key === "PageUp" || (key === "ArrowLeft" && target === stage)) actions.prev();
      else if (key === "Home" && target === stage) actions.first();
      else if (key === "End" && target === stage) actions.last();
      else if (key === "+" || key === "=") actions["zoom-in"]();
      else if (key === "-") actions["zoom-out"]();
      else if (key === "r") actions["rotate-right"]();
      else if (key === "R") actions["rotate-left"]();
      else handled = false;
      if (handled) event.preventDefault();
    });
    window.addEventListener("resize", function () { if (typeof state.zoom !== "number") render(); });
    render();
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-page-viewer]"), setUp);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
