"""Transfer through similar questions: what a person rated for one question reaches the questions near it in
meaning (a paraphrase), and only those: a passage confirmed for one comes earlier, or comes at all, for the other; a
passage rejected for one is demoted for the other and nowhere else."""

from __future__ import annotations

from dataclasses import replace

import pytest

from apps.chat.models import ContextItem
from apps.graph.learning import Rates, rates_applied
from apps.graph.models import QuestionValue, RatedQuestion, WeightChange
from apps.graph.questions import question_priors
from apps.graph.services import graph_extract_pending
from apps.llm.embeddings import embed_query
from apps.vaults.scope import scope_for
from tests.factories import api, make_note, make_vault

pytestmark = pytest.mark.django_db

ASKED = "How do I get a permit to park my car at the office?"
PARAPHRASE = "What is the way to obtain a car parking permit for the office?"  # cosine 0.88 with ASKED (MiniLM)
WITH_FORM = "Which form gets me a permit to park my car at the office?"
ELSEWHERE = "When are the fire drills held?"  # cosine 0.14 with ASKED
TWIN = "Why was Priya's permit for her car refused by the office?"  # cosine 0.40 with ASKED: not near in meaning
TOPICS = [
    "parking permits",
    "car park spaces",
    "visitor parking",
    "the coffee machine",
    "plant watering",
    "fire drills",
    "badge access",
    "desk booking",
]
FORM = "facilities/form-7.md"


def _vault(owner, name="Ops", more=()):
    vault = make_vault(owner, name)
    for i, topic in enumerate([*TOPICS, *more]):
        make_note(vault, f"office/{i:02d}.md", f"# Office {i}\n\nThe team handles {topic} every week.\n")
    make_note(vault, FORM, "# Form 7\n\nFill in form 7 at the front desk; reception processes it on Mondays.\n")
    graph_extract_pending(vault_id=vault.pk)
    return vault


def _ask(user, vaults, question):
    reply = api(user).post("/api/chat/", {"vaults": [v.pk for v in vaults], "message": question}, format="json")
    assert reply.status_code == 200
    items = ContextItem.objects.filter(message_id=reply.json()["message"]).order_by("position")
    return {i.path: i for i in items}


def _vote(user, item, *signals):
    votes = [api(user).post("/api/feedback/", {"context_item": item.pk, "signal": s}, format="json") for s in signals]
    assert [v.status_code for v in votes] == [201] * len(signals)
    return votes


def _first(items):
    return min((i for i in items.values() if i.survived), key=lambda i: i.position).path


def test_a_passage_confirmed_for_a_question_comes_earlier_for_its_paraphrase(owner):
    vault = _vault(owner)
    before = _ask(owner, [vault], PARAPHRASE)
    # Far from the paraphrase in meaning and sharing none of its words, the form is no evidence: rated, not passed.
    assert not before[FORM].survived and before[FORM].position >= 3  # after the three notes on parking

    asked = _ask(owner, [vault], ASKED)
    votes = _vote(owner, asked[FORM], "confirm")
    votes += _vote(owner, _ask(owner, [vault], ASKED)[FORM], "used")  # asked again: one choice per passage shown
    question = RatedQuestion.objects.get(vault=vault)
    assert question.text == ASKED and len(question.embedding) == 384  # the vector search used
    learned = QuestionValue.objects.get(question=question)
    assert (learned.helped, learned.failed) == (2.0, 0.0)
    ledger = WeightChange.objects.filter(target="question_value", target_id=learned.pk).order_by("id")
    assert [w.feedback_id for w in ledger] == [v.json()["id"] for v in votes]  # every move on the ledger
    assert ledger.last().new == pytest.approx(learned.value)

    after = _ask(owner, [vault], PARAPHRASE)
    assert after[FORM].survived and after[FORM].position < before[FORM].position  # the question reworded gets it
    assert after[FORM].probability > before[FORM].probability
    elsewhere = _ask(owner, [vault], ELSEWHERE)
    assert _first(elsewhere) != FORM


