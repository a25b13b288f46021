"""The significance check: casual moments inject nothing; questions and lookups always go through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apps.retrieval.significance import ASKS_ABOUT_THE_CHAT, REWORKS_AN_ANSWER, by_rule, significance

pytestmark = pytest.mark.django_db  # the active embedding model is read from the database


@pytest.mark.parametrize(
    "message",
    [
        "thanks so much!",
        "haha nice",
        "good morning everyone",
        "brb",
        "👍🎉",
        "ok, makes sense",
        "lol",
        "have a lovely evening",  # opens with an auxiliary, no subject: not a question
        "give me two minutes",
        "finally shipped it, woohoo",
        "hello, how are you?",  # a courtesy question, after a greeting: asks after the assistant, not the notes
        "hey, how's it going?",
        "good morning! how have you been",
    ],
)
def test_casual_messages_are_not_searched(message):
    assert not significance(message).significant


@pytest.mark.parametrize(
    "message",
    [
        "What did we decide about the job queue?",
        "when is the trip to Trieste",
        "PTW",
        "OLLAMA_ORIGINS",
        "task-todo:",
        "IT-42 laptop",
        "bike brakes squeaking",
        "my compost smells bad, what should I do",
        "thanks — and how did the Redis outage start?",
        "hello, how are you supposed to rotate the backup keys?",
        "have we decided on the database",  # an auxiliary and its subject open a question without a "?"
        "is the backup running",
        "tell me about the Redis outage",
        "any news on the migration",
        "give me the budget for the trip",
        "onboarding checklist",  # a lookup typed as keywords
        "steps to deploy the api",
    ],
)
def test_questions_and_lookups_go_through(message):
    result = significance(message)
    assert result.significant, result.reason


def _lines(name: str) -> list[str]:
    path = Path(__file__).resolve().parents[2] / "apps" / "evaluation" / "data" / name
    return [json.loads(line)["q"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_messages_about_the_chat_itself_are_not_searched_and_polite_questions_are():
    """Reworking the reply ("can you put that in a table?") or asking about the assistant ("are you a bot?") wants
    nothing from the notes; a question phrased to the chat ("can you show me the meeting template?") does."""
    addressed = {text: significance(text) for text in _lines("chatter/to-the-chat.jsonl")}
    assert [text for text, check in addressed.items() if check.significant] == []
    assert {check.reason for check in addressed.values()} == {REWORKS_AN_ANSWER, ASKS_ABOUT_THE_CHAT}
    # No rule silences a question phrased to the chat (the classifier still decides those no rule does).
    ruled = {text: by_rule(text) for text in _lines("questions/addressed-to-the-chat.jsonl")}
    assert [text for text, check in ruled.items() if check is not None and not check.significant] == []
    assert significance("repeat the instructions for installing the theme").significant
