"""Learning is measured on conversations its parameters were never chosen on, and the learning curve is drawn
with learning on and off on one chart."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from apps.evaluation.folds import Measured, chosen_rates, conversation_folds, folds_report
from apps.evaluation.models import LearningCurveRun
from apps.evaluation.replay import curve_svg, learning_curve, rolling
from apps.graph.learning import Rates
from tests.evaluation.test_scoring import TINY


@pytest.mark.parametrize(("count", "k"), [(4, 4), (4, 2), (5, 3), (6, 4)])
def test_every_conversation_is_measured_in_one_fold_and_never_chosen_on_there(count, k):
    folds = conversation_folds(count, k)

    assert len(folds) == k
    for choose, measure in folds:
        assert measure and choose
        assert not set(choose) & set(measure)
        assert set(choose) | set(measure) == set(range(count))
    measured = [c for _, measure in folds for c in measure]
    assert sorted(measured) == list(range(count))


def test_fewer_than_two_folds_or_more_folds_than_conversations_is_refused():
    with pytest.raises(ValueError, match="folds"):
        conversation_folds(4, 1)
    with pytest.raises(ValueError, match="folds"):
        conversation_folds(3, 4)


def _measured(sample_id: str, gains: dict[Rates, float]) -> Measured:
    before = [{"mrr": 0.5, "recall@10": 0.5}] * 4
    after = {point: [{"mrr": 0.5 + gain, "recall@10": 0.5}] * 4 for point, gain in gains.items()}
    return Measured(sample_id=sample_id, before=before, unshared=[True, False, True, False], after=after)


def test_a_fold_uses_the_parameters_best_on_the_other_conversations_not_on_its_own():
    product, bolder = Rates(), Rates(most_lift=3.0)
    grid = (product, bolder)
    convs = [
        _measured("a", {product: 0.0, bolder: 0.2}),
        _measured("b", {product: 0.0, bolder: 0.1}),
        _measured("held", {product: 0.3, bolder: -0.1}),  # its own best would flatter it
    ]

    assert chosen_rates(convs[:2], grid) == bolder
    assert chosen_rates([_measured("tie", {product: 0.1, bolder: 0.1})], grid) == product  # the product wins ties
    report = folds_report(convs, 3, grid)
    held = next(f for f in report["folds"] if f["measured_on"] == ["held"])
    assert held["rates"]["most_lift"] == 3.0
    assert held["all"]["mrr"]["change"]["mean"] == pytest.approx(-0.1)
    assert report["pooled"]["all"]["questions"] == 12 and report["pooled"]["unshared"]["questions"] == 6


def test_the_learning_curve_is_a_rolling_mean_averaged_over_conversations():
    assert rolling([1.0, 0.0, 1.0, 1.0], window=2) == [1.0, 0.5, 0.5, 1.0]
    curve = learning_curve([{"off": [0.0, 0.0], "on": [1.0, 1.0]}, {"off": [1.0], "on": [1.0]}], window=2)
    assert curve == {"off": [0.5, 0.0], "on": [1.0, 1.0]}


def test_the_chart_draws_learning_on_and_off():
    svg = curve_svg({"off": [0.2, 0.3, 0.25], "on": [0.2, 0.35, 0.4]}, title="a <test>", window=2)

    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert re.findall(r'<polyline class="(on|off)"', svg) == ["off", "on"]
    assert "learning on" in svg and "learning off" in svg and "a &lt;test&gt;" in svg
    assert all(len(m.split()) == 3 for m in re.findall(r'points="([^"]*)"', svg))


@pytest.mark.django_db
def test_the_replay_command_writes_the_curve_and_its_chart(tmp_path):
    data, out, chart = tmp_path / "tiny.json", tmp_path / "curve.json", tmp_path / "curve.svg"
    data.write_text(json.dumps([TINY]))

    call_command(
        "evaluate",
        "locomo",
        "--data",
        str(data),
        "--replay",
        "--window",
        "2",
        "--chart",
        str(chart),
        "--json",
        str(out),
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )

    report = json.loads(out.read_text())
    assert report["questions"] == [3]  # categories 1–4 with evidence, in the conversation's order
    assert len(report["curve"]["on"]) == len(report["curve"]["off"]) == 3
    assert report["curve"]["on"][0] == report["curve"]["off"][0]  # nothing is learned before the first answer
    assert re.findall(r'<polyline class="(on|off)"', chart.read_text()) == ["off", "on"]
    # the run is kept on the deployment, and the staff learning page draws it
    staff = User.objects.create_superuser("learning-observer", password="x" * 16)
    browser = Client()
    browser.force_login(staff)
    page = browser.get("/admin/learning/").content.decode()
    assert re.findall(r'<polyline class="(on|off)"', page) == ["off", "on"]
    kept = LearningCurveRun.objects.get()
    assert kept.questions == 3 and kept.curve == report["curve"] and kept.dataset == "locomo:tiny.json"
    assert f"{kept.mrr_on:.3f}" in page and "3 questions of" in page


@pytest.mark.django_db
def test_the_learning_page_is_for_staff_and_counts_the_weeks_feedback(sample):
    from apps.feedback.models import Feedback
    from tests.chat.test_chat_api import ask
    from tests.factories import api, make_note, make_user, make_vault

    reader = make_user("learning-reader")
    browser = Client()
    browser.force_login(reader)
    assert browser.get("/admin/learning/").status_code == 302  # to the admin's sign-in: not staff

    staff = User.objects.create_superuser("learning-staff", password="x" * 16)
    browser.force_login(staff)
    empty = browser.get("/admin/learning/").content.decode()
    assert "No learning-curve replay has run on this deployment yet" in empty and "No feedback in the last" in empty
    assert 'href="/admin/learning/"' in browser.get("/admin/").content.decode()

    items = ask(sample.owner, "What is a PTW?", [sample.pk])["context"]
    client = api(sample.owner)
    assert client.post("/api/feedback/", {"context_item": items[0]["id"], "signal": "confirm"}).status_code == 201
    assert client.post("/api/feedback/", {"context_item": items[-1]["id"], "signal": "not_relevant"}).status_code == 201
    assert Feedback.objects.count() == 2
    page = browser.get("/admin/learning/").content.decode()
    row = re.search(r'<table id="feedback-weeks">.*?<tbody>\s*<tr>(.*?)</tr>', page, re.S)
    assert row is not None
    cells = re.findall(r"<td>([^<]*)</td>", row.group(1))
    assert cells[1:3] == ["1", "1"] and int(cells[3]) > 0  # one helped, one did not, and the ledger moved
    assert "What is a PTW?" not in page  # counts only

    # A vote clicked again (undone) is taken back: counted neither here nor on the feedback report.
    assert len(items) > 2
    second = items[1]["id"]  # a passage nobody has voted on yet
    vote = client.post("/api/feedback/", {"context_item": second, "signal": "confirm"}).json()
    assert client.delete(f"/api/feedback/{vote['id']}/").status_code == 204
    undone = browser.get("/admin/learning/").content.decode()
    row = re.search(r'<table id="feedback-weeks">.*?<tbody>\s*<tr>(.*?)</tr>', undone, re.S)
    assert row is not None and re.findall(r"<td>([^<]*)</td>", row.group(1))[1:3] == ["1", "1"]
    cells = re.findall(r"<td>([^<]*)</td>", row.group(1))

    # A vault removed since (an evaluation's): its votes and ledger rows stay on record, and are not counted here.
    removed = make_vault(sample.owner, "Removed")
    make_note(removed, "Permit.md", "# Permit\nA PTW is a permit to work, signed before hot work starts.")
    elsewhere = ask(sample.owner, "What is a PTW?", [removed.pk])["context"]
    assert client.post("/api/feedback/", {"context_item": elsewhere[0]["id"], "signal": "confirm"}).status_code == 201
    removed.delete()
    assert Feedback.objects.count() == 4
    again = browser.get("/admin/learning/").content.decode()
    row = re.search(r'<table id="feedback-weeks">.*?<tbody>\s*<tr>(.*?)</tr>', again, re.S)
    assert row is not None and re.findall(r"<td>([^<]*)</td>", row.group(1)) == cells


def test_a_replay_that_runs_across_the_hour_counts_and_scores_everything_at_the_hour_it_began(sample, monkeypatch):
    from datetime import UTC, datetime

    from django.utils import timezone

    from apps.chat.models import Conversation as Chat
    from apps.evaluation.learning import answer_rate, ask_full, replay_moment
    from apps.evaluation.locomo import Question
    from apps.evaluation.metrics import Item
    from apps.graph.models import RhythmValue
    from apps.graph.rhythm import slots_at
    from apps.graph.services import graph_extract_pending

    graph_extract_pending(vault_id=sample.pk)
    now = [datetime(2026, 11, 2, 9, 55, tzinfo=UTC)]  # a Monday, five minutes before ten
    monkeypatch.setattr(timezone, "now", lambda: now[0])
    question = Question("What happened in the Redis outage?", ("D1:1",), 4, "")
    with replay_moment():
        now[0] = datetime(2026, 11, 2, 10, 5, tzinfo=UTC)  # the replay has run past the hour
        result = ask_full(sample.owner, sample.pk, question.text)
        walked = [r for r in result.survivors if r.candidate.trace and r.candidate.trace.edges] if result else []
        assert walked, "the sample vault's outage question is answered through the graph"
        items = {r.candidate.chunk: Item(turns=("D1:1",), tokens=1) for r in walked}
        chat = Chat.objects.create(owner=sample.owner, title="learning replay")
        votes = answer_rate(sample.owner, chat, sample.pk, question, items, walked)
        assert slots_at() == ["h09", "d1"]

    assert votes["confirm"] == len(walked)
    edges = {edge for r in walked for edge in r.candidate.trace.edges}
    assert set(RhythmValue.objects.filter(edge_id__in=edges).values_list("slot", flat=True)) == {"h09", "d1", "all"}
    assert slots_at() == ["h10", "d1"]  # outside the replay, walks score for the present again
