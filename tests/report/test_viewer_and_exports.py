"""What a report shows beyond the figures: the viewer's goal, the text the model read and
the tokens of each step, the rows an episode changed (before and after); the run's versions
as a table; the results table as CSV and LaTeX; unjudged episodes drawn as unjudged; and a
warning when compared runs cover different task sets."""
from __future__ import annotations

import csv
import io
import re
import shutil

import pytest

from admindesk.harness.report import write_report
from admindesk.harness.report.build import version_rows
from admindesk.harness.report.charts import by_group
from admindesk.harness.report.export import latex_text, results_latex
from tests.report.run_folders import OBSERVATION, write_run
from tests.unit.fixtures.episodes import MEMBER_ID, task_data


@pytest.fixture(scope="module")
def report(tmp_path_factory, tasks_dir):
    """One run's report: trial 0 of each task does the work, trial 1 leaves the state untouched."""
    root = tmp_path_factory.mktemp("report")
    write_report([write_run(root / "run", tasks_dir)], root / "out")
    return root / "out"


def viewer(report, name: str) -> str:
    return (report / "episodes" / f"{name}.html").read_text(encoding="utf-8")


def test_the_viewer_shows_the_goal_the_text_the_model_read_and_each_steps_tokens(report):
    page = viewer(report, "pa-medium-01-t0")
    assert re.search(r'id="goal"><strong>Goal:</strong> ' + re.escape(task_data()["goal"]), page)
    assert "SVH Chart&#39; [ref=e1]" in page and OBSERVATION.split("\n")[0].split("'")[0] in page
    assert page.count('class="observation"') == 6  # one per screen, the last one included
    assert page.count("1000 in / 50 out tokens") == 5  # one model call per action


def test_the_viewer_shows_the_rows_the_episode_added_before_and_after(report):
    page = viewer(report, "pa-medium-01-t0")
    section = page[page.index('id="changes-h"'):]
    assert "payer_portal_a · pa_requests" in section and "ehr_web · order_authorizations" in section
    assert "audit_events" not in section  # the apps' bookkeeping is not the work
    row = re.search(r"<td><code>member_id</code></td><td>(.*?)</td><td>(.*?)</td>", section)
    assert row.groups() == ("—", MEMBER_ID)
    assert 'badge added' in section


def test_an_episode_that_changed_nothing_says_so(report):
    page = viewer(report, "pa-medium-01-t1")
    assert 'id="no-changes"' in page and "<table class=\"grid small changes\"" not in page


def test_the_run_index_lists_versions_as_a_table(report):
    index = (report / "index.html").read_text(encoding="utf-8")
    table = index[index.index('id="versions"'):index.index("</table>", index.index('id="versions"'))]
    rows = dict(re.findall(r'<th scope="row">([^<]+)</th><td>([^<]*)</td>', table))
    assert {"python", "admindesk", "playwright", "pydantic"} <= set(rows) and rows["admindesk"]


def test_versions_rows_spell_out_viewports_revisions_and_unrecorded_values():
    rows = dict(version_rows({"admindesk": "0.1.0", "admindesk_commit": None,
                              "viewport": {"width": 1280, "height": 720},
                              "task_revisions": {"pa-easy-01": 1, "pa-easy-02": 2, "pa-easy-03": 1},
                              "judge": {"spec": "openai:m", "votes": 3}}))
    assert rows == {"admindesk": "0.1.0", "admindesk_commit": "unknown", "viewport": "1280x720",
                    "task_revisions": "2 task(s) at revision 1; 1 task(s) at revision 2",
                    "judge": "spec openai:m, votes 3"}


def test_the_results_table_is_written_as_csv_and_latex(report):
    rows = list(csv.DictReader(io.StringIO((report / "results.csv").read_text(encoding="utf-8"))))
    overall = rows[0]
    assert (overall["slice"], overall["episodes"], overall["e2e_success"], overall["unjudged"]) == (
        "all", "4", "0.5", "0")
    assert {row["slice"] for row in rows} == {"all", "workflow=dme", "workflow=prior_auth", "difficulty=medium"}
    tex = (report / "results.tex").read_text(encoding="utf-8")
    assert tex.startswith(r"\begin{tabular}") and tex.rstrip().endswith(r"\end{tabular}")
    assert r"model-a & all & 4 & 50\% (" in tex and r"workflow=prior\_auth" in tex
    index = (report / "index.html").read_text(encoding="utf-8")
    assert 'href="results.csv"' in index and 'href="results.tex"' in index


def test_latex_escapes_labels_and_marks_unjudged_episodes_and_unknown_cost():
    row = {"run": "agent_x (50% & more)", "slice": "all", "episodes": 3, "e2e_success": 0.0, "e2e_ci95_low": 0.0,
           "e2e_ci95_high": 0.0, "unjudged": 2, "subtask_pass_rate": 0.9, "mean_steps": 12.0, "mean_cost_usd": None}
    line = results_latex([row]).splitlines()[4]
    assert line.startswith(latex_text("agent_x (50% & more)")) and r"agent\_x (50\% \& more)" in line
    assert r"0\% (0\%--0\%), 2 unjudged" in line and line.endswith(r"unknown \\")


def test_unjudged_episodes_are_drawn_as_unjudged_not_as_zero():
    rows = [{"task_id": f"t{n}", "result": result, "subtask_pass_rate": 1.0, "steps": 5, "wall_s": 1.0,
             "workflow": "prior_auth"} for n, result in enumerate(["pass", "unjudged", "unjudged", "fail"])]
    figure = by_group(rows, "workflow", "By workflow")
    unjudged = next(trace for trace in figure.data if trace.name.startswith("unjudged"))
    e2e = next(trace for trace in figure.data if trace.name == "end-to-end success")
    assert list(unjudged.y) == [0.5] and list(unjudged.base) == [0.25] and list(e2e.y) == [0.25]
    judged = by_group([dict(r, result="pass") for r in rows], "workflow", "By workflow")
    assert not any(trace.name.startswith("unjudged") for trace in judged.data)


def test_comparing_runs_over_different_task_sets_warns(tmp_path, tasks_dir):
    fewer = tmp_path / "fewer-tasks"
    shutil.copytree(tasks_dir, fewer)
    (fewer / "dme-medium-01.yaml").unlink()
    warned: list[str] = []
    write_report([write_run(tmp_path / "a", tasks_dir, agent="model-a"),
                  write_run(tmp_path / "b", fewer, agent="model-b")], tmp_path / "out", warn=warned.append)
    assert len(warned) == 1 and "different task sets" in warned[0] and "model-a has 1 task(s)" in warned[0]
    page = (tmp_path / "out/index.html").read_text(encoding="utf-8")
    assert 'id="task-set-warning"' in page and "1 task(s) in common" in page
    assert (tmp_path / "out/results.csv").read_text(encoding="utf-8").count("\nmodel-b,all,") == 1


def test_comparing_runs_over_the_same_tasks_does_not_warn(tmp_path, tasks_dir):
    warned: list[str] = []
    write_report([write_run(tmp_path / "a", tasks_dir, agent="model-a"),
                  write_run(tmp_path / "b", tasks_dir, agent="model-b")], tmp_path / "out", warn=warned.append)
    assert warned == [] and 'id="task-set-warning"' not in (tmp_path / "out/index.html").read_text(encoding="utf-8")
