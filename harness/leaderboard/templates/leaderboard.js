// Leaderboard filters: the observation mode hides other rows; a workflow shows each row's
// public success on that workflow only and re-ranks by it (rows without it are hidden). A row
// with held-out entries only has no public scores: shown last, and only without a workflow.
// Held-out cells always show the whole split. Only verified rows are ranked: they come first,
// the self-reported ones after them, unnumbered.
(function () {
  "use strict";
  var observation = document.getElementById("filter-observation");
  var workflow = document.getElementById("filter-workflow");
  var body = document.querySelector("#board tbody");
  var rows = Array.prototype.slice.call(body.querySelectorAll("tr[data-scores]"));
  var shown = document.getElementById("shown");
  function pct(value) { return Math.round(100 * value) + "%"; }

  function apply() {
    var group = workflow.value || "all";
    var visible = [];
    rows.forEach(function (row) {
      var scores = JSON.parse(row.dataset.scores);
      var score = scores[group];
      var listed = score || (group === "all" && !scores.all);
      var keep = listed && (!observation.value || row.dataset.observation === observation.value);
      row.hidden = !keep;
      if (!keep) { return; }
      visible.push({row: row, score: score});
      if (!score) { return; }
      row.querySelector(".e2e").textContent = pct(score.value);
      row.querySelector(".ci95").textContent = Math.round(100 * score.ci95[0]) + "–" + pct(score.ci95[1]);
      row.querySelector(".subtasks").textContent = pct(score.subtask_pass_rate);
      row.querySelector(".deterministic").textContent = pct(score.deterministic_success);
      row.querySelector(".episodes").textContent = score.n_episodes;
    });
    function verified(item) { return item.row.dataset.tier === "verified" ? 0 : 1; }
    visible.sort(function (a, b) {
      if (!a.score || !b.score) {
        return (a.score ? -1 : b.score ? 1 : 0) || a.row.dataset.name.localeCompare(b.row.dataset.name);
      }
      return (verified(a) - verified(b)) || (b.score.value - a.score.value) || (b.score.ci95[0] - a.score.ci95[0]) ||
        a.row.dataset.name.localeCompare(b.row.dataset.name);
    });
    var rank = 0;
    visible.forEach(function (item) {
      var ranked = item.score && verified(item) === 0;
      rank += ranked ? 1 : 0;
      item.row.querySelector(".rank").textContent = ranked ? rank : "–";
      body.appendChild(item.row);
    });
    shown.textContent = visible.length + " of " + rows.length + " entries shown";
  }
  observation.addEventListener("change", apply);
  workflow.addEventListener("change", apply);
  apply();
}());
