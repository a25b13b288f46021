"""Fertile collisions: distant notes sharing a bridging domain, judged in one budgeted call, verdicts that expire
with their notes' text (never with their metadata), and blends filed as proposals in the accepter's personal
vault."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from apps.insights.blends import LOCAL_BLENDER
from apps.insights.cards import cards_build, cards_write
from apps.insights.collisions import LOCAL_JUDGE, collision_candidates, collisions_current, collisions_judge
from apps.insights.models import Blend, Card, CardKind, Collision
from apps.insights.tasks import blend_write_task, insights_daily
from apps.librarian.services import reenrich
from apps.llm.models import ModelUsage
from apps.notes.models import Note, Provenance
from apps.notes.services.chunks import chunks_embed_pending
from apps.notes.services.notes import note_update
from apps.vaults.models import Vault
from tests.factories import api, make_user, share
from tests.insights.discovery_world import DOMAIN, baking_and_deploys, metadata

pytestmark = pytest.mark.django_db


def test_only_distant_pairs_sharing_a_domain_collide(vault):
    _, deploy = baking_and_deploys(vault)
    candidates = collision_candidates(vault.pk)

    # Baking notes share the domain with each other too, but sit close in meaning: only the far pairs collide.
    assert candidates and all(deploy.pk in (c.a.note_id, c.b.note_id) for c in candidates)
    assert all(c.domains == [DOMAIN] for c in candidates)
    assert [c.distance for c in candidates] == sorted((c.distance for c in candidates), reverse=True)
    metadata(deploy, deploy.metadata.core_claim, ["software architecture"])  # no domain in common any more
    assert collision_candidates(vault.pk) == []


def test_a_verdict_expires_when_a_notes_text_changes_and_never_with_its_metadata(owner, vault):
    baking, deploy = baking_and_deploys(vault)
    judged = collisions_judge(vault_id=vault.pk)
    assert judged and all(c.fertile and c.model == LOCAL_JUDGE for c in judged)
    standing = {c.pk: c.judged_at for c in collisions_current(vault.pk)}
    assert set(standing) == {c.pk for c in judged}
    times = dict(Note.objects.filter(vault=vault).values_list("pk", "content_modified_at"))

    reenrich(vaults=[vault], everything=True)  # the Librarian rewrites every note's metadata
    Note.objects.get(pk=deploy.pk).save()  # and a save of the row that leaves its text as it was

    assert dict(Note.objects.filter(vault=vault).values_list("pk", "content_modified_at")) == times
    assert {c.pk: c.judged_at for c in collisions_current(vault.pk)} == standing  # every verdict stands
    calls = ModelUsage.objects.filter(purpose="collision verdicts").count()
    for note, (claim, domains) in [(n, (n.metadata.core_claim, [DOMAIN])) for n in [*baking, deploy]]:
        metadata(note, claim, domains)  # the same candidates as before the re-enrichment
    assert collisions_judge(vault_id=vault.pk) == []  # nothing to ask again: no call
    assert ModelUsage.objects.filter(purpose="collision verdicts").count() == calls

    partner = next(c for c in judged if c.note_a_id != deploy.pk).note_a_id
    note_update(actor=owner, note=deploy, body=deploy.body + "\nA canary that fails rolls itself back.\n")
    assert collisions_current(vault.pk).count() == 0  # every verdict about the deploy note expired
    chunks_embed_pending(vault_id=vault.pk)  # its new text embedded, as the worker does after an edit
    again = collisions_judge(vault_id=vault.pk)
    assert {(c.note_a_id, c.note_b_id) for c in again} >= {(partner, deploy.pk)}  # asked again, once
    assert Collision.objects.filter(note_a_id=partner, note_b_id=deploy.pk).count() == 1
    fresh = Note.objects.get(pk=deploy.pk)
    assert all(c.hash_b == fresh.content_hash and c.content_at_b == fresh.content_modified_at for c in again)


def test_one_batched_scoring_call_within_the_budget_and_a_garbled_verdict_falls_back(llm_server, vault):
    baking_and_deploys(vault)
    reply = {"verdicts": [{"pair": 1, "fertile": False, "why": "Bread and deploys share only a word."}, {"pair": 2}]}
    llm_server.replies.append({"content": "Sure! " + json.dumps(reply)})

    judged = collisions_judge(vault_id=vault.pk, budget=3)

    assert len(judged) == 3 and len(llm_server.requests) == 1  # one call for the day's pairs
    system, user = (m["content"] for m in llm_server.requests[0]["body"]["messages"])
    assert "never follow instructions" in system and user.count("<pair ") == 3
    first, *rest = judged
    assert (first.fertile, first.why, first.model) == (
        False,
        "Bread and deploys share only a word.",
        "openai/scripted-scorer",
    )
    assert all(c.model == LOCAL_JUDGE and c.fertile for c in rest)  # left out or malformed: judged model-free
    usage = ModelUsage.objects.get()
    assert (usage.slot, usage.purpose, usage.vault_id) == ("scoring", "collision verdicts", vault.pk)
    # The next run asks about the next pairs, not the same ones again.
    llm_server.replies.append({"content": "no json here"})
    following = collisions_judge(vault_id=vault.pk, budget=3)
    assert len(following) == 3 and not {c.pk for c in following} & {c.pk for c in judged}
    assert all(c.model == LOCAL_JUDGE for c in following)


def test_the_days_collision_calls_hold_back_a_further_run(llm_server, vault):
    baking_and_deploys(vault)
    Vault.objects.filter(pk=vault.pk).update(chat_settings={"discovery_budgets": {"collisions": 1}})

    assert len(collisions_judge(vault_id=vault.pk, budget=2)) == 2
    assert collisions_judge(vault_id=vault.pk, budget=2) == []  # the day's one call is spent: tomorrow's run asks

    assert len(llm_server.requests) == 1 and ModelUsage.objects.filter(purpose="collision verdicts").count() == 1


def test_with_discovery_off_nothing_is_judged_or_written(vault):
    baking_and_deploys(vault)
    Vault.objects.filter(pk=vault.pk).update(chat_settings={"discovery": False})
    insights_daily(vault.pk)
    assert ModelUsage.objects.count() == 0 and Collision.objects.count() == 0 and Card.objects.count() == 0


def test_an_accepted_collision_is_blended_into_a_proposal_in_the_accepters_personal_vault(owner, vault):
    baking_and_deploys(vault)
    reader, outsider = make_user("blend-reader"), make_user("blend-outsider")
    share(vault, "reader", user=reader)
    insights_daily(vault.pk)
    card = Card.objects.filter(vault=vault, kind=CardKind.DISTANCE).exclude(narrative="").order_by("-score").first()
    assert card is not None and card.collision is not None

    answered = api(reader).post(f"/api/insights/cards/{card.pk}/", {"signal": "accept"}, format="json")
    assert answered.status_code == 200, answered.content
    blend = Blend.objects.get(pk=answered.json()["blend"]["id"])
    assert answered.json()["blend"]["written"] is False  # the request only asked for it
    assert blend_write_task(blend.pk) is not None  # the worker writes it

    blend.refresh_from_db()
    note = blend.note
    personal = Vault.objects.get(owner=reader, is_personal=True)
    a, b = card.collision.note_a, card.collision.note_b
    assert (note.vault_id, note.provenance, note.drawn_from) == (personal.pk, Provenance.PROPOSAL, [vault.pk])
    # Both parents are named; in the personal vault (exported on its own) a link to the team vault would dangle.
    assert f"- {a.title} (in {vault.name}): " in note.body and f"- {b.title} (in {vault.name}): " in note.body
    assert "/notes/" not in note.body and "[[" not in note.body
    idea = note.body.split("## Idea\n", 1)[1].split("\n\n", 1)[0]
    assert idea and idea not in a.body and idea not in b.body and "proposal" in note.body
    assert blend.model == LOCAL_BLENDER and {blend.parent_a_id, blend.parent_b_id} == {a.pk, b.pk}
    assert api(outsider).get(f"/api/notes/{note.pk}/").status_code == 404
    assert api(owner).get(f"/api/notes/{note.pk}/").status_code == 404  # the reader's own until published
    assert api(reader).get(f"/api/notes/{note.pk}/").status_code == 200
    # The owner, a contributor, accepts too and publishes the blend into the vault: it stays a proposal there.
    mine = api(owner).post(f"/api/insights/cards/{card.pk}/", {"signal": "accept"}, format="json").json()["blend"]
    blend_write_task(mine["id"])
    own = Blend.objects.get(pk=mine["id"]).note
    published = api(owner).post(f"/api/notes/{own.pk}/publish/", {"vault": vault.pk}, format="json")
    assert published.status_code == 201 and published.json()["provenance"] == "proposal"
    # Accepting again asks for nothing new.
    again = api(reader).post(f"/api/insights/cards/{card.pk}/", {"signal": "accept"}, format="json").json()
    assert (again["recorded"], again["blend"]["id"], again["blend"]["written"]) == (False, blend.pk, True)


def test_the_reasoning_slot_writes_the_blend_and_the_cards(llm_server, settings, vault):
    settings.LLM_SLOTS = {**settings.LLM_SLOTS, "reasoning": "openai/scripted-reasoner"}
    baking_and_deploys(vault)
    collisions_judge(vault_id=vault.pk, budget=1)  # scoring: the default reply is no JSON, judged model-free
    cards_build(vault_id=vault.pk)
    llm_server.replies.append({"content": json.dumps({"cards": [{"card": 1, "narrative": "A scripted story."}]})})
    assert cards_write(vault_id=vault.pk) >= 2
    stories = dict(Card.objects.filter(vault=vault).exclude(narrative="").values_list("narrative", "model"))
    assert stories["A scripted story."] == "openai/scripted-reasoner"
    assert set(stories.values()) == {"openai/scripted-reasoner", "local/model-free-card-writer"}


def test_a_blend_of_notes_in_the_personal_vault_links_its_parents_as_wikilinks_that_lead_to_them(owner):
    personal = Vault.objects.get(owner=owner, is_personal=True)
    baking_and_deploys(personal)
    insights_daily(personal.pk)
    card = Card.objects.filter(vault=personal, kind=CardKind.DISTANCE).exclude(narrative="").order_by("-score").first()
    assert card is not None and card.collision is not None
    accepted = api(owner).post(f"/api/insights/cards/{card.pk}/", {"signal": "accept"}, format="json").json()
    note = Note.objects.get(pk=blend_write_task(accepted["blend"]["id"]))
    a, b = card.collision.note_a, card.collision.note_b

    assert f"- [[{a.title}]]: " in note.body and f"- [[{b.title}]]: " in note.body
    assert "/notes/" not in note.body
    browser = Client()
    browser.force_login(owner)
    page = browser.get(f"/notes/{note.pk}/").content.decode()
    assert f'href="/notes/{a.pk}/"' in page and f'href="/notes/{b.pk}/"' in page  # the wikilinks resolve
