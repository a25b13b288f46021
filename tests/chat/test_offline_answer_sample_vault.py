"""The offline answer's lead on the sample vault, asked through the chat API as a person would: the span of the kind
the question asks for, read from the sentence that holds one, not a number out of a date or a clock time, a month for
a person, or a sentence announcing a list without its items."""

from __future__ import annotations

import re

import pytest

from tests.factories import api

pytestmark = pytest.mark.django_db


def _lead(vault, question: str) -> str:
    reply = api(vault.owner).post("/api/chat/", {"vaults": [vault.pk], "message": question}, format="json")
    assert reply.status_code == 200 and reply.json()["grounded"], reply.content
    found = re.match(r"\*\*(.+?)\*\* \[\d", reply.json()["answer"])
    assert found, reply.json()["answer"]
    return found.group(1)


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("How long does the focaccia bake?", "22 to 25 minutes"),  # not "18" out of "Start at 18:00"
        ("How much did the tubeless conversion cost?", "38 €"),  # a table row holds it; not "20" out of "20 April"
        ("Who signs off on work in the electrical room?", "Herr Brandt"),  # not "March" out of "18 March 2024"
        ("How much flour goes into the focaccia?", "500 g"),  # not "20 minutes" of rest
        ("How long did the Redis outage last?", "1 hour 53 minutes"),  # "Duration: …", not the incident's number
        ("How often is the backup restore tested?", "Quarterly"),  # its "Restore test"; not "the last one", "nightly"
        ("Who wrote the Redis outage postmortem?", "Tobias Kell"),  # "Author:" in its note, not a retro's "Maren"
        ("When was the Redis outage?", "2 May 2024"),  # the postmortem's own "Date:", not the retro's "from 2 May"
        ("Who vetoed the cold brew setup for the office?", "Adaeze"),  # the sentence after the closest says it
        ("How do I make Ollama listen on the LAN instead of localhost?", 'Environment="OLLAMA_HOST=0.0.0.0:11434"'),
        ("Who decided on the job queue?", "Priya Raman and Maren Vogt"),  # "Decided by: Priya Raman and Maren Vogt."
        ("Who facilitated the May retro?", "Adaeze"),  # "Facilitator: Adaeze.": "facilitated" and it share a stem
        ("Which embedding model did we pick?", "nomic-embed-text, decided 14 March 2024."),  # under "Decision for v1"
        ("Which job queue did we choose?", "Celery with Redis."),  # its "## Decision", not an option it weighed
        ("What did ADR-004 decide?", "The Markdown files on disk are canonical."),  # not an index line naming it
        ("What did we decide about Kubernetes?", "Kubernetes: explicitly not in v1."),  # the one of two asked about
        (
            "What did we decide in the architecture sync?",
            "Decisions: Task-line convention: accepted; Kubernetes: explicitly not in v1.",
        ),
        ("What tomato varieties are we growing?", "Variety: Sungold; San Marzano; Black Krim; Latah."),  # the column
        ("What temperature for the focaccia?", "220 °C"),  # in the focaccia's note, not a note that says the words
        ("Who is on the on-call rotation?", "Tobias, Priya, Maren, Jun"),  # not the Ops Handbook's maintainer
        ("Who is on call this week?", "Tobias, Priya, Maren, Jun"),  # not the Ops Handbook an index line describes
        ("Why did we choose pgvector instead of Qdrant?", "An extension to the Postgres we already run."),  # not Qdrant
        ("When is the v1 release date?", "Agreed: release candidate on 16 September, release on 30 September."),
        ("What is in rack unit U10?", "Units: U10 · Device: NAS · Notes: local backup target, 4 × 8 TB"),  # its row
    ],
)
def test_the_lead_is_the_span_the_question_asks_for(sample, question, lead):
    assert _lead(sample, question) == lead


def test_an_exception_that_names_what_is_asked_about_leads_before_the_rule(sample):
    lead = _lead(sample, "Do I need a permit to swap a disk in the server rack?")
    assert lead.startswith("Not needed for:") and "swapping a disk in a hot-swap bay" in lead  # not the power rule


def test_a_sentence_that_announces_a_list_leads_with_its_items(sample):
    lead = _lead(sample, "Which alerts page the on-call person at night?")
    assert lead.startswith("Only three alerts page at night:")
    assert "API health check failing" in lead and "Backup job failed two nights in a row" in lead
    reply = api(sample.owner).post(
        "/api/chat/", {"vaults": [sample.pk], "message": "How many alerts page at night?"}, format="json"
    )
    answer = reply.json()["answer"]
    assert answer.startswith("**three** [1]")
    assert "- Only three alerts page at night: API health check failing" in answer  # the bullet keeps its items too


def test_a_bold_label_is_no_lead_and_two_dates_keep_their_words(sample):
    # "- **Release date.** Adaeze proposed … Agreed: release candidate on 16 September, release on 30 September."
    lead = _lead(sample, "When is the release date?")
    assert lead != "Release date." and "release on 30 September" in lead


def test_a_list_under_a_heading_the_question_names_is_the_lead(sample):
    lead = _lead(sample, "What are the ingredients for focaccia?")  # "## Ingredients" over the recipe's list
    assert lead.startswith("Ingredients: 500 g bread flour; 400 g water")
    assert "rosemary" in lead


