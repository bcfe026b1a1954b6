"""The calibration set covers every rubric family the task suite uses, about half failing, a third
of it hard, each rubric with the case facts the judge checks against; `admindesk judge calibrate`
measures scripted judges on the loopback protocol server, per family and per hardness."""
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
from admindesk.verifiers.judge.prompt import build_prompt, evidence_fence, facts_section
from tests.unit.protocol_servers import ProtocolServer, chat_completion, json_reply

ITEMS = load_calibration()


def test_the_set_is_large_balanced_and_names_its_flaws():
    assert len(ITEMS) >= 240
    fails = [item for item in ITEMS if item.human == "fail"]
    assert 0.4 <= len(fails) / len(ITEMS) <= 0.6
    flaws = Counter(item.flaw for item in fails)
    assert {"missing_fact", "wrong_code", "wrong_value", "wrong_patient", "weak_argument", "unsupported_claim",
            "invented_detail", "injection"} <= set(flaws)
    for family in {item.family for item in ITEMS}:
        labels = Counter(item.human for item in ITEMS if item.family == family)
        assert labels["pass"] >= 8 and labels["fail"] >= 8, family
        assert any(item.flaw == "injection" for item in ITEMS if item.family == family), family


def test_a_third_of_the_set_is_hard_in_every_family_with_both_labels():
    hard = [item for item in ITEMS if item.hardness == "hard"]
    assert len(hard) * 3 >= len(ITEMS)
    # The traps a careless judge falls into, each in the hard part of the set.
    assert {"invented_detail", "missing_fact", "wrong_value", "wrong_code", "injection"} <= \
        {item.flaw for item in hard}
    for family in {item.family for item in ITEMS}:
        labels = Counter(item.human for item in hard if item.family == family)
        # Hard passes (good text in an unusual form) keep a fail-everything judge from looking careful.
        assert labels["pass"] >= 5 and labels["fail"] >= 8, (family, labels)


def test_every_item_is_judged_against_its_case_facts():
    for item in ITEMS:
        assert item.facts, item.id
        request = item.request()
        assert request.facts == item.facts
        assert facts_section(item.facts) in build_prompt(request)[1], item.id


def test_item_texts_are_unique():
    # The scripted judges below find the item a request is about by its evidence text.
    texts = Counter(item.text for item in ITEMS)
    assert [text for text, count in texts.items() if count > 1] == []


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
                                    "items: [{id: a-1, rubric: r, text: t, human: fail, hardness: easy}]\n")
    with pytest.raises(CalibrationError, match="x.yml.*failing item names its flaw"):
        load_calibration(tmp_path)


@pytest.mark.parametrize(("item", "message"), [
    ("{id: a-1, rubric: r, text: t, human: pass}", "hardness: Field required"),
    ("{id: a-1, rubric: r, text: t, human: pass, hardness: medium}", "hardness: Input should be 'easy' or 'hard'"),
    ("{id: a-1, rubric: r, text: t, human: fail, hardness: hard, flaw: invented_detail}",
     "invented-detail items whose rubric gives no facts: a-1"),
])
def test_hardness_is_required_and_invented_details_need_facts(tmp_path, item, message):
    (tmp_path / "x.yml").write_text("family: answer\ntitle: t\nrubrics: {r: {rubric: 'The answer is right.'}}\n"
                                    f"items: [{item}]\n")
    with pytest.raises(CalibrationError, match=message):
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
    n = sum(item.family == "answer" for item in ITEMS)
    passes = sum(item.human == "pass" for item in ITEMS if item.family == "answer")
    fails = n - passes
    assert answer["items"] == n and answer["agreement"] == pytest.approx((n - 2) / n)
    assert answer["false_pass_rate"] == pytest.approx(2 / fails) and answer["false_fail_rate"] == 0.0
    chance = (passes / n) * ((passes + 2) / n) + (fails / n) * ((fails - 2) / n)
    assert answer["kappa"] == pytest.approx(((n - 2) / n - chance) / (1 - chance))
    note = report["families"]["note"]
    assert note["errors"] == 1 and note["false_fail_rate"] > 0 and note["false_pass_rate"] == 0.0
    assert {d["id"] for d in report["disagreements"]} == FLIPPED | MALFORMED
    assert report["overall"]["items"] == len(ITEMS) and not report["meets_bar"]
    for shown in ("answer", f"{(n - 2) / n:.1%}", f"{answer['kappa']:.2f}", "leaderboard bar NOT met",
                  "1 judge error(s)"):
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


def constant_judge(word):
    """A responder that gives the same verdict on every item."""
    return lambda request: json_reply(chat_completion(json.dumps({"verdict": word, "reason": "scripted"})))


def expected_by_hardness(judged_pass):
    """What the report must say per hardness for a judge whose verdict on an item is judged_pass(item)."""
    expected = {}
    for level in ("easy", "hard"):
        group = [item for item in ITEMS if item.hardness == level]
        human = [item.human == "pass" for item in group]
        judged = [judged_pass(item) for item in group]
        fails = [j for h, j in zip(human, judged) if not h]
        passes = [j for h, j in zip(human, judged) if h]
        expected[level] = {"items": len(group), "agreement": sum(h == j for h, j in zip(human, judged)) / len(group),
                           "false_pass_rate": sum(fails) / len(fails),
                           "false_fail_rate": sum(not j for j in passes) / len(passes)}
    return expected


@pytest.mark.parametrize(("responder", "judged_pass", "kappa"), [
    (constant_judge("pass"), lambda item: True, 0.0),
    (constant_judge("fail"), lambda item: False, 0.0),
    (scripted_judge(), lambda item: item.human == "pass", 1.0),
], ids=["always-pass", "always-fail", "from-labels"])
def test_calibrate_reports_figures_for_the_easy_and_the_hard_items(tmp_path, responder, judged_pass, kappa):
    with ProtocolServer() as server:
        server.respond("/v1/chat/completions", responder)
        result = calibrate(server, tmp_path)
        sent = [request.body["messages"][1]["content"] for request in server.requests]
    assert result.exit_code == 0, result.output
    # Every request carries its item's case facts.
    assert all(facts_section(item.facts) in user for item, user in zip(ITEMS, sent))
    report = json.loads((tmp_path / "report.json").read_text())
    assert set(report["hardness"]) == {"easy", "hard"}
    for level, figures in expected_by_hardness(judged_pass).items():
        shown = report["hardness"][level]
        assert shown["items"] == figures["items"] and shown["errors"] == 0
        assert shown["kappa"] == pytest.approx(kappa)
        for name in ("agreement", "false_pass_rate", "false_fail_rate"):
            assert shown[name] == pytest.approx(figures[name]), (level, name)
    assert "By hardness" in result.output and f"{report['hardness']['hard']['agreement']:.1%}" in result.output
    hard_disagreements = {d["id"] for d in report["disagreements"] if d["hardness"] == "hard"}
    assert hard_disagreements == {item.id for item in ITEMS
                                  if item.hardness == "hard" and judged_pass(item) != (item.human == "pass")}
