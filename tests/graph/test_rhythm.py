"""Temporal rhythm: a question confirmed at the same hour on several days burns in, and its context is ready
before the question at that hour (pre-warmed, read again through the permission filter); the edges that helped
learn the hour and weekday they helped at, lifting their paths then and only then."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from apps.chat.models import ContextItem, Message, PrewarmedContext, QuestionRhythm
from apps.chat.prewarm import burned_in, prewarm_hour, prewarmed_context, question_rhythm_record
from apps.chat.tasks import prewarm
from apps.graph.learning import MISS_WEIGHT
from apps.graph.models import RhythmValue, WeightChange
from apps.graph.services import graph_extract_pending
from apps.graph.traversal import walk
from apps.vaults.models import Vault
from apps.vaults.services import vault_unshare
from tests.factories import api, make_note, make_user, scope_of, share

pytestmark = pytest.mark.django_db

PTW = "What is a PTW and when do I need one?"


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """A moment in November 2026 (the 2nd is a Monday), in the deployment's time zone (UTC)."""
    return datetime(2026, 11, day, hour, minute, tzinfo=UTC)


class Clock:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = at(1, 0)
        monkeypatch.setattr(timezone, "now", lambda: self.now)

    def set(self, when: datetime) -> None:
        self.now = when


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch)


@pytest.fixture
def searches(monkeypatch):
    """Every fresh retrieval the chat runs (the pre-warmed path runs none)."""
    from apps.chat.services import chat

    asked: list[str] = []
    real = chat.context_steps

    def counting(**kwargs):
        asked.append(kwargs["question"])
        return real(**kwargs)

    monkeypatch.setattr(chat, "context_steps", counting)
    return asked


