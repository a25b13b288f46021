"""Smoke runs of `evaluate locomo` and `evaluate vault` on tiny inputs, through the real import and search."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.vaults.models import Vault
from tests.evaluation.test_scoring import TINY

pytestmark = pytest.mark.django_db


def _evaluate_locomo(data: object, out: object, stdout: io.StringIO, *options: str) -> None:
    """`manage.py evaluate locomo` on `data`, its report written to `out`, what it prints to `stdout`."""
    call_command(
        "evaluate", "locomo", "--data", str(data), *options, "--json", str(out), stdout=stdout, stderr=io.StringIO()
    )


def test_evaluate_locomo_on_a_tiny_conversation(tmp_path):
    data, chatter, out = tmp_path / "tiny.json", tmp_path / "chatter.jsonl", tmp_path / "out.json"
    data.write_text(json.dumps([TINY]))
    chatter.write_text('{"q": "thanks!"}\n{"q": "haha nice"}\n')
    vaults_before = Vault.objects.count()
    stdout = io.StringIO()

    _evaluate_locomo(data, out, stdout, "--chatter", str(chatter))

    report = json.loads(out.read_text())
    assert report["dataset"] == "locomo:tiny.json" and report["unit"] == "turns" and report["questions"] == 5
    product = {"keyword", "vector", "hybrid", "hybrid-top6", "gate", "full", "research"}
    assert set(report["pipelines"]) == product | {"ref-bm25", "ref-dense", "ref-rrf"}  # the flat reference beside
    hybrid = report["pipelines"]["hybrid"]
    assert set(hybrid["overall"]) == {"recall@5", "recall@10", "hit@10", "mrr", "session_recall@10"}
    assert set(hybrid["by_category"]) == {"1", "2", "4", "5"}  # the category-3 question has no evidence
    assert hybrid["questions_scored"] == 3
    assert hybrid["overall"]["recall@10"] == 1.0  # five turns: everything is in a flat top 10
    assert hybrid["injected"] == {
        "items_per_question": 5.0,
        "source_turns_per_question": 5.0,
        "tokens_per_question": pytest.approx(hybrid["injected"]["tokens_per_question"]),
        "noise_items_per_question": pytest.approx(10 / 3, abs=1e-3),
    }
    assert hybrid["silence"] == {"chatter": 0.0, "category5": 0.0, "real": 0.0}  # flat pipelines never stay silent
    assert set(hybrid["latency_ms"]) == {"p50", "p95"}
    assert "hybrid" in stdout.getvalue() and "recall@10" in stdout.getvalue()
    # The gate injects within the budget of a flat top 6 and is scored on what it injects.
    gate, top6 = report["pipelines"]["gate"], report["pipelines"]["hybrid-top6"]
    assert top6["injected"]["items_per_question"] == 5.0  # only five turns exist
    assert 0 < gate["injected"]["tokens_per_question"] <= top6["injected"]["tokens_per_question"]
    assert report["pipelines"]["full"]["silence"]["chatter"] == 1.0
    # Model calls per question come from the usage ledger: flat search makes none, the gate one; the judge says no
    # to every tiny question (one subject each), and its no costs exactly one call more (the yes path: tests/research).
    calls = {name: p["model_calls_per_question"] for name, p in report["pipelines"].items()}
    assert calls["hybrid"] == {"mean": 0.0, "max": 0} and calls["gate"]["max"] == 1
    assert calls["research"]["max"] == calls["full"]["max"] + 1 == 2
    # Torn down: no eval vault or user is left behind.
    assert Vault.objects.count() == vaults_before
    assert not User.objects.filter(username__startswith="evaluator-").exists()


def test_evaluate_vault_on_a_tiny_folder(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Kiln.md").write_text("# Kiln\nThe glaze firing reaches cone 6 in the electric kiln.\n")
    (notes / "Sourdough.md").write_text("# Sourdough\nFeed the starter with rye flour twice a day.\n")
    (notes / "Bikes.md").write_text("# Bikes\nTubeless tyres need fresh sealant every few months.\n")
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        '{"q": "cone 6", "relevant": ["Kiln.md"], "kind": "exact"}\n'
        '{"q": "how often should the bread starter be fed", "relevant": ["Sourdough.md"], "kind": "meaning"}\n'
        '{"q": "which bike shop is open on Sundays", "relevant": [], "kind": "unanswerable"}\n'
    )
    out = tmp_path / "vault.json"

    call_command(
        "evaluate",
        "vault",
        "--notes",
        str(notes),
        "--queries",
        str(queries),
        "--chatter",
        str(tmp_path / "none.jsonl"),
        "--pipeline",
        "hybrid",
        "--pipeline",
        "keyword",
        "--pipeline",
        "gate",
        "--json",
        str(out),
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )

    report = json.loads(out.read_text())
    assert report["questions"] == 2  # an unanswerable question has no ranking to score
    assert set(report["pipelines"]) == {"hybrid", "keyword", "gate", "ref-bm25", "ref-dense", "ref-rrf"}
    # The flat ranking hands all three notes on, two of them beside the point; the gate ranks the same three but
    # injects only what passed.
    hybrid, gate = report["pipelines"]["hybrid"], report["pipelines"]["gate"]
    assert hybrid["injected"]["items_per_question"] == 3.0 and hybrid["injected"]["noise_items_per_question"] == 2.0
    assert gate["injected"]["items_per_question"] < 3.0
    assert gate["injected"]["noise_items_per_question"] < hybrid["injected"]["noise_items_per_question"]
    assert gate["overall"]["recall@5"] == 1.0 and gate["overall"]["mrr"] == 1.0
    assert report["pipelines"]["ref-bm25"]["by_kind"]["exact"]["mrr"] == 1.0
    assert report["pipelines"]["hybrid"]["overall"] == {"recall@5": 1.0, "hit@5": 1.0, "mrr": 1.0}
    assert set(report["pipelines"]["keyword"]["by_kind"]) == {"exact", "meaning"}
    assert report["pipelines"]["keyword"]["by_kind"]["exact"]["mrr"] == 1.0


def test_calibrate_fits_a_weight_per_feature(tmp_path):
    from apps.retrieval.relevance import FEATURES

    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([TINY]))
    stdout = io.StringIO()
    call_command("evaluate", "calibrate", "--data", str(data), stdout=stdout, stderr=io.StringIO())
    figures = json.loads(stdout.getvalue())
    assert figures["questions"] == 3 and list(figures["weights"]) == list(FEATURES)
    assert figures["held_out"] == {}  # one conversation: nothing to hold out
    assert not User.objects.filter(username__startswith="evaluator-").exists()


def test_evaluate_locomo_learn_reports_learning_with_exploration_off_and_on(tmp_path):
    data, out = tmp_path / "tiny.json", tmp_path / "out.json"
    data.write_text(json.dumps([TINY]))
    stdout = io.StringIO()

    _evaluate_locomo(data, out, stdout, "--pipeline", "gate", "--learn")

    learning = json.loads(out.read_text())["learning"]
    assert set(learning) >= {"before", "after", "unshared", "mrr_change", "votes", "exploration"}
    assert learning["explorers"] is False and set(learning["exploration"]) == {"on", "cost"}
    assert sum(learning["votes"].values()) > 0  # the replayed half was rated through the feedback service
    on = learning["exploration"]["on"]
    assert set(on["bridges"]) == {"promoted", "promoted_carried_evidence"}
    assert learning["exploration"]["cost"]["mrr"] == pytest.approx(
        learning["after"]["mrr"] - on["after"]["mrr"], abs=1e-4
    )
    assert "exploration costs" in stdout.getvalue()
    assert not User.objects.filter(username__startswith="evaluator-").exists()


def test_evaluate_locomo_scores_the_offline_answers_against_the_gold_ones(tmp_path):
    data, out, answers = tmp_path / "tiny.json", tmp_path / "out.json", tmp_path / "answers.jsonl"
    data.write_text(json.dumps([TINY]))
    stdout = io.StringIO()

    _evaluate_locomo(data, out, stdout, "--pipeline", "research", "--pipeline", "hybrid", "--answers", str(answers))

    report = json.loads(out.read_text())
    figures = report["pipelines"]["research"]["answers"]
    assert set(figures["f1_by_category"]) == {"1", "2", "3", "4"}
    assert figures["questions"] == {"answerable": 4, "category5": 1}
    assert 0 <= figures["abstained"]["category5"] <= 1 and 0 <= figures["abstained"]["answerable"] <= 1
    assert "answers" not in report["pipelines"]["hybrid"]  # a flat ranking is never handed to the answerer
    assert "research offline answer: F1" in stdout.getvalue()
    rows = [json.loads(line) for line in answers.read_text().splitlines()]
    assert [r["question"] for r in rows] == [q["question"] for q in TINY["qa"]]
    cat = rows[0]
    assert cat["gold"] == "Pixel" and "Pixel" in cat["answer"] and cat["f1"] > 0  # the adopted cat, quoted
    assert figures["f1_by_category"]["4"] == cat["f1"]
    assert any("Pixel" in s["text"] for s in cat["sources"])


def test_evaluate_locomo_learn_pick_compares_the_buttons_with_pointing_to_the_answer(tmp_path):
    data, out = tmp_path / "tiny.json", tmp_path / "out.json"
    data.write_text(json.dumps([TINY]))
    stdout = io.StringIO()

    _evaluate_locomo(data, out, stdout, "--learn", "--pick")

    report = json.loads(out.read_text())
    buttons, pointing = report["buttons"], report["pointing"]
    assert (buttons["pointing"], pointing["pointing"]) == (False, True)
    assert "answers" not in buttons["votes"]
    assert pointing["votes"]["answers"] >= 1  # the asker pointed to the evidence where nothing shown carried it
    assert pointing["before"] == buttons["before"]  # the same questions, measured before any feedback
    assert "pointing: MRR" in stdout.getvalue()
    assert not User.objects.filter(username__startswith="evaluator-").exists()


def _scripted_reader(body: dict) -> dict:
    """The chat slot answers from the sources it is given; the scoring slot grades (the judge) or scores (the gate)."""
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if body["model"] == "scripted-writer":
        if "Question: What is the name of Ada's cat?" in user:
            return {"content": "Her cat is called Pixel [1]."}
        if "Question: When did Bo hurt the ankle?" in user:
            return {"status": 500}  # the provider fails on this one: the offline answer stands in
        return {"content": "The sources do not say."}
    if "You grade answers" in system:
        graded = json.loads(user)
        correct = graded["gold_answer"].lower() in graded["generated_answer"].lower()
        return {"content": json.dumps({"label": "CORRECT" if correct else "WRONG"})}
    return {"content": "not a score"}  # the gate's scorer: malformed, so it scores offline


def test_evaluate_locomo_measures_the_chat_models_answers_and_the_judges_verdicts(tmp_path, llm_server):
    llm_server.respond = _scripted_reader
    data, out, answers = tmp_path / "tiny.json", tmp_path / "out.json", tmp_path / "answers.jsonl"
    data.write_text(json.dumps([TINY]))
    stdout = io.StringIO()

    options = ["--pipeline", "hybrid-top6", "--pipeline", "research", "--answers", str(answers), "--judge"]
    _evaluate_locomo(data, out, stdout, *options)

    figures = json.loads(out.read_text())["pipelines"]["research"]["answers"]
    rows = {row["question"]: row for row in map(json.loads, answers.read_text().splitlines())}
    assert figures["answered_by"] == "openai/scripted-writer"
    cat = rows["What is the name of Ada's cat?"]
    assert cat["answer"] == "Her cat is called Pixel [1]." and cat["judged_correct"] is True
    assert figures["f1_by_category"]["4"] == cat["f1"] > 0
    # "The sources do not say." is an abstention: right on the adversarial question, wrong on an answerable one.
    assert rows["What is Bo's dog called?"]["answer"] is None and figures["abstained"]["category5"] == 1.0
    assert rows["No evidence"]["answer"] is None and rows["No evidence"]["judged_correct"] is False
    # The provider failed on one question: counted, and the offline answer was scored in its place.
    assert figures["model_failures"] == 1 and rows["When did Bo hurt the ankle?"]["answer"]
    judge = figures["judge"]
    assert judge["correct_by_category"]["4"] == 1.0 and judge["correct_by_category"]["3"] == 0.0
    graded = [r for r in llm_server.requests if "You grade answers" in r["body"]["messages"][0]["content"]]
    answered = [r for r in rows.values() if r["category"] != 5 and r["answer"] is not None]
    assert len(graded) == len(answered)  # an abstention is wrong without asking the judge
    assert "openai/scripted-writer (chat slot) answer" in stdout.getvalue() and "judged correct" in stdout.getvalue()
    assert "answers" not in json.loads(out.read_text())["pipelines"]["hybrid-top6"]


def test_evaluate_locomo_refuses_a_judge_without_a_scoring_model(tmp_path):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([TINY]))

    with pytest.raises(CommandError, match="--judge needs a model in the scoring slot"):
        call_command(
            "evaluate", "locomo", "--data", str(data), "--pipeline", "research", "--judge", stdout=io.StringIO()
        )

    assert not User.objects.filter(username__startswith="evaluator-").exists()


def test_evaluate_locomo_learn_folds_pick_chooses_what_is_read_after_the_asker_pointed(tmp_path):
    data, out = tmp_path / "tiny.json", tmp_path / "out.json"
    data.write_text(json.dumps([TINY, {**TINY, "sample_id": "tiny-2"}]))
    stdout = io.StringIO()

    _evaluate_locomo(data, out, stdout, "--learn", "--folds", "2", "--pick")

    report = json.loads(out.read_text())
    assert [f["measured_on"] for f in report["folds"]] == [["tiny-1"], ["tiny-2"]]
    assert all(f["rates"]["pick"] for f in report["folds"])  # every point chosen from is a pointing replay
    assert all(p["rates"]["pick"] for p in report["per_point"])
    assert report["defaults"]["all"]["questions"] == 2  # the product's values on both conversations, same replays
    replays = report["votes"]["tiny-1"]
    assert [r["pick"] for r in replays] == [True]  # one replay: the points differ only in what they read
    assert replays[0]["answers"] >= 1  # the asker pointed where nothing shown carried the evidence
    assert "pointing" in stdout.getvalue() and "defaults:" in stdout.getvalue()
    assert not User.objects.filter(username__startswith="evaluator-").exists()


def test_an_evaluation_leaves_nothing_queued_for_the_platforms_worker(tmp_path, django_capture_on_commit_callbacks):
    """The evaluation builds what it measures itself and deletes its vaults after: the import's follow-up tasks, if
    queued, would reach the worker of a platform running beside it, against vaults being measured or gone."""
    from django.conf import settings

    from desirepath.celery import app

    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Kiln.md").write_text("# Kiln\nThe glaze firing reaches cone 6 in the electric kiln.\n")
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"q": "cone 6", "relevant": ["Kiln.md"], "kind": "exact"}\n')
    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(queue)
    with django_capture_on_commit_callbacks(execute=True):
        call_command(
            "evaluate",
            "vault",
            *("--notes", str(notes), "--queries", str(queries), "--chatter", str(tmp_path / "none.jsonl")),
            *("--pipeline", "hybrid", "--json", str(tmp_path / "vault.json")),
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    with app.connection_for_write() as conn:
        queued = [json.loads(m)["headers"]["task"] for m in conn.default_channel.client.lrange(queue, 0, -1)]
    assert queued == []
    assert json.loads((tmp_path / "vault.json").read_text())["pipelines"]["hybrid"]["overall"]["mrr"] == 1.0


def test_evaluate_vault_measures_the_answers_by_the_notes_they_cite(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Kiln.md").write_text("# Kiln\nThe glaze firing reaches cone 6 in the electric kiln.\n")
    (notes / "Sourdough.md").write_text("# Sourdough\nFeed the starter with rye flour twice a day.\n")
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        '{"q": "How often should the sourdough starter be fed?", "relevant": ["Sourdough.md"], "kind": "meaning"}\n'
        '{"q": "Which cone does the glaze firing reach?", "relevant": ["Sourdough.md"], "kind": "mislabelled"}\n'
        '{"q": "Who won the 1998 football world cup?", "relevant": [], "kind": "unanswerable"}\n'
    )
    out, answers, stdout = tmp_path / "vault.json", tmp_path / "answers.jsonl", io.StringIO()

    call_command(
        "evaluate",
        "vault",
        *("--notes", str(notes), "--queries", str(queries), "--chatter", str(tmp_path / "none.jsonl")),
        *("--pipeline", "full", "--pipeline", "hybrid", "--answers", str(answers), "--json", str(out)),
        stdout=stdout,
        stderr=io.StringIO(),
    )

    figures = json.loads(out.read_text())["pipelines"]["full"]["answers"]
    # the second question's answer cites the kiln note, which its (deliberately wrong) label does not name
    assert figures["answerable"] == {"first_citation_relevant": 0.5, "led": 1.0, "abstained": 0.0}
    assert figures["unanswerable"] == {"abstained": 1.0, "led": 0.0}  # the gate passed nothing: the fallback
    assert figures["questions"] == {"answerable": 2, "unanswerable": 1}
    assert "answers" not in json.loads(out.read_text())["pipelines"]["hybrid"]
    rows = {row["question"]: row for row in map(json.loads, answers.read_text().splitlines())}
    assert set(rows) == {row["q"] for row in map(json.loads, queries.read_text().splitlines())}
    fed = rows["How often should the sourdough starter be fed?"]
    assert fed["led"] and fed["answer"] == "twice a day" and fed["cited"] == "Sourdough.md"
    assert rows["Which cone does the glaze firing reach?"]["cited"] == "Kiln.md"
    assert rows["Who won the 1998 football world cup?"]["answer"] is None
    assert "first citation in a note that answers 50.0%" in stdout.getvalue()