def test_a_passage_search_does_not_bring_for_the_paraphrase_comes_as_a_candidate(owner):
    fillers = [f"car park {n} by the office, with spaces for visitors' cars" for n in range(40)]
    vault = _vault(owner, more=fillers)
    assert FORM not in _ask(owner, [vault], PARAPHRASE)  # not among the search's 30

    asked = _ask(owner, [vault], WITH_FORM)  # the word "form" brings it to this question
    assert FORM in asked, "the first question must show it to be rated"
    _vote(owner, asked[FORM], "confirm")

    after = _ask(owner, [vault], PARAPHRASE)
    assert FORM in after  # inherited from the question it helped


def test_a_passage_rejected_for_a_question_is_demoted_for_its_paraphrase_and_nowhere_else(owner):
    vault = _vault(owner)
    before, before_elsewhere = _ask(owner, [vault], PARAPHRASE), _ask(owner, [vault], ELSEWHERE)
    parking = "office/00.md"
    assert _first(before) == parking and parking in before_elsewhere

    asked = _ask(owner, [vault], ASKED)
    _vote(owner, asked[parking], "reject")
    learned = QuestionValue.objects.get(question__text=ASKED)
    assert (learned.helped, learned.failed) == (0.0, 0.25)  # a miss counts a quarter of a hit

    after = _ask(owner, [vault], PARAPHRASE)
    assert after[parking].probability < before[parking].probability  # shown as less likely to answer
    assert after[parking].position >= before[parking].position
    elsewhere = _ask(owner, [vault], ELSEWHERE)  # a question far from the one it was rejected for
    assert {p: (i.position, i.probability, i.survived) for p, i in elsewhere.items()} == {
        p: (i.position, i.probability, i.survived) for p, i in before_elsewhere.items()
    }


def _form_confirmed_parking_rejected(owner):
    """ASKED, with the form confirmed and the first parking note rejected: (form's chunk, parking's chunk, scope)."""
    vault = _vault(owner)
    asked = _ask(owner, [vault], ASKED)
    _vote(owner, asked[FORM], "confirm")
    _vote(owner, asked["office/00.md"], "reject")
    return asked[FORM].chunk_id, asked["office/00.md"].chunk_id, scope_for(owner, [vault.pk])


def test_with_doors_asked_for_a_near_question_passes_on_its_hits_only_through_a_shared_door(owner):
    form, parking, scope = _form_confirmed_parking_rejected(owner)
    vector = embed_query(PARAPHRASE)
    assert question_priors(vector=vector, scope=scope)[form] > 1.0  # a question without doors: near is enough

    with rates_applied(replace(Rates(), question_doors=1)):
        elsewhere = question_priors(vector=vector, scope=scope, doors=["drill"])
        through = question_priors(vector=vector, scope=scope, doors=["permit", "drill"])
    assert form not in elsewhere and through[form] > 1.0  # "permit" is a term both questions ask with
    assert elsewhere[parking] < 1.0 and through[parking] < 1.0  # a rejection demotes for every near question


def test_a_twin_sharing_three_doors_passes_on_what_it_taught_however_far_in_meaning(owner):
    form, parking, scope = _form_confirmed_parking_rejected(owner)
    vector = embed_query(TWIN)
    three = ["car", "offic", "permit"]  # the stems both questions ask with
    with rates_applied(replace(Rates(), question_twin_doors=0)):
        assert question_priors(vector=vector, scope=scope, doors=three) == {}  # too far in meaning to be near

    twin = question_priors(vector=vector, scope=scope, doors=three)
    two = question_priors(vector=vector, scope=scope, doors=["car", "permit", "drill"])
    assert twin[form] == pytest.approx(4.0)  # one confirm: odds 2, squared
    assert twin[parking] == pytest.approx((1 / 1.25) ** 2)  # a rejection counts a quarter of a hit, squared
    assert two == {}  # sharing two of the question's doors is no twin