def ask(user, question, vaults=None):
    body = {"message": question, **({"vaults": vaults} if vaults else {})}
    response = api(user).post("/api/chat/", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def confirm(user, reply):
    item = reply["context"][0]["id"]
    vote = api(user).post("/api/feedback/", {"context_item": item, "signal": "confirm"}, format="json")
    assert vote.status_code == 201
    return vote.json()["id"]


def burn_in(clock, user, question, days, vaults=None, minute=5):
    replies = []
    for day in days:
        clock.set(at(day, 9, minute))
        replies.append(ask(user, question, vaults))
        confirm(user, replies[-1])
    return replies


def test_a_question_confirmed_at_nine_on_three_days_is_prewarmed_before_nine_and_used_then(sample, clock, searches):
    user = sample.owner
    burn_in(clock, user, PTW, [2, 3], vaults=[sample.pk])
    assert burned_in(at(5, 9)) == []  # two days are a coincidence
    last = burn_in(clock, user, PTW.upper(), [4], vaults=[sample.pk])[-1]  # the same question, however typed
    assert QuestionRhythm.objects.filter(user=user, hour=9).count() == 3
    assert [(u, v) for u, v, _, _ in burned_in(at(5, 9))] == [(user.pk, [sample.pk])]

    clock.set(at(5, 8, 50))
    asked_before = Message.objects.count()
    assert prewarm.apply().get() == 1  # the beat task, ten minutes before the hour
    ready = PrewarmedContext.objects.get(user=user, vault_ids=[sample.pk])
    assert (ready.ready_at, ready.expires_at) == (at(5, 8, 50), at(5, 10))
    assert Message.objects.count() == asked_before  # ready before anyone asked
    prepared = [item["chunk"] for item in ready.items]
    assert prepared and any(item["survived"] for item in ready.items)

    clock.set(at(5, 9, 12))
    searches.clear()
    reply = ask(user, "what is a PTW and when do I need one", [sample.pk])
    assert searches == []  # no fresh search: the context was ready
    assert reply["prewarmed"] is True and reply["research"]["prewarmed"] is True and reply["grounded"]
    assert [c["path"] for c in reply["context"]] == [c["path"] for c in last["context"]]
    rated = ContextItem.objects.filter(message_id=reply["message"], speculative=False).order_by("position")
    assert [i.chunk_id for i in rated] == prepared
    assert all(i.trace["prewarmed"] for i in rated)

    clock.set(at(5, 10, 5))  # the hour is over: searched as usual
    later = ask(user, PTW, [sample.pk])
    assert searches == [PTW] and later["prewarmed"] is False
    assert not ContextItem.objects.filter(message_id=later["message"], trace__prewarmed=True).exists()
    clock.set(at(5, 13, 50))
    assert prewarm_hour() == 0  # nothing burned in at two


def test_a_weekly_habit_burns_in_on_its_weekday_only(owner, vault):
    for day in (2, 9):  # two Mondays
        question_rhythm_record(user=owner, vault_ids=[vault.pk], question="Standup notes?", at=at(day, 9, 30))
        question_rhythm_record(user=owner, vault_ids=[vault.pk], question="standup notes", at=at(day, 9, 45))
    assert QuestionRhythm.objects.count() == 2  # one row a day and hour, however often it is confirmed
    assert [text for *_, text in burned_in(at(16, 9))] == ["Standup notes?"]  # the next Monday
    assert burned_in(at(17, 9)) == [] and burned_in(at(16, 10)) == []  # Tuesday; another hour
    assert burned_in(at(16, 9) + timedelta(days=28)) == []  # a habit that stopped: out of the window


def test_a_prewarmed_context_never_shows_a_vault_the_person_can_no_longer_read(owner, vault, clock, searches):
    reader = make_user("rhythm-reader")
    share(vault, "reader", user=reader)
    personal = Vault.objects.get(owner=reader, is_personal=True)
    make_note(vault, "Rota.md", "# Rota\nThe on-call rota rotates weekly on Mondays at nine.\n")
    make_note(personal, "My rota.md", "# My rota\nMy on-call rota week starts on Mondays.\n")
    question = "When does the on-call rota rotate?"
    burn_in(clock, reader, question, [2, 3, 4])  # every vault they read: their own and the shared one

    clock.set(at(5, 8, 50))
    prewarm_hour()
    both = sorted([personal.pk, vault.pk])
    ready = PrewarmedContext.objects.get(user=reader)
    assert ready.vault_ids == both
    shared_chunks = {i["chunk"] for i in ready.items if i["trace"] and _vault_of(i["chunk"]) == vault.pk}
    assert shared_chunks

    clock.set(at(5, 8, 55))
    usable = {
        "user": reader,
        "question": question,
        "scope": scope_of(both),
        "threshold": 3,
        "scoring": "local/model-free-scorer",
    }
    before = prewarmed_context(**usable)
    assert before is not None and shared_chunks <= {r.candidate.chunk for r in before.rated}
    assert any(r.candidate.vault == vault.pk for r in before.survivors)
    vault_unshare(actor=owner, vault=vault, user=reader)
    assert (
        prewarmed_context(**usable) is None
    )  # what survived the gate came from the vault they lost: searched afresh instead

    clock.set(at(5, 8, 58))
    prewarm_hour()  # run again: with the permissions they have now
    assert PrewarmedContext.objects.get(user=reader, vault_ids=[personal.pk]).items
    clock.set(at(5, 9, 10))
    searches.clear()
    reply = ask(reader, question)
    assert reply["prewarmed"] is True and searches == []
    assert reply["candidates"] and {c["vault"] for c in reply["candidates"]} == {personal.pk}


def _vault_of(chunk_id: int) -> int:
    from apps.notes.models import Chunk

    return Chunk.objects.get(pk=chunk_id).vault_id


def test_a_path_that_helps_at_nine_walks_first_at_nine_and_last_at_three(sample, clock):
    graph_extract_pending(vault_id=sample.pk)
    clock.set(at(2, 9, 5))  # a Monday
    reply = ask(sample.owner, "What happened in the Redis outage?", [sample.pk])
    walked = next(
        i for i in ContextItem.objects.filter(message_id=reply["message"]).order_by("position") if i.trace.get("edges")
    )
    clock.set(at(2, 11))  # rated later: what counts is when the path was walked
    vote = api(sample.owner).post("/api/feedback/", {"context_item": walked.pk, "signal": "confirm"}, format="json")
    assert vote.status_code == 201
    edges = walked.trace["edges"]
    learned = WeightChange.objects.filter(feedback_id=vote.json()["id"], target="rhythm_value")
    assert learned.count() == 3 * len(edges)  # each edge: its hour, its weekday and all times
    assert all((w.old, w.new) == (0.5, pytest.approx(2 / 3)) for w in learned)
    slots = set(RhythmValue.objects.filter(edge_id__in=edges).values_list("slot", flat=True))
    assert slots == {"h09", "d1", "all"}
    clock.set(at(4, 15, 5))  # a Wednesday afternoon: the same path does not help then
    later = ask(sample.owner, "What happened in the Redis outage?", [sample.pk])
    again = next(i for i in ContextItem.objects.filter(message_id=later["message"]) if i.trace.get("edges") == edges)
    miss = api(sample.owner).post("/api/feedback/", {"context_item": again.pk, "signal": "not_relevant"}, format="json")
    assert miss.status_code == 201

    def path_at(when):
        paths, _ = walk(
            entry=walked.trace["entities"][:1],
            scope=scope_of([sample.pk]),
            intent=walked.trace["intent"],
            words=[],
            at=when,
        )
        return next((p for p in paths if [s.edge for s in p.steps] == edges), None)

    odds = lambda hits, misses: (1 + hits) / (1 + misses * MISS_WEIGHT)  # noqa: E731 - Beta(1, 1) mean as odds
    at_nine = odds(1, 0) / odds(1, 1)  # a hit at nine, against a hit and a miss at all times
    at_three = odds(0, 1) / odds(1, 1)
    monday_nine, tuesday_nine = path_at(at(9, 9, 30)), path_at(at(10, 9, 30))
    saturday_seven, wednesday_three = path_at(at(7, 7)), path_at(at(11, 15, 30))
    assert monday_nine.rhythm == pytest.approx(at_nine ** (2 * len(edges)))  # its hour and its weekday
    assert tuesday_nine.rhythm == pytest.approx(at_nine ** len(edges))  # its hour only
    assert saturday_seven.rhythm == 1.0  # nothing learned then: neutral
    assert monday_nine.score > tuesday_nine.score > saturday_seven.score
    # On a Wednesday at three its first edge scores at_three² and falls out of the four edges followed per entity.
    assert wednesday_three is None
    first = walk(
        entry=walked.trace["entities"][:1],
        scope=scope_of([sample.pk]),
        intent=walked.trace["intent"],
        words=[],
        at=at(11, 15, 30),
    )[0]
    assert edges[0] not in {p.steps[0].edge for p in first}
    assert at_three**2 < 1 < at_nine**2
    assert saturday_seven.prior == monday_nine.prior  # only the learned part moved
