"""The graph knows a conversation's structure — who speaks in a passage and which turn answers which — and the
`full` pipeline's scorer uses it: the turn that answers a question rises, a turn that only addresses the person
asked about falls."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

from apps.chat.models import ContextItem
from apps.evaluation import locomo
from apps.evaluation.corpus import write_conversation
from apps.graph.context import graph_context
from apps.graph.conversation import speakers_in
from apps.graph.models import DoorValue, Entity, Mention, Reply, WeightChange
from apps.graph.relevance import graph_features, graph_rater
from apps.graph.services import graph_extract_pending
from apps.notes.models import Chunk
from apps.notes.turns import SPEAKER, is_conversation, speakers
from apps.retrieval.candidates import load_chunks
from apps.retrieval.gate import local_ratings
from apps.vaults.scope import scope_for
from tests.corpora import CORPORA, VAULTS
from tests.factories import SAMPLE_VAULT, api, make_note, scope_of

pytestmark = pytest.mark.django_db

STAMP = "3:14 pm on 13 August, 2023"
TURNS = [
    ("Maria", "Guess what, John! I adopted a second puppy last week, a tiny black lab."),
    ("John", "Wow, Maria, how cute! What's her name? Does she get along with your other dog?"),
    ("Maria", "Her name is Shadow! She's full of energy and always puts a smile on my face."),
    ("John", "Cool, Maria! Tell me more about her next time, I have to run to the gym now."),
    ("Maria", "Sure thing. My volunteering at the shelter is going great as well."),
    ("John", "Glad to hear. The kids at school made me a card yesterday."),
    ("Maria", "That's sweet. The shelter needs more blankets before winter."),
    ("John", "I can bring some from the garage this weekend."),
    ("Maria", "Thanks! Also, the neighbours' cat keeps visiting our yard."),
    ("John", "Haha, your puppy must love that. I took the kids to the lake on Sunday."),
]


def conversation(vault):
    for number, (speaker, text) in enumerate(TURNS, start=1):
        make_note(vault, f"session_01/D1-{number}.md", f"{STAMP}: {speaker}: {text}\n")
    make_note(vault, "session_01/Notes.md", "# Notes\nMaria takes the puppy to Dr Alvarez in Leeds.\n")
    graph_extract_pending(vault_id=vault.pk)
    return {n: Chunk.objects.get(note__vault=vault, note__path=f"session_01/D1-{n}.md") for n in range(1, 11)}


def test_the_graph_records_who_speaks_and_which_turn_answers_which(vault):
    turns = conversation(vault)
    answers = dict(Reply.objects.filter(vault=vault).values_list("chunk_id", "answers_id"))
    # natural order: D1-10 follows D1-9 (not D1-1), every turn answers the one before it, the first answers none
    assert answers[turns[10].pk] == turns[9].pk and answers[turns[2].pk] == turns[1].pk
    assert turns[1].pk not in answers and len(answers) == 9  # the note that is no turn answers nothing
    said = {(m.entity.key, m.chunk_id): m.said for m in Mention.objects.filter(vault=vault).select_related("entity")}
    assert said[("maria", turns[3].pk)] is True  # Maria speaks in the third turn
    assert said[("maria", turns[2].pk)] is False  # John speaks to Maria in the second
    assert Entity.objects.get(vault=vault, key="john").kind == "person"  # named in the first turn, then spoke


def test_full_rates_the_answering_turn_up_and_a_mere_address_down(vault):
    turns = conversation(vault)
    question = "What is the name of Maria's second puppy?"
    notes = Chunk.objects.get(note__vault=vault, note__path="session_01/Notes.md")
    chunks = [c.pk for c in turns.values()] + [notes.pk]
    candidates = load_chunks(chunks=chunks, query_vector=None, scope=scope_of([vault.pk]))
    text = {r.candidate.chunk: r.probability for r in local_ratings(question, candidates)}
    graph = {r.candidate.chunk: r.probability for r in graph_rater(scope_of([vault.pk]))(question, candidates)}
    lift = {n: graph[turns[n].pk] / text[turns[n].pk] for n in turns}
    assert lift[3] > lift[5]  # both Maria's; the third answers "What's her name?", the fifth a goodbye
    assert graph[turns[4].pk] < text[turns[4].pk]  # "Cool, Maria!" from John: addressed, not said
    assert graph[notes.pk] == text[notes.pk]  # a passage nobody speaks in keeps the text scorer's estimate

    rows = load_chunks(chunks=[turns[3].pk, turns[4].pk, notes.pk], query_vector=None, scope=scope_of([vault.pk]))
    features = graph_features(question, rows, np.array([0.2, 0.5, 0.5]), scope_of([vault.pk]))
    assert features[0].tolist() == [1.0, 0.0, 0.0]  # Maria speaks (turn 2, which it answers, is no candidate here)
    assert features[1].tolist() == [0.0, 1.0, 0.2]  # John to Maria, answering turn 3
    assert features[2].tolist() == [0.0, 0.0, 0.0]  # a note about Maria nobody speaks in: neither said nor addressed

    result = graph_context(user=vault.owner, question=question, scope=scope_for(vault.owner, [vault.pk]))
    survivors = [r.candidate.chunk for r in result.survivors]
    assert turns[3].pk in survivors  # "Her name is Shadow!" reaches the answer


def test_a_confirmed_turn_opens_its_doors_to_the_turns_beside_it_at_half_a_hit(vault):
    turns = conversation(vault)
    reply = api(vault.owner).post(
        "/api/chat/", {"vaults": [vault.pk], "message": "What is the name of the puppy Maria adopted?"}, format="json"
    )
    item = ContextItem.objects.get(message_id=reply.json()["message"], chunk_id=turns[3].pk)
    vote = api(vault.owner).post("/api/feedback/", {"context_item": item.pk, "signal": "confirm"}, format="json")
    assert vote.status_code == 201 and item.trace["doors"] and item.trace["asks"] == "what"
    learned = DoorValue.objects.filter(vault=vault, intent="what")
    by_note = {(v.note_id, v.door): (v.helped, v.failed) for v in learned}
    for door in item.trace["doors"]:
        assert by_note[(turns[3].note_id, door)] == (1.0, 0.0)  # the confirmed turn: a hit
        assert by_note[(turns[2].note_id, door)] == (0.5, 0.0)  # the question it answers: half a hit
        assert by_note[(turns[4].note_id, door)] == (0.5, 0.0)  # the turn that answers it: half a hit
    assert {note for note, _ in by_note} == {turns[n].note_id for n in (2, 3, 4)}  # nothing further away
    beside = WeightChange.objects.filter(
        feedback_id=vote.json()["id"], target="door_value", reason__endswith="next to it)"
    )
    assert beside.count() == 2 * len(item.trace["doors"])  # each on the ledger

    item.refresh_from_db()
    api(vault.owner).post("/api/feedback/", {"context_item": item.pk, "signal": "not_relevant"}, format="json")
    assert DoorValue.objects.get(vault=vault, note_id=turns[2].note_id, door=item.trace["doors"][0]).failed == 0.0


def test_re_extracting_one_note_threads_it_into_its_conversation_at_once(vault):
    from apps.graph.tasks import reextract_notes

    turns = conversation(vault)
    later = make_note(vault, "session_01/D1-11.md", f"{STAMP}: Maria: Shadow says hi to the kids!\n")
    assert reextract_notes([later.pk]) == 1  # the Librarian's second look, or any single-note re-read
    added = Chunk.objects.get(note=later)
    assert Reply.objects.get(vault=vault, chunk=added).answers_id == turns[10].pk  # not left to the next sweep


LOCOMO_DEV = CORPORA.parent / "eval" / "locomo" / "dev.json"
LABELS = ("Evening", "Leaning", "Winter", "Lesson", "Checks", "Related", "Fix", "Power")


def test_a_label_that_opens_a_line_of_a_note_is_no_one_speaking(sample):
    # "Evening: [[Pasta e Ceci]], and an hour of scales." (a journal) and "Leaning: built-in OIDC client" (an options
    # note) open a line as a speaker does; the graph takes them for no person and no turn.
    people = set(Entity.objects.filter(vault=sample, kind="person").values_list("name", flat=True))
    assert people.isdisjoint(LABELS), people & set(LABELS)
    assert not Mention.objects.filter(vault=sample, said=True).exists()
    assert not Reply.objects.filter(vault=sample).exists()
    assert speakers_in([sample.pk]) == []


def test_turns_are_read_only_in_conversations_on_the_real_vaults():
    labelled = []
    for folder in [SAMPLE_VAULT, *(CORPORA / name for name in VAULTS)]:
        for path in sorted(folder.rglob("*.md")):
            text = path.read_text(encoding="utf-8", errors="replace")
            if any(SPEAKER.match(line.strip()) for line in text.splitlines()):
                labelled.append(path)
            assert not is_conversation(text), path
    assert len(labelled) >= 10  # labels that read like speaker lines are common in notes

    conversations = locomo.load(LOCOMO_DEV)[:1]
    for unit in ("turns", "sessions"):
        with tempfile.TemporaryDirectory() as folder:
            write_conversation(conversations[0], Path(folder), unit)
            notes = [p.read_text(encoding="utf-8") for p in Path(folder).rglob("*.md")]
            assert notes and all(is_conversation(text) for text in notes), unit


def test_a_transcript_in_a_meeting_note_is_a_conversation_and_its_list_of_labels_is_not(vault):
    make_note(
        vault,
        "meetings/Standup.md",
        "# Standup\n\nAgenda: releases\nOwner: Maren\nVenue: the small room\n\n"
        "## Transcript\n\nMaren: Is the release branch cut?\nTobias: Yesterday, after the smoke test.\n"
        "Maren: Then we ship on Friday.\n",
    )
    graph_extract_pending(vault_id=vault.pk)
    assert speakers_in([vault.pk]) == ["Maren", "Tobias"]
    assert not Entity.objects.filter(vault=vault, key__in=["agenda", "owner", "venue"], kind="person").exists()


def test_who_speaks_is_read_from_stamps_and_exchanges_not_from_numbered_labels():
    assert speakers("1:56 pm on 8 May, 2023: Caroline: Yes: I agree, it was lovely.") == {"Caroline"}
    assert speakers("Caroline: Yes: I went.\nMelanie: Nice!\nCaroline: Yes: twice.") == {"Caroline", "Melanie"}
    assert speakers("Day 2: Evening: pasta by the sea.\nStep 1: Install: the package.") == set()
    assert speakers("# Plan\n\nPros: fast\nCons: new\n\nSome prose.\n\nPros: cheap") == set()
