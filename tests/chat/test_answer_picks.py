"""Feedback that reaches what was not shown: the asker points to the passage that answers their question, from any
note they can read, and questions near it in meaning bring it (only those, only for readers of its vault). Opening
a unit's note from the answer or copying answer text that cites it are automatic signals, once per unit."""

from __future__ import annotations

import pytest

from apps.chat.models import ContextItem, Message
from apps.feedback.models import Feedback
from apps.graph.models import QuestionValue, RatedQuestion, WeightChange
from apps.graph.services import graph_extract_pending
from apps.notes.models import Chunk
from apps.retrieval.trace import Trace
from tests.factories import api, make_note, make_user, share
from tests.graph.test_doors import _vault as _grafana_vault
from tests.graph.test_similar_questions import ASKED, ELSEWHERE, PARAPHRASE, _vault

pytestmark = pytest.mark.django_db
STEP = (1 + 0.001) / (2 + 0.001) - 0.5  # one automatic outcome on an unlearned value

STICKERS = "facilities/stickers.md"  # answers ASKED in words the question does not use
STICKERS_TEXT = (
    "# Stickers\n\nReception hands out the blue windscreen stickers; one lets you leave a vehicle in bay B.\n"
)


NEAR = [f"parking permits for car park level {level}" for level in range(1, 31)]  # all nearer the question


def _with_stickers(owner):
    vault = _vault(owner, more=NEAR)  # notes nearer the question's words than the one that answers it
    make_note(vault, STICKERS, STICKERS_TEXT)
    graph_extract_pending(vault_id=vault.pk)
    return vault


def _ask(user, vaults, question):
    reply = api(user).post("/api/chat/", {"vaults": [v.pk for v in vaults], "message": question}, format="json")
    assert reply.status_code == 200
    return reply.json()


def _stickers(vault):
    return Chunk.objects.get(note__vault=vault, note__path=STICKERS)


def _weighed(reply):
    return [item["path"] for item in reply["candidates"]]


def test_a_passage_search_missed_pointed_to_as_the_answer_is_weighed_for_a_similar_question_only(owner):
    vault = _with_stickers(owner)
    before = _ask(owner, [vault], PARAPHRASE)
    assert STICKERS not in _weighed(before)  # thirty notes nearer in words and meaning fill the candidates
    asked = _ask(owner, [vault], ASKED)
    assert STICKERS not in _weighed(asked)

    pick = api(owner).post("/api/feedback/answers/", {"message": asked["message"], "chunk": _stickers(vault).pk})
    assert pick.status_code == 201, pick.content
    vote = Feedback.objects.get(pk=pick.json()["id"])
    assert (vote.signal, vote.user_id, vote.context_item.path) == ("answers", owner.pk, STICKERS)
    ledger = WeightChange.objects.filter(feedback_id=vote.pk)
    assert {w.source for w in ledger} == {"feedback"}
    assert ledger.filter(target="question_value").count() == 1  # kept under the question that was asked
    doors = Trace.parse(vote.context_item.trace).doors  # the question's specific terms
    assert ledger.filter(target="door_value").count() == len(doors)  # and on its desire paths to the passage
    learned = QuestionValue.objects.get(question=RatedQuestion.objects.get(vault=vault, text=ASKED))
    assert (learned.helped, learned.failed) == (1.0, 0.0)

    again = api(owner).post("/api/feedback/answers/", {"message": asked["message"], "chunk": _stickers(vault).pk})
    assert again.status_code == 200 and again.json()["id"] == vote.pk  # pointing twice moves nothing twice
    assert WeightChange.objects.filter(feedback_id=vote.pk).count() == ledger.count()

    shown = api(owner).get(f"/api/conversations/{asked['conversation']}/").json()
    answer = shown["turns"][0]
    assert [p["path"] for p in answer["picked"]] == [STICKERS]  # shown apart, as the asker's pick

    after = _ask(owner, [vault], PARAPHRASE)
    assert STICKERS in _weighed(after)  # the reworded question now brings to the gate what search alone did not
    assert len(_weighed(after)) == len(_weighed(before)) + 1
    assert STICKERS not in _weighed(_ask(owner, [vault], ELSEWHERE))


def test_only_the_asker_points_and_only_to_passages_they_can_read(owner):
    vault = _vault(owner)
    hidden = _with_stickers(make_user("keeper"))
    reader = make_user("reader")
    share(vault, "reader", user=reader)
    asked = _ask(owner, [vault], ASKED)
    passage = Chunk.objects.filter(note__vault=vault).first()

    theirs = {"message": asked["message"], "chunk": passage.pk}
    assert api(reader).post("/api/feedback/answers/", theirs).status_code == 404
    unreadable = {"message": asked["message"], "chunk": _stickers(hidden).pk}
    assert api(owner).post("/api/feedback/answers/", unreadable).status_code == 404
    question = Message.objects.get(pk=asked["message"]).reply_to_id
    assert api(owner).post("/api/feedback/answers/", {"message": question, "chunk": passage.pk}).status_code == 404
    Message.objects.filter(pk=asked["message"]).update(status="running")
    refused = api(owner).post("/api/feedback/answers/", {"message": asked["message"], "chunk": passage.pk})
    assert refused.status_code == 400 and "not finished" in refused.json()["message"][0]
    item = ContextItem.objects.filter(message_id=asked["message"]).first()
    wrong_door = api(owner).post("/api/feedback/", {"context_item": item.pk, "signal": "answers"}, format="json")
    assert wrong_door.status_code == 400 and "/api/feedback/answers/" in wrong_door.json()["signal"][0]
    assert not Feedback.objects.exists() and not WeightChange.objects.exists()


def test_opening_or_copying_a_cited_unit_is_an_automatic_signal_once(owner):
    vault = _grafana_vault(owner)
    asked = _ask(owner, [vault], "What is Grafana used for?")
    unit = next(i for i in asked["context"] if Trace.parse(ContextItem.objects.get(pk=i["id"]).trace).doors)["id"]

    for signal in ("opened", "copied"):
        first = api(owner).post("/api/feedback/", {"context_item": unit, "signal": signal}, format="json")
        second = api(owner).post("/api/feedback/", {"context_item": unit, "signal": signal}, format="json")
        assert (first.status_code, second.status_code) == (201, 200)
        moved = WeightChange.objects.filter(feedback_id=first.json()["id"])
        assert {w.source for w in moved} == {"automatic"}
        assert {"door_value", "question_value"} <= {w.target for w in moved}
        assert all(0 < w.delta <= STEP * 1.001 for w in moved.filter(target="door_value"))  # a thousandth of a vote
        assert all(w.reason for w in moved)
    assert not WeightChange.objects.exclude(source="automatic").exists()
    assert Feedback.objects.filter(context_item_id=unit).count() == 2
