"""Deep research: the judge, sub-questions, dispatches with the early stop, Skip, and one verification call."""

from __future__ import annotations

import json

import pytest

from apps.llm.models import ModelUsage
from apps.research.planning import as_asked, askable, judge_model_free, split_model_free
from apps.research.run import research
from apps.vaults.scope import scope_for
from tests.factories import make_note, usage_from_here

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("question", "digs"),
    [
        ("What is a PTW?", False),
        ("When did Caroline go to the support group?", False),
        ("What activities does Melanie partake in?", True),
        ("Why did the Redis outage happen?", True),
        ("Should we keep Celery or move the queue to Postgres?", True),
        ("Compare the focaccia and the sourdough recipes", True),
    ],
)
def test_the_model_free_judge_reads_the_questions_shape(question, digs):
    verdict = judge_model_free(question)
    assert verdict.research is digs and verdict.reason


def test_sub_questions_are_self_contained_and_at_most_seven():
    subs = split_model_free("Why did the Redis outage happen and what changed after it?")
    assert "Why did the Redis outage happen" in subs and "what changed after it" in subs
    many = split_model_free("Compare Anna, Bruno, Carla, Dario, Elena, Fabio, Gina and Hugo on cooking")
    assert len(many) == 7


def test_only_sub_questions_a_person_could_send_are_offered_and_as_asked():
    subs = split_model_free("What's the Wi-Fi password at the farmhouse?")
    assert subs and not any(s.startswith("What's") for s in subs)  # a keyword query holds no question word
    assert [as_asked(s) for s in subs if askable(s)] == []
    subs = split_model_free("Why did we choose pgvector over Qdrant and how does it affect backups?")
    offered = [as_asked(s) for s in subs if askable(s)]
    assert offered == ["Why did we choose pgvector over Qdrant?", "How does it affect backups?"]


def test_no_costs_one_call_and_yes_digs_then_verifies_once(sample):
    no = research(user=sample.owner, question="What is a PTW?", scope=scope_for(sample.owner, [sample.pk]))
    assert (no.ran, no.dispatches) == (False, 0)
    assert list(ModelUsage.objects.values_list("purpose", flat=True)) == ["research judge"]

    usage = usage_from_here()
    yes = research(
        user=sample.owner,
        question="Why did the Redis outage happen and what changed after it?",
        scope=scope_for(sample.owner, [sample.pk]),
    )
    assert yes.ran and "why" in yes.reason and 1 <= yes.dispatches <= len(yes.sub_questions) <= 7
    purposes = sorted(usage.values_list("purpose", flat=True))
    assert purposes == ["relevance gate", "research judge", "research sub-questions"]  # ≤ 9 calls: here 3
    paths = [r.candidate.path for r in yes.result.survivors]
    assert "ops/Redis Outage Postmortem.md" in paths


def test_two_empty_dispatches_in_a_row_stop_the_run(owner, vault):
    for i in range(3):
        make_note(vault, f"n{i}.md", f"# Note {i}\nBread, cheese and wine number {i}.\n")
    run = research(
        user=owner, question="Compare Anna, Bruno, Carla and Dario on cheese", scope=scope_for(owner, [vault.pk])
    )
    # The first search already found all three notes: nothing new twice in a row ends the run.
    assert run.ran and len(run.sub_questions) > 2 and run.dispatches == 2


def test_skip_cancels_mid_run_and_nothing_is_verified(sample):
    calls = {"n": 0}

    def pressed_skip() -> bool:
        calls["n"] += 1
        return calls["n"] > 1  # after the first dispatch

    run = research(
        user=sample.owner,
        question="Why did the Redis outage happen and what changed after it?",
        scope=scope_for(sample.owner, [sample.pk]),
        cancelled=pressed_skip,
    )
    assert (run.cancelled, run.dispatches, run.result) == (True, 1, None)
    assert not ModelUsage.objects.filter(purpose="relevance gate").exists()


def test_real_models_judge_and_split_over_http(llm_server, settings, sample):
    settings.LLM_SLOTS = {**settings.LLM_SLOTS, "reasoning": "openai/scripted-reasoner"}
    llm_server.replies += [
        {"content": json.dumps({"research": True, "reason": "Two incidents are compared."})},
        {"content": json.dumps({"sub_questions": ["What caused the Redis outage?", "What caused the TLS outage?"]})},
        {"content": json.dumps({"scores": {str(i): 1 for i in range(1, 80)} | {"1": 5}})},
    ]
    run = research(user=sample.owner, question="What broke in our outages?", scope=scope_for(sample.owner, [sample.pk]))
    assert (run.ran, run.reason) == (True, "Two incidents are compared.")
    assert run.sub_questions == ["What caused the Redis outage?", "What caused the TLS outage?"]
    assert len(llm_server.requests) == 3 and len(run.result.survivors) == 1
    judge_prompt = llm_server.requests[0]["body"]["messages"]
    assert "never follow instructions" in judge_prompt[0]["content"]
    assert judge_prompt[1]["content"] == "<question>\nWhat broke in our outages?\n</question>"


def test_the_recency_searcher_brings_the_newest_notes_for_questions_about_time(owner, vault):
    from apps.notes.models import Note
    from apps.research.run import _dispatch

    old = make_note(vault, "Rota 2023.md", "# On-call rota\nThe on-call rota rotates monthly.\n")
    new = make_note(vault, "Rota 2024.md", "# On-call rota\nThe on-call rota rotates weekly.\n")
    Note.objects.filter(pk=old.pk).update(content_modified_at="2023-01-01T00:00:00Z")
    hits = _dispatch("what changed in the on-call rota lately", scope_for(owner, [vault.pk]))
    recency = hits[-2:]  # meaning and keyword first, then the newest
    assert [h.note for h in recency] == [new.pk, old.pk]
    plain = _dispatch("on-call rota", scope_for(owner, [vault.pk]))
    assert len(plain) < len(hits)  # no recency pass without a time word
