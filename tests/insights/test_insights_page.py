"""The insights page and API: four top-5 lists read from what the worker prepared, never a model call while a
person waits; dismissing brings the next card up and a dismissed card returns only when its evidence changes."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from apps.insights.cards import cards_build, cards_write
from apps.insights.tasks import insights_daily
from apps.librarian.services import reenrich
from apps.llm.models import ModelUsage
from apps.notes.models import Note
from apps.notes.services.notes import note_update
from apps.vaults.models import Vault
from tests.factories import api, import_folder, make_note, make_user, share
from tests.insights.discovery_world import baking_and_deploys, metadata

pytestmark = pytest.mark.django_db
KINDS = ["actionability", "contradiction", "distance", "recency"]


def _lists(client, vault) -> dict[str, list[dict]]:
    response = client.get(f"/api/insights/?vault={vault.pk}")
    assert response.status_code == 200, response.content
    return {entry["kind"]: entry["cards"] for entry in response.json()["lists"]}


def _plans(folder: Path, count: int) -> None:
    folder.mkdir()
    for i in range(count):
        (folder / f"Plan {i}.md").write_text(
            f"# Plan {i}\n\nWe should settle item {i} of the migration.\n\n- [ ] ask team {i}\n- [x] done {i}\n"
        )


def test_the_page_with_many_notes_loads_without_a_single_model_call(llm_server, settings, vault, tmp_path):
    baking_and_deploys(vault)
    _plans(tmp_path / "plans", 400)
    import_folder(vault, tmp_path / "plans", follow_up=False)
    insights_daily(vault.pk)  # the worker's daily run, with the local defaults
    assert Note.objects.filter(vault=vault).count() > 400
    # From here any model call would reach the scripted server and leave a usage row.
    settings.LLM_SLOTS = {**settings.LLM_SLOTS, "reasoning": "openai/scripted-reasoner"}
    Vault.objects.filter(pk=vault.pk).update(chat_settings={"models": {"reasoning": "openai/scripted-reasoner"}})
    before, sent = ModelUsage.objects.count(), len(llm_server.requests)
    reader = make_user("page-reader")
    share(vault, "reader", user=reader)
    browser = Client()
    browser.force_login(reader)

    page = browser.get(f"/vaults/{vault.pk}/insights/")
    lists = _lists(api(reader), vault)

    assert page.status_code == 200
    html = page.content.decode()
    assert all(f'id="list-{kind}"' in html for kind in KINDS) and "Why am I seeing this?" in html
    assert {kind: len(cards) for kind, cards in lists.items()} == {
        "actionability": 5,
        "contradiction": 0,
        "distance": 5,
        "recency": 5,
    }
    card = lists["actionability"][0]
    assert card["narrative"] and card["why"] and card["evidence"][0]["url"] == f"/notes/{card['evidence'][0]['id']}/"
    assert ModelUsage.objects.count() == before and len(llm_server.requests) == sent
    assert f'href="/vaults/{vault.pk}/insights/"' in browser.get(f"/vaults/{vault.pk}/").content.decode()


def test_the_page_says_what_is_still_being_prepared(owner, vault):
    baking_and_deploys(vault)
    client = api(owner)
    first = client.get(f"/api/insights/?vault={vault.pk}").json()
    assert (first["built"], first["preparing"]) == (False, 0)
    browser = Client()
    browser.force_login(owner)
    assert "No insights yet" in browser.get(f"/vaults/{vault.pk}/insights/").content.decode()

    cards_build(vault_id=vault.pk)  # ranked, not narrated yet: nothing is shown half-written
    ranked = client.get(f"/api/insights/?vault={vault.pk}").json()
    assert ranked["built"] and ranked["preparing"] > 0 and all(not e["cards"] for e in ranked["lists"])
    assert "being written in the background" in browser.get(f"/vaults/{vault.pk}/insights/").content.decode()
    cards_write(vault_id=vault.pk)
    assert client.get(f"/api/insights/?vault={vault.pk}").json()["preparing"] == 0


def test_dismissing_brings_the_next_up_and_only_new_evidence_brings_it_back(owner, vault):
    baking_and_deploys(vault)
    insights_daily(vault.pk)
    reader = make_user("dismissing-reader")
    share(vault, "reader", user=reader)
    client = api(reader)
    shown = _lists(client, vault)["recency"]
    top = shown[0]

    response = client.post(f"/api/insights/cards/{top['id']}/", {"signal": "dismiss"}, format="json")
    assert response.status_code == 200 and response.json()["recorded"] is True
    after = _lists(client, vault)["recency"]
    assert [c["id"] for c in after[:4]] == [c["id"] for c in shown[1:]]  # the rest move up
    assert len(after) == 5 and after[4]["id"] not in {c["id"] for c in shown}  # the next one ranks up
    assert top["id"] in {c["id"] for c in _lists(api(owner), vault)["recency"]}  # others still see it

    insights_daily(vault.pk)
    reenrich(vaults=[vault], everything=True)  # metadata rewritten: not new evidence
    insights_daily(vault.pk)
    assert top["id"] not in {c["id"] for c in _lists(client, vault)["recency"]}

    note = Note.objects.get(pk=top["evidence"][0]["id"])
    note_update(actor=owner, note=note, body=note.body + "\nOne more thing changed.\n")
    insights_daily(vault.pk)
    back = _lists(client, vault)["recency"]
    assert back[0]["id"] == top["id"]  # changed text: back, and first by content time


def test_recency_follows_text_changes_never_metadata(owner, vault):
    baking, deploy = baking_and_deploys(vault)
    insights_daily(vault.pk)
    oldest = baking[0]
    assert _lists(api(owner), vault)["recency"][0]["evidence"][0]["id"] == deploy.pk
    reenrich(vaults=[vault], everything=True)
    Note.objects.filter(pk=oldest.pk).update(frontmatter={"touched": True})  # a metadata-only write to the row
    insights_daily(vault.pk)
    assert _lists(api(owner), vault)["recency"][0]["evidence"][0]["id"] == deploy.pk
    note_update(actor=owner, note=oldest, body=oldest.body + "\nFed twice on hot days.\n")
    insights_daily(vault.pk)
    assert _lists(api(owner), vault)["recency"][0]["evidence"][0]["id"] == oldest.pk


def test_answers_are_checked_and_scoped(owner, vault):
    baking_and_deploys(vault)
    insights_daily(vault.pk)
    card = _lists(api(owner), vault)["actionability"] or _lists(api(owner), vault)["recency"]
    card_id = card[0]["id"]
    outsider = make_user("insights-outsider")

    assert api(owner).post(f"/api/insights/cards/{card_id}/", {"signal": "love"}, format="json").status_code == 400
    assert (
        api(outsider).post(f"/api/insights/cards/{card_id}/", {"signal": "dismiss"}, format="json").status_code == 404
    )
    assert api(outsider).get(f"/api/insights/?vault={vault.pk}").status_code == 404
    assert api(owner).get("/api/insights/?vault=abc").status_code == 400
    accepted = api(owner).post(f"/api/insights/cards/{card_id}/", {"signal": "accept"}, format="json").json()
    assert (accepted["signal"], accepted["recorded"], accepted["blend"]) == ("accept", True, None)
    assert card_id not in {c["id"] for cards in _lists(api(owner), vault).values() for c in cards}


def test_a_tension_that_restates_another_notes_claim_is_a_contradiction(owner, vault):
    warm = make_note(vault, "Warm rise.md", "# Warm rise\n\nA warm counter rise gives the loaf its lift.\n")
    claim = "Proofing dough overnight in the fridge builds flavour."
    cold = make_note(vault, "Cold retard.md", f"# Cold retard\n\n{claim}\n")
    metadata(warm, "A warm counter rise gives the loaf its lift.", ["cooking and food"], ["fridge proofing overnight"])
    metadata(cold, claim, ["cooking and food"])
    insights_daily(vault.pk)

    (card,) = _lists(api(owner), vault)["contradiction"]
    assert {e["id"] for e in card["evidence"]} == {warm.pk, cold.pk}
    assert "fridge proofing overnight" in card["narrative"] and "Cold retard" in card["narrative"]
    assert "shares 3 terms" in card["why"]
