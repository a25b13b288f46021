"""A question the notes do not speak to gets the vault's fallback, even when a note shares an incidental word with it:
among notes, one far in meaning must carry half of the question's word weight to count as evidence. Questions the
notes answer in other words still find them. A passage that says nothing of its own (an empty journal bullet, a
page that only embeds a base) is never shown as context, however close its vector."""

from __future__ import annotations

import shutil

import pytest

from apps.retrieval.candidates import Candidate
from apps.retrieval.gate import says_something
from tests.chat.test_chat_api import ask
from tests.corpora import CORPORA
from tests.factories import import_folder, make_user, make_vault

pytestmark = pytest.mark.django_db

OFF_TOPIC = [
    "What is the melting point of tungsten?",  # "point": the pgvector decision record, the wikilink notes
    "Who won the 1998 football world cup?",
    "What is the boiling point of water at the top of Everest?",
    "What was our revenue in Q3 2024?",  # as close in meaning to the meeting notes as a real question can be
]


@pytest.mark.parametrize("question", OFF_TOPIC)
def test_an_off_topic_question_sharing_an_incidental_word_gets_the_fallback(sample, question):
    reply = ask(sample.owner, question, [sample.pk])
    assert reply["context"] == [] and reply["fallback"] == "explicit", [c["path"] for c in reply["context"]]


def test_questions_the_notes_answer_in_other_words_still_find_them(sample):
    oven = ask(sample.owner, "How hot should the oven be for the rosemary flatbread?", [sample.pk])
    assert "kitchen/focaccia.md" in [c["path"] for c in oven["context"]]
    permit = ask(sample.owner, "What is a PTW?", [sample.pk])
    assert permit["context"][0]["path"] == "ops/Permit to Work.md" and permit["fallback"] is None


LOGSEQ_PAGES = (
    "journals/2021_07_14.md",  # "- ": an empty bullet
    "journals/2021_07_19.md",  # "-"
    "journals/2021_03_01.md",
    "pages/Whiteboard___Tool___Connector.md",
    "pages/Whiteboard___Tool___Shape.md",
    "pages/Flashcards.md",
)
KEPANO_NOTES = ("Daily/2023-09-12.md", "Daily/2023-09-30.md", "Categories/Books.md", "References/Kyoto.md")


def _real_notes(tmp_path, vault_name, paths):
    for path in paths:
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CORPORA / vault_name / path, target)
    vault = make_vault(make_user(f"{vault_name}-owner"), vault_name)
    import_folder(vault, tmp_path, source=vault_name)
    return vault


def test_empty_journal_bullets_say_nothing_and_never_answer(tmp_path):
    vault = _real_notes(tmp_path, "logseq-docs", LOGSEQ_PAGES)
    for question in ("How many moons does Jupiter have?", "Who won the 1998 football world cup?"):
        reply = ask(vault.owner, question, [vault.pk])
        assert reply["context"] == [] and reply["fallback"] == "explicit", [c["path"] for c in reply["context"]]
    arrow = ask(vault.owner, "How do I draw an arrow between two shapes on the canvas?", [vault.pk])
    shown = [c["path"] for c in arrow["context"]]
    assert "pages/Whiteboard___Tool___Connector.md" in shown and not any(p.startswith("journals/") for p in shown)


def test_a_note_that_only_embeds_a_base_is_never_context(tmp_path):
    vault = _real_notes(tmp_path, "kepano-obsidian", KEPANO_NOTES)
    for question in ("What year did the Berlin Wall fall?", "How many pages does War and Peace have?"):
        reply = ask(vault.owner, question, [vault.pk])
        assert reply["context"] == [] and reply["fallback"] == "explicit", [c["path"] for c in reply["context"]]


@pytest.mark.parametrize(
    ("text", "properties", "says"),
    [
        ("-", "", False),
        ("- ", "", False),
        ("![[Daily.base]]", "", False),
        ("![[Map.base#Type]]\n![[Places.base#Type]]", "", False),
        ("![](../assets/demo.gif)", "", False),
        ("-", "title: Mar 1st, 2021", False),  # a journal page that only names its day
        ("![[Daily.base]]", "date: 2023-09-12\ncategories: Daily", True),
        ("- \n\n## Notes\n\n- ", "", True),  # a template's headings are its layout
        ("Connect any element on the canvas with a line.", "", True),
    ],
)
def test_what_a_passage_says_in_words_of_its_own(text, properties, says):
    candidate = Candidate(
        chunk=1,
        note=1,
        vault=1,
        path="n.md",
        title="2023-09-12",
        heading="",
        text=text,
        provenance="authored",
        rank=0,
        similarity=0.4,
        properties=properties,
    )
    assert says_something(candidate) is says
