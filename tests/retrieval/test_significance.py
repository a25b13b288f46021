"""The significance check: casual moments inject nothing; questions and lookups always go through."""

from __future__ import annotations

import pytest

from apps.retrieval.significance import significance

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
