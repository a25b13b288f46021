"""A question that puts one person's deed in another's mouth gets the vault's fallback and the reason, not the
other person's deed as an answer; the same question about the one who did it is answered."""

from __future__ import annotations

import pytest

from apps.chat.services.answering import Source, misattribution
from tests.chat.test_chat_api import ask
from tests.factories import make_note

pytestmark = pytest.mark.django_db

TURNS = [
    "Melanie: Hey Caroline! I ran a charity race for mental health last Saturday. It made me realize that "
    "self-care is really important.",
    "Caroline: That's awesome, Mel! I went to an LGBTQ support group yesterday and it was so powerful.",
    "Melanie: Wow, how brave of you. What was the group like?",
    "Caroline: The transgender stories were so inspiring. I'm going to keep going every week.",
]


@pytest.fixture
def chat_vault(vault):
    for number, turn in enumerate(TURNS, start=1):
        make_note(vault, f"session_01/D1-{number}.md", f"1:56 pm on 8 May, 2023: {turn}\n")
    return vault


def test_a_deed_put_in_the_other_speakers_mouth_gets_the_fallback_and_the_reason(chat_vault):
    reply = ask(chat_vault.owner, "What did Caroline realize after her charity race?", [chat_vault.pk])

    assert (reply["grounded"], reply["fallback"]) == (False, "explicit")
    race = next(item["citation"] for item in reply["context"] if item["path"] == "session_01/D1-1.md")
    assert reply["answer"].startswith(f"Nothing in your notes says Caroline did that; Melanie did [{race}].")
    assert "Nothing in Team vault answers this." in reply["answer"]
    assert "self-care" not in reply["answer"]


def test_the_same_deed_asked_of_the_one_who_did_it_is_answered(chat_vault):
    reply = ask(chat_vault.owner, "What did Melanie realize after her charity race?", [chat_vault.pk])

    assert (reply["grounded"], reply["fallback"]) == (True, None)
    race = next(item["citation"] for item in reply["context"] if item["path"] == "session_01/D1-1.md")
    assert reply["answer"].startswith(f"**I ran a charity race for mental health last Saturday.** [{race}]")
    assert "Nothing in your notes says" not in reply["answer"]


def test_what_a_turn_says_to_the_one_it_addresses_is_said_of_them():
    said_to = Source(
        number=1,
        path="session_01/D2-5.md",
        text="2:10 pm on 9 May, 2023: Melanie: Caroline, you ran the charity race in record time!",
        provenance="authored",
    )
    people = ["Caroline", "Melanie"]  # who speaks in the notes searched, as the graph recorded it
    assert misattribution("How fast did Caroline run the charity race?", [said_to], people) is None
    wrong = misattribution("How fast did Melanie run the charity race?", [said_to], people)
    assert wrong is not None and wrong.reason == "Nothing in your notes says Melanie did that; Caroline did [1]."
