"""A question the notes do not speak to gets the vault's fallback, even when a note shares an incidental word with it:
among notes, one far in meaning must carry half of the question's word weight to count as evidence. Questions the
notes answer in other words still find them."""

from __future__ import annotations

import pytest

from tests.chat.test_chat_api import ask

pytestmark = pytest.mark.django_db

OFF_TOPIC = [
    "What is the melting point of tungsten?",  # "point": the pgvector decision record, the wikilink notes
    "Who won the 1998 football world cup?",
    "What is the boiling point of water at the top of Everest?",
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