def test_a_question_no_sentence_shares_a_word_with_gets_the_closest_passages_and_no_lead(sample):
    reply = api(sample.owner).post(
        "/api/chat/",
        {"vaults": [sample.pk], "message": "how hot should the oven be for the rosemary flatbread"},
        format="json",
    )
    answer = reply.json()["answer"]
    assert answer.startswith("Nothing found says this in so many words. The closest passages in your notes:")
    assert "**" not in answer  # nothing is claimed: "Start at 18:00 …" shares no word with the question


def test_who_is_answered_by_nobody_a_number_word_or_a_label_names(sample):
    lead = _lead(sample, "who is on call and how do handovers work")
    assert lead == "Tobias, Priya, Maren, Jun"  # the rota in On-call Rotation, not "One", "Compensation"


def test_the_sentence_under_the_heading_the_question_names_leads(sample):
    # "## Known issue: large pages hang" opens the chunk, so the chunk's text lacks it; its sentences stand under it.
    reply = (
        api(sample.owner)
        .post(
            "/api/chat/",
            {"vaults": [sample.pk], "message": "How do I fix large pages hanging on the VPN?"},
            format="json",
        )
        .json()
    )
    assert reply["answer"].startswith("**Setting MTU = 1380 in the interface section")  # not "Longer term the VPN …"
    # The source says which section it was read from; the note's title is no section.
    setup = [item for item in reply["context"] if item["path"] == "ops/Laptop and VPN Setup.md"]
    assert setup and setup[0]["section"] == "Known issue: large pages hang"
    assert all(item["section"] != item["title"] for item in reply["context"])


def test_the_recipe_is_quoted_for_how_to_make_it_and_its_temperature_is_the_lead(sample):
    reply = (
        api(sample.owner)
        .post("/api/chat/", {"vaults": [sample.pk], "message": "How do I make focaccia?"}, format="json")
        .json()
    )
    assert "[[" not in reply["answer"]
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", reply["answer"])}
    recipe = [item["citation"] for item in reply["context"] if item["path"] == "kitchen/focaccia.md"]
    assert recipe and set(recipe) & cited  # the recipe is quoted, not only notes that mention focaccia
    assert _lead(sample, "What temperature do I bake the focaccia at?") == "220 °C"


def test_a_follow_up_asking_who_wrote_the_postmortem_reads_the_incident_asked_about(sample):
    first = api(sample.owner).post(
        "/api/chat/", {"vaults": [sample.pk], "message": "What happened in the Redis outage?"}, format="json"
    )
    assert first.status_code == 200, first.content
    body = {"vaults": [sample.pk], "message": "Who wrote the postmortem?", "conversation": first.json()["conversation"]}
    reply = api(sample.owner).post("/api/chat/", body, format="json")
    assert reply.status_code == 200, reply.content
    assert reply.json()["answer"].startswith("**Tobias Kell** [")  # not "Ghost", out of "Ghost notes are …"


def test_who_decided_is_read_from_the_byline_of_the_note_whose_later_section_was_found(sample):
    reply = api(sample.owner).post(
        "/api/chat/", {"vaults": [sample.pk], "message": "Who decided to use pgvector?"}, format="json"
    )
    body = reply.json()
    adr = next(item for item in body["context"] if item["path"] == "engineering/ADR-007 Choosing pgvector.md")
    # the passage found is the decision itself; the note's byline under its title travels with it
    assert "Decided by" not in adr["text"]
    assert adr["byline"].startswith("**Date:** 20 February 2024. **Decided by:** Maren Vogt")
    n = adr["citation"]
    assert body["answer"].startswith(f"**Maren Vogt** [{n}]")
    assert f"- Decided by: Maren Vogt, after a two-week spike by Priya Raman. [{n}]" in body["answer"]


def test_a_span_is_quoted_with_the_sentence_it_was_read_from(sample):
    reply = api(sample.owner).post(
        "/api/chat/", {"vaults": [sample.pk], "message": "Who facilitated the May retro?"}, format="json"
    )
    answer = reply.json()["answer"]
    n = next(i["citation"] for i in reply.json()["context"] if i["path"] == "meetings/2024-05-07 Retro.md")
    # not the retro's sentence closest to the question, "Sprint retro plus the review of INC-2041 …"
    assert answer.startswith(f"**Adaeze** [{n}]\n\nFrom your notes:\n\n- Facilitator: Adaeze. [{n}]"), answer


def _answer(vault, question: str) -> str:
    reply = api(vault.owner).post("/api/chat/", {"vaults": [vault.pk], "message": question}, format="json")
    assert reply.status_code == 200 and reply.json()["grounded"], reply.content
    return reply.json()["answer"]


def test_a_note_date_is_no_answer_to_when_something_happens_as_a_rule(sample):
    answer = _answer(sample, "When does the weekly review happen?")
    assert "20 February 2024" not in answer and "weekly architecture sync" in answer  # the ADR's date is its own


def test_a_number_that_counts_something_else_is_no_count(sample):
    answer = _answer(sample, "How many units does the rack have?")
    assert not re.match(r"\*\*(?:One|two)\*\*", answer), answer  # "One 24U rack" counts racks, "two PDUs" PDUs


def test_a_passage_carries_what_its_note_decided(sample):
    reply = api(sample.owner).post(
        "/api/chat/", {"vaults": [sample.pk], "message": "Which job queue did we choose?"}, format="json"
    )
    adr = [c for c in reply.json()["context"] if c["path"] == "engineering/ADR-009 Job Queue.md"]
    (opening,) = [c for c in adr if "Celery with Redis." not in c["text"]]  # its decision section may pass beside it
    assert opening["decision"].startswith("Celery with Redis.")
