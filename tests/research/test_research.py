"""Deep research: the judge, sub-questions, dispatches with the early stop, Skip, and one verification call."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.llm.models import ModelUsage
from apps.research.planning import as_asked, askable, compared, judge_model_free, split_model_free
from apps.research.run import research, rewords
from apps.vaults.scope import scope_for
from tests.factories import api, make_note, usage_from_here

pytestmark = pytest.mark.django_db


def ask(user, message, vaults):
    response = api(user).post("/api/chat/", {"vaults": vaults, "message": message}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


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


@pytest.mark.parametrize(
    ("question", "plan"),
    [
        (
            "Which database did we use for search, Postgres or Elasticsearch, and why was it used?",
            ["Which database did we use for search, Postgres or Elasticsearch", "why was it used"],
        ),
        (
            "What did Caroline and Melanie talk about, and when did they meet?",
            ["What did Caroline and Melanie talk about", "when did they meet"],
        ),
        (
            "When is the on-call rota changing, who is on call next week and how do I swap a shift?",
            ["When is the on-call rota changing", "who is on call next week", "how do I swap a shift"],
        ),
        (  # a statement the question opens with stays with its question; "which broke the links" is no question
            "I moved the recipes, which broke the links, so how do I fix them and should I rename the folder?",
            ["I moved the recipes, which broke the links, so how do I fix them", "should I rename the folder"],
        ),
        (
            "is this vault meant to be followed strictly, or what's the thinking behind it?",
            ["is this vault meant to be followed strictly", "what's the thinking behind it"],
        ),
        # One question with a list in it: no clause is a question of its own ("How do my phone", "a passcode").
        ("How do I sync this vault between my laptop and my phone?", []),
        ("Can I lock the mobile app with Face ID or a passcode?", []),
        ("What values does the (between ...) filter take in a simple query, like -7d or today?", []),
        ("is it a good idea to split my notes into several workspaces, say work and personal?", []),
        ("foam lint exits with code 2, what does that mean?", []),
    ],
)
def test_a_plain_split_makes_a_step_of_each_whole_question_and_of_no_fragment(question, plan):
    assert split_model_free(question) == plan


def test_only_sub_questions_a_person_could_send_are_offered_and_as_asked():
    assert split_model_free("What's the Wi-Fi password at the farmhouse?") == []  # one subject: the search is the plan
    assert split_model_free("Why is the nightly import taking over an hour?") == []  # a quantity, no option
    subs = split_model_free("Why did we choose pgvector over Qdrant and how does it affect backups?")
    offered = [as_asked(s) for s in subs if askable(s)]
    assert offered == ["Why did we choose pgvector over Qdrant?", "How does it affect backups?"]


@pytest.mark.parametrize(
    ("question", "plan"),
    [
        (
            "Compare the Redis outage and the TLS outage: which lasted longer?",
            ["What about how long the Redis outage lasted?", "What about how long the TLS outage lasted?"],
        ),
        ("Which lasted longer, the Redis outage or the TLS outage?", None),  # the same plan
        ("Celery or Postgres: which is simpler?", ["How simple is Celery?", "How simple is Postgres?"]),
        (
            "Celery vs Postgres: which costs more?",
            ["What about how much Celery costs?", "What about how much Postgres costs?"],
        ),
        (
            "Compare Celery and Postgres: which one scales better?",
            ["What about how well Celery scales?", "What about how well Postgres scales?"],
        ),
        ("What is the difference between pgvector and Qdrant?", ["What about pgvector?", "What about Qdrant?"]),
        ("Redis vs Postgres for the queue", ["What about Redis for the queue?", "What about Postgres for the queue?"]),
        ("Why did we choose pgvector over Qdrant?", ["Why did we choose pgvector?", "Why not Qdrant?"]),
        ("Why Celery and not a Postgres queue?", ["Why Celery?", "Why not a Postgres queue?"]),
        ("Why did we move over to Celery instead of RQ?", ["Why did we move over to Celery?", "Why not RQ?"]),
    ],
)
def test_a_comparison_asks_its_question_of_each_thing_and_never_reshuffles_it(question, plan):
    subs = [as_asked(s) for s in split_model_free(question)]
    assert subs == (
        plan or ["What about how long the Redis outage lasted?", "What about how long the TLS outage lasted?"]
    )
    assert all(askable(s) for s in subs)


@pytest.mark.parametrize(
    "question",
    [
        "What did we decide about Redis vs Postgres?",  # a clause, not a thing, before "vs"
        "Which team, ops or data, owns backups?",
        "What is the difference between staging and production and who owns them?",
        "Tea or coffee at the offsite: who decides?",  # asks who decides, compares nothing
    ],
)
def test_a_question_that_only_says_or_or_vs_is_no_comparison(question):
    assert not compared(question)


@pytest.mark.parametrize(
    ("question", "plan"),
    [
        (
            "Which changed more, the API or the CLI?",
            ["What about how much the API changed?", "What about how much the CLI changed?"],
        ),
        (
            "Which scaled better, Redis or Postgres?",
            ["What about how well Redis scaled?", "What about how well Postgres scaled?"],
        ),
        (
            "Which one used more memory, Redis or Postgres?",
            ["What about how much memory Redis used?", "What about how much memory Postgres used?"],
        ),
        (
            "Which closed sooner, the bakery or the cafe?",
            ["What about how soon the bakery closed?", "What about how soon the cafe closed?"],
        ),
        (
            "Which database did we use for search, Postgres or Elasticsearch, and why was it used?",
            ["Which database did we use for search, Postgres or Elasticsearch?", "Why was it used?"],
        ),
        ("Compare how Redis and Postgres scaled", []),  # no clause of it is a question: its own search is the plan
    ],
)
def test_a_comparison_keeps_the_questions_verbs_as_written(question, plan):
    subs = [as_asked(s) for s in split_model_free(question)]
    assert subs == plan
    verbs = {"changed", "scaled", "used", "closed"} & set(question.split())
    assert all(verb in sub for sub in subs for verb in verbs)  # never "us", "scal", "clos"


def test_a_which_question_with_the_things_after_it_is_a_comparison_to_research():
    assert judge_model_free("Which lasted longer, the Redis outage or the TLS outage?").research


def test_a_sub_question_of_the_questions_own_words_is_a_rewording():
    question = "Why did we choose pgvector over Qdrant?"
    assert rewords("Qdrant choose pgvector", question) and rewords("choose pgvector Qdrant", question)
    assert not rewords("How long did the Redis outage last", "Compare the Redis outage and the TLS outage")


def test_a_comparison_finds_each_things_passage_and_the_answer_reads_both(sample):
    question = "Compare the Redis outage and the TLS outage: which lasted longer?"
    run = research(user=sample.owner, question=question, scope=scope_for(sample.owner, [sample.pk]))
    assert run.sub_questions == [
        "What about how long the Redis outage lasted",
        "What about how long the TLS outage lasted",
    ]
    first = [r.candidate.path for r in run.result.survivors[:2]]
    assert first == ["ops/Redis Outage Postmortem.md", "ops/TLS Misconfiguration Postmortem.md"]

    reply = ask(sample.owner, question, [sample.pk])
    sources = [item["path"] for item in reply["context"]]
    assert sources[:2] == first
    assert "[1]" in reply["answer"] and "25 minutes. [2]" in reply["answer"]  # both things' notes are read and cited
    assert reply["research"]["paths"] == [
        "What about how long the Redis outage lasted?",
        "What about how long the TLS outage lasted?",
    ]


def test_a_comparison_step_orders_its_things_passages_from_its_own_two_searches(sample):
    question = "Compare the Redis outage and the TLS outage: which lasted longer?"
    with CaptureQueriesContext(connection) as queries:
        run = research(user=sample.owner, question=question, scope=scope_for(sample.owner, [sample.pk]))
    searches = [q for q in queries.captured_queries if "fused AS" in q["sql"]]
    assert run.dispatches == 2 and len(searches) == 1 + 2 * run.dispatches  # the question's, then meaning and keyword
    first = [r.candidate.path for r in run.result.survivors[:2]]
    assert first == ["ops/Redis Outage Postmortem.md", "ops/TLS Misconfiguration Postmortem.md"]


def test_the_plan_shows_no_rewording_that_found_nothing_new(sample, monkeypatch):
    reworded = ["Qdrant choose pgvector", "choose pgvector Qdrant"]
    monkeypatch.setattr("apps.research.run.sub_questions", lambda text, **kw: list(reworded))
    reply = ask(sample.owner, "Why did we choose pgvector over Qdrant?", [sample.pk])
    assert reply["research"]["ran"] and (reply["research"]["dispatches"], reply["research"]["hidden"]) == (2, 2)
    assert reply["research"]["sub_questions"] == [] and reply["research"]["paths"] == []
    assert reply["context"][0]["path"] == "engineering/ADR-007 Choosing pgvector.md"


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
    # The first search already found all three notes: nothing new twice in a row ends the run. What the two found
    # was the question's own search, so the plan shows the two not dispatched only.
    assert run.ran and (run.dispatches, run.hidden) == (2, 2)
    assert run.sub_questions == ["What about Carla on cheese", "What about Dario on cheese"]


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
    from apps.llm.embeddings import embed_query
    from apps.notes.models import Note
    from apps.research.run import _dispatch

    old = make_note(vault, "Rota 2023.md", "# On-call rota\nThe on-call rota rotates monthly.\n")
    new = make_note(vault, "Rota 2024.md", "# On-call rota\nThe on-call rota rotates weekly.\n")
    Note.objects.filter(pk=old.pk).update(content_modified_at="2023-01-01T00:00:00Z")
    lately = "what changed in the on-call rota lately"
    hits = _dispatch(lately, embed_query(lately), scope_for(owner, [vault.pk])).hits
    recency = hits[-2:]  # meaning and keyword first, then the newest
    assert [h.note for h in recency] == [new.pk, old.pk]
    plain = _dispatch("on-call rota", embed_query("on-call rota"), scope_for(owner, [vault.pk])).hits
    assert len(plain) < len(hits)  # no recency pass without a time word
