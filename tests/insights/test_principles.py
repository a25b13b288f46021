"""Discovered principles: a lesson stated in unrelated notes becomes a proposed principle with its evidence; the
vault's readers are notified; contributors confirm it (walks then go through it), correct it (refined) or reject
it (it fades, nothing deleted, never proposed again)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.graph.communities import communities_detect
from apps.graph.models import Dependency, Entity, WeightChange
from apps.graph.services import graph_extract_pending
from apps.graph.traversal import walk
from apps.insights.discover import principles_discover
from apps.insights.models import Evidence, Notification, Principle
from tests.corpora import CORPORA
from tests.factories import api, make_note, make_user, make_vault, scope_of, share
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db

NOTES = {
    "workshop/Bike Repair.md": "# Bike Repair\n\nRebuilt the rear wheel, see [[Wheel Truing]].\n\n"
    "Lesson: the small parts you never check are the ones that decide the ride.\n",
    "workshop/Wheel Truing.md": "# Wheel Truing\n\nSpoke tension by ear, then with the gauge.\n",
    "ops/TLS Postmortem.md": "# TLS Postmortem\n\nThe certificate chain was incomplete, see [[Nginx Config]].\n\n"
    "Lesson learned: small parts nobody checks decide whether the site stays up.\n",
    "ops/Nginx Config.md": "# Nginx Config\n\nOne server block per site.\n",
    "garden/Irrigation.md": "# Irrigation\n\nThe drip lines run at dawn, see [[Drip Lines]].\n\n"
    "Rule of thumb: the small parts you never check decide the harvest.\n",
    "garden/Drip Lines.md": "# Drip Lines\n\nFlush them in spring.\n",
    "kitchen/Pasta.md": "# Pasta\n\nI always cook pasta on Sundays.\n",
}


def _vault(owner):
    vault = make_vault(owner, "Notebook")
    for path, body in NOTES.items():
        make_note(vault, path, body)
    graph_extract_pending(vault_id=vault.pk)
    communities_detect(vault_id=vault.pk)
    return vault


def _subject(vault, title):
    return Entity.objects.get(vault=vault, kind="note", name=title)


def _through(vault, principle, start, end):
    paths, _ = walk(entry=[start.pk], scope=scope_of([vault.pk]), intent="relate", words=[])
    return [p for p in paths if principle.entity_id in p.entities and p.entities[-1] == end.pk]


def test_a_lesson_in_unrelated_notes_becomes_a_principle_its_readers_are_asked_about(owner):
    vault = _vault(owner)
    reader, outsider = make_user(), make_user()
    share(vault, "reader", user=reader)

    [principle] = principles_discover(vault_id=vault.pk)

    assert principle.status == "proposed" and principle.entity.kind == "principle"
    assert principle.statement.startswith("Across ")
    # Not Pasta: "always" alone is no shared lesson.
    assert {e.note.title for e in Evidence.objects.filter(principle=principle)} == {
        "Bike Repair",
        "TLS Postmortem",
        "Irrigation",
    }
    assert set(Notification.objects.filter(principle=principle).values_list("user__username", flat=True)) == {
        owner.username,
        reader.username,
    }
    assert principles_discover(vault_id=vault.pk) == []  # found once

    response = api(reader).get(f"/api/principles/?vault={vault.pk}")
    assert_matches_schema(response)
    listed = response.json()["principles"]
    assert [p["id"] for p in listed] == [principle.pk] and len(listed[0]["evidence"]) == 3
    assert api(outsider).get(f"/api/principles/?vault={vault.pk}").status_code == 404
    bad = api(reader).get("/api/principles/?vault=first")
    assert bad.status_code == 400 and "numeric id" in str(bad.json())
    assert api(outsider).post(f"/api/principles/{principle.pk}/", {"signal": "confirm"}).status_code == 404
    assert api(reader).post(f"/api/principles/{principle.pk}/", {"signal": "confirm"}).status_code == 403
    assert api(outsider).get("/api/notifications/").json()["notifications"] == []
    response = api(reader).get("/api/notifications/")
    assert_matches_schema(response)
    mine = response.json()["notifications"]
    assert [(n["principle"], n["title"], n["read"]) for n in mine] == [
        (principle.pk, "DesirePath noticed something", False)
    ]
    browser = Client()
    browser.force_login(reader)
    page = browser.get(f"/vaults/{vault.pk}/principles/").content.decode()
    assert principle.statement in page and "Confirm" not in page  # readers see it, contributors answer
    assert 'title="DesirePath noticed something">1<' in page  # every page's header counts what is unseen
    noticed = browser.get("/noticed/").content.decode()
    assert '<span class="badge">new</span>' in noticed  # marked new the time it is shown ...
    assert 'title="DesirePath noticed something"' not in noticed  # ... and seen from then on: the count clears
    assert '<span class="badge">new</span>' not in browser.get("/noticed/").content.decode()
    assert 'title="DesirePath noticed something"' not in browser.get(f"/vaults/{vault.pk}/principles/").content.decode()
    opened = api(reader).post(f"/api/notifications/{mine[0]['id']}/read/")
    assert opened.status_code == 200 and opened.json()["read"] is True
    assert_matches_schema(opened)


def test_a_confirmed_principle_is_walked_between_the_notes_it_spans(owner):
    vault = _vault(owner)
    [principle] = principles_discover(vault_id=vault.pk)
    bike, tls = _subject(vault, "Bike Repair"), _subject(vault, "TLS Postmortem")
    assert _through(vault, principle, bike, tls) == []  # proposed: below what walks follow

    reply = api(owner).post(f"/api/principles/{principle.pk}/", {"signal": "confirm"}, format="json")

    assert reply.status_code == 200 and reply.json()["status"] == "confirmed" and reply.json()["recorded"]
    assert_matches_schema(reply)
    edges = Dependency.objects.filter(source=principle.entity)
    assert edges.count() == 3 and all(e.confidence >= 0.7 and e.strength > 0.5 for e in edges)
    assert WeightChange.objects.filter(target="edge_confidence", target_id__in=[e.pk for e in edges]).count() == 6
    assert _through(vault, principle, bike, tls)  # bike → principle → postmortem
    again = api(owner).post(f"/api/principles/{principle.pk}/", {"signal": "confirm"}, format="json").json()
    assert again["recorded"] is False  # one answer per person and signal
    assert not Notification.objects.filter(principle=principle, user=owner, read_at__isnull=True).exists()


def test_a_correction_refines_the_principle_and_a_rejection_makes_it_fade(owner):
    vault = _vault(owner)
    [principle] = principles_discover(vault_id=vault.pk)
    url = f"/api/principles/{principle.pk}/"
    assert api(owner).post(url, {"signal": "correct"}, format="json").status_code == 400  # say what instead
    assert api(owner).post(url, {"signal": "applaud"}, format="json").status_code == 400
    first = principle.statement

    refined = api(owner).post(url, {"signal": "correct", "text": "Check the small parts first."}, format="json")

    assert refined.status_code == 200
    assert (refined.json()["status"], refined.json()["statement"]) == ("refined", "Check the small parts first.")
    assert refined.json()["previous"] == [first]
    assert Entity.objects.get(pk=principle.entity_id).name == "Check the small parts first."

    rejected = api(owner).post(url, {"signal": "reject"}, format="json")

    assert rejected.json()["status"] == "rejected"
    entity = Entity.objects.get(pk=principle.entity_id)
    assert entity.tier == "cold" and entity.strength < 0.5
    assert all(e.confidence < 0.4 for e in Dependency.objects.filter(source=entity))
    assert Evidence.objects.filter(principle=principle).count() == 3  # nothing deleted
    assert principles_discover(vault_id=vault.pk) == [] and Principle.objects.filter(vault=vault).count() == 1


def test_the_same_lesson_in_linked_notes_is_no_principle(owner):
    vault = make_vault(owner, "Linked")
    make_note(
        vault,
        "a/Bike Repair.md",
        "# Bike Repair\n\nSee [[Wheel Truing]].\n\nLesson: the small parts you never check decide the ride.\n",
    )
    make_note(
        vault, "a/Wheel Truing.md", "# Wheel Truing\n\nRule of thumb: small parts nobody checks decide the wheel.\n"
    )
    graph_extract_pending(vault_id=vault.pk)
    communities_detect(vault_id=vault.pk)

    assert principles_discover(vault_id=vault.pk) == []


def test_the_sample_vault_shows_a_principle_across_the_garden_and_the_job_queue(sample):
    graph_extract_pending(vault_id=sample.pk)
    communities_detect(vault_id=sample.pk)

    found = principles_discover(vault_id=sample.pk)

    notes = [{e.note.path for e in Evidence.objects.filter(principle=p)} for p in found]
    assert {"garden/Balcony Herbs.md", "engineering/Background Jobs with Celery.md"} in notes


LOGSEQ_PAGES = ("Changelog.md", "Changelog_07_09.md", "changelog_06.md", "Plugins 01.md", "Plugins 101.md")


def test_changelog_entries_of_the_logseq_docs_are_no_principles_and_statements_read_as_plain_text(owner):
    """A release's bullet ("Always show hamburger button [#7512](…)") names a change, it states no lesson; and
    the words of its link's address are no terms two unrelated notes share."""
    vault = make_vault(owner, "Logseq docs")
    for name in LOGSEQ_PAGES:
        make_note(vault, f"pages/{name}", (CORPORA / "logseq-docs" / "pages" / name).read_text(), embed=False)
    graph_extract_pending(vault_id=vault.pk)
    communities_detect(vault_id=vault.pk)

    found = principles_discover(vault_id=vault.pk)

    statements = [p.statement for p in found]
    sentences = list(Evidence.objects.filter(vault=vault).values_list("sentence", flat=True))
    assert not [s for s in statements + sentences if "](" in s or "[[" in s or "http" in s]
    assert not [s for s in sentences if re.search(r"#\d{3,}", s)]
    browser = Client()
    browser.force_login(owner)
    page = browser.get(f"/vaults/{vault.pk}/principles/").content.decode()
    assert "hamburger" not in page and "](" not in page


def test_a_lesson_written_with_links_is_stated_as_their_labels(owner):
    vault = make_vault(owner, "Linked lessons")
    for path, body in NOTES.items():
        make_note(vault, path, body.replace("the small parts", "the [small parts](https://example.org/parts)"))
    graph_extract_pending(vault_id=vault.pk)
    communities_detect(vault_id=vault.pk)

    [principle] = principles_discover(vault_id=vault.pk)

    assert "small parts" in principle.statement and "](" not in principle.statement
    assert "example.org" not in principle.statement
