"""Which messages are read as follow-ups, what they carry of the question before them, and what the answer written
without a model reads them as."""

from __future__ import annotations

from apps.chat.services.answering import Source, lead
from apps.chat.services.followups import needs_context, read_as, resolve


def test_a_thing_that_is_always_of_something_asked_for_alone_is_a_follow_up():
    for message in (
        "What was the root cause?",
        "Who is the owner?",
        "What were the lessons learned?",
        "Who wrote the postmortem?",
    ):
        assert needs_context(message), message
    for message in (
        "What was the root cause of the TLS outage?",
        "What were the lessons learned from the migration?",
        "Who wrote the postmortem for the TLS outage?",
        "Where is the postmortem template?",
        "When is the next retro?",
        "Where do I file the expense report?",
    ):
        assert not needs_context(message), message


def test_a_follow_up_asking_its_own_question_carries_what_the_earlier_one_was_about():
    assert resolve("and who wrote it up?", ["What was the root cause of the Redis outage?"]) == (
        "What was the Redis outage? and who wrote it up?"
    )
    # One that asks the earlier question of another thing carries it whole: "the owner" is what it asks again.
    assert resolve("And the payments service?", ["Who is the owner of the billing service?"]) == (
        "Who is the owner of the billing service? And the payments service?"
    )
    assert resolve("what about the Postgres migration?", ["What is the status of the Kafka migration?"]) == (
        "What is the status of the Kafka migration? what about the Postgres migration?"
    )


def test_the_offline_answer_reads_a_follow_up_for_its_own_words_its_subject_telling_close_sentences_apart():
    resolved = resolve("When did he join?", ["Who leads the platform team?"])
    asked, subject = read_as("When did he join?", resolved)
    assert (asked, subject) == ("When did he join?", "Who leads the platform team?")
    team = Source(
        number=1,
        path="team.md",
        text="Maria leads the design team. She joined in March 2021. Tobias leads the platform team. He joined the "
        "platform team in May 2019.",
        provenance="authored",
    )
    assert lead(asked, [team], subject).text == "May 2019"
    assert lead(asked, [team]).text == "March 2021"  # without its subject, the first of two as close sentences
    # A follow-up with no words of its own is read as resolved.
    assert read_as("and before that?", "Who leads the platform team? and before that?") == (
        "Who leads the platform team? and before that?",
        "",
    )
