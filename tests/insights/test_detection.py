"""Detection, the first step of discovery: footsteps are read from the answers notes were pulled into and the links
made to them, and a note becomes a candidate when a day's visits stand out against its own history and the vault's
bar (mean + 2σ over every note), which rises as the vault's traffic grows."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from apps.chat.models import ContextItem, Conversation, Message, Role, Status
from apps.insights.footsteps import footsteps_collect, note_novelties, novelty_bar, novelty_detect
from apps.insights.models import Footstep, NoveltyCandidate
from apps.insights.tasks import discovery_daily
from apps.notes.models import Note
from apps.notes.services.notes import note_update
from apps.vaults.models import Vault
from tests.factories import make_note, make_user, make_vault

pytestmark = pytest.mark.django_db
NOW = timezone.now()


def _quiet_vault(owner, notes: int = 200) -> list[Note]:
    vault = make_vault(owner, f"Handbook {owner.pk}")
    return [
        make_note(vault, f"Quiet/{i:03}.md", f"# Quiet {i}\nRoutine page number {i}.", embed=False)
        for i in range(notes)
    ]


def _pulled_into_answers(note: Note, times: list[datetime]) -> None:
    """One question per time, each answered with `note` among the passages that passed the gate."""
    for i, when in enumerate(times):
        conversation = Conversation.objects.create(owner=note.vault.owner, title=f"question {i}")
        question = Message.objects.create(conversation=conversation, role=Role.USER, text=f"question {i}")
        answer = Message.objects.create(
            conversation=conversation, role=Role.ASSISTANT, text="…", reply_to=question, status=Status.COMPLETE
        )
        Message.objects.filter(pk=answer.pk).update(created_at=when)
        ContextItem.objects.create(
            message=answer,
            vault=note.vault,
            note=note,
            path=note.path,
            text="…",
            score=4,
            position=0,
            survived=True,
            provenance="search",
        )


def _candidates(vault: Vault) -> list[str]:
    return [c.note.path for c in NoveltyCandidate.objects.filter(vault=vault)]


def test_a_day_of_twelve_questions_makes_a_candidate_and_the_same_traffic_over_a_month_does_not():
    notes = _quiet_vault(make_user())
    vault = notes[0].vault
    spiked, habitual = notes[7], notes[8]
    _pulled_into_answers(spiked, [NOW - timedelta(hours=h + 1) for h in range(12)])
    _pulled_into_answers(habitual, [NOW - timedelta(days=2.5 * d, hours=1) for d in range(12)])

    assert footsteps_collect(vault_id=vault.pk) == 24
    assert footsteps_collect(vault_id=vault.pk) == 0  # nothing twice
    found = novelty_detect(vault_id=vault.pk, now=NOW)
    assert [c.note_id for c in found] == [spiked.pk]
    candidate = found[0]
    assert candidate.variety == 12 and candidate.spike == 13.0 and candidate.freshness > 0.99
    assert candidate.score > candidate.bar > 0


def test_the_bar_rises_with_the_vaults_traffic():
    notes = _quiet_vault(make_user())
    vault = notes[0].vault
    planted = notes[0]
    _pulled_into_answers(planted, [NOW - timedelta(hours=h + 1) for h in range(12)])
    footsteps_collect(vault_id=vault.pk)
    alone = novelty_detect(vault_id=vault.pk, now=NOW)
    assert [c.note_id for c in alone] == [planted.pk]

    for busy in notes[1:61]:  # a busy day across the vault: sixty more notes as visited as the planted one
        _pulled_into_answers(busy, [NOW - timedelta(hours=h + 1, minutes=busy.pk % 50) for h in range(12)])
    footsteps_collect(vault_id=vault.pk)
    busy_day = novelty_detect(vault_id=vault.pk, now=NOW)
    assert busy_day == [] and NoveltyCandidate.objects.filter(vault=vault).count() == 0  # the day's run replaced
    assert Footstep.objects.filter(note=planted).count() == 12  # the planted note's own traffic did not change
    novelties = note_novelties(vault_id=vault.pk, now=NOW)
    assert novelty_bar([n.score for n in novelties], len(notes)) > alone[0].bar


def test_a_new_link_is_a_footstep_from_the_linking_note_and_discovery_off_collects_nothing():
    owner = make_user()
    vault = make_vault(owner, "Linked")
    target = make_note(vault, "Boiler.md", "# Boiler\nServiced every October.", embed=False)
    source = make_note(vault, "Rota.md", "# Rota\nNothing yet.", embed=False)
    note_update(actor=owner, note=source, body="# Rota\nSee [[Boiler]] before winter.")
    assert footsteps_collect(vault_id=vault.pk) == 1
    step = Footstep.objects.get(note=target)
    assert (step.origin, step.from_note_id, step.message_id) == ("link", source.pk, None)

    vault.chat_settings = {"discovery": False}
    vault.save(update_fields=["chat_settings"])
    other = make_note(vault, "Caretaker.md", "# Caretaker\nCalls about the [[Boiler]].", embed=False)
    assert discovery_daily(vault.pk) == {"vaults": 0, "candidates": 0, "screened": 0, "formed": 0}
    assert not Footstep.objects.filter(from_note=other).exists()
