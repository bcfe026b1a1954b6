"""The calibration set covers every rubric family the task suite uses, about half failing;
`admindesk judge calibrate` measures a scripted judge on the loopback protocol server."""
import json
from collections import Counter

import pytest
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.schema.task_model import load_tasks
from admindesk.verifiers.judge.calibration import (
    CalibrationError,
    ItemOutcome,
    agreement,
    load_calibration,
    rubric_family,
)
from admindesk.verifiers.judge.prompt import evidence_fence
from tests.unit.protocol_servers import ProtocolServer, chat_completion, json_reply

ITEMS = load_calibration()


def test_the_set_is_large_balanced_and_names_its_flaws():
    assert len(ITEMS) >= 120
    fails = [item for item in ITEMS if item.human == "fail"]
    assert 0.4 <= len(fails) / len(ITEMS) <= 0.6
    flaws = Counter(item.flaw for item in fails)
    assert {"missing_fact", "wrong_code", "wrong_patient", "weak_argument", "injection"} <= set(flaws)
    for family in {item.family for item in ITEMS}:
        labels = Counter(item.human for item in ITEMS if item.family == family)
        assert labels["pass"] >= 8 and labels["fail"] >= 8, family
        assert any(item.flaw == "injection" for item in ITEMS if item.family == family), family


def test_every_rubric_family_of_the_task_suite_is_calibrated():
    families = {item.family for item in ITEMS}
    used = {}
    for task in load_tasks():
        for subtask in task.subtasks:
            for check in subtask.checks:
                if check.kind == "rubric":
                    used.setdefault(rubric_family(check), f"{task.id}/{subtask.id}: {check.source or 'answer'}")
    assert None not in used, f"no calibration family for the rubric of {used.get(None)}"
    assert set(used) <= families, sorted(set(used) - families)


def test_a_bad_calibration_file_is_a_clear_error(tmp_path):
    (tmp_path / "x.yml").write_text("family: answer\ntitle: t\nrubrics: {r: {rubric: 'The answer is right.'}}\n"
                                    "items: [{id: a-1, rubric: r, text: t, human: fail}]\n")
    with pytest.raises(CalibrationError, match="x.yml.*failing item names its flaw"):
        load_calibration(tmp_path)


def test_kappa_and_rates_follow_their_definitions():
    items = [item for item in ITEMS if item.family == "answer"][:4]
    labels = [item.human for item in items]
    # Judge says pass on all four: false-fail 0, false-pass 1 (every human fail judged pass).
    figures = agreement([ItemOutcome(item=item, judged_pass=True) for item in items])
    assert figures.false_fail_rate == 0.0 and figures.false_pass_rate == 1.0
    assert figures.agreement == labels.count("pass") / 4 and figures.kappa == 0.0


FLIPPED = {"answer-04", "answer-06"}      # human fail, the scripted judge says pass
MALFORMED = {"note-01"}                    # human pass, the scripted judge answers nonsense


def scripted_judge(flipped=frozenset(), malformed=frozenset()):
    """A responder answering each item's human label, except the flipped and malformed ones."""
    by_text = {item.text: item for item in ITEMS}

    def respond(request):
        user = request.body["messages"][1]["content"]
        item = next(item for text, item in by_text.items() if f"{evidence_fence(text)[0]}\n{text}\n" in user)
        if item.id in malformed:
            return json_reply(chat_completion("Pass, I think."))
        word = item.human if item.id not in flipped else ("pass" if item.human == "fail" else "fail")
        return json_reply(chat_completion(json.dumps({"verdict": word, "reason": "scripted"})))
    return respond


def calibrate(server, tmp_path, *options):
    return CliRunner().invoke(main, ["judge", "calibrate", "--judge", f"openai-compatible:{server.url}/v1#judge",
                                     "--judge-votes", "1", "--judge-retries", "0", "--no-judge-cache",
                                     "--json", str(tmp_path / "report.json"), *options])


def test_calibrate_reports_agreement_kappa_and_error_rates_per_family(tmp_path):
    with ProtocolServer() as server:
        server.respond("/v1/chat/completions", scripted_judge(FLIPPED, MALFORMED))
        result = calibrate(server, tmp_path)
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "report.json").read_text())
    answer = report["families"]["answer"]
    passes = sum(item.human == "pass" for item in ITEMS if item.family == "answer")
    fails = 22 - passes
    assert answer["items"] == 22 and answer["agreement"] == pytest.approx(20 / 22)
    assert answer["false_pass_rate"] == pytest.approx(2 / fails) and answer["false_fail_rate"] == 0.0
    chance = (passes / 22) * ((passes + 2) / 22) + (fails / 22) * ((fails - 2) / 22)
    assert answer["kappa"] == pytest.approx((20 / 22 - chance) / (1 - chance))
    note = report["families"]["note"]
    assert note["errors"] == 1 and note["false_fail_rate"] > 0 and note["false_pass_rate"] == 0.0
    assert {d["id"] for d in report["disagreements"]} == FLIPPED | MALFORMED
    assert report["overall"]["items"] == len(ITEMS) and not report["meets_bar"]
    for shown in ("answer", "90.9%", f"{answer['kappa']:.2f}", "leaderboard bar NOT met", "1 judge error(s)"):
        assert shown in result.output


def test_a_judge_that_agrees_meets_the_bar_and_a_family_can_be_chosen(tmp_path):
    with ProtocolServer() as server:
        server.respond("/v1/chat/completions", scripted_judge())
        result = calibrate(server, tmp_path, "--family", "cover_sheet")
        assert result.exit_code == 0, result.output
        assert "leaderboard bar met" in result.output
        assert len(server.requests) == sum(item.family == "cover_sheet" for item in ITEMS)
        unknown = calibrate(server, tmp_path, "--family", "poems")
    assert unknown.exit_code != 0 and "no family poems" in unknown.output
