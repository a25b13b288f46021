"""Feedback on a context item the user was shown: one vote per user, item and signal (pressing twice changes
nothing). Only the conversation's owner can rate its items, and only while they can still read the item's vault;
anyone else gets a 404, as if the item did not exist. A `correct` vote also records the correction: applied at once
from a contributor, proposed to the vault's contributors from a reader."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404

from apps.chat.models import ContextItem, Feedback, Signal
from apps.chat.prewarm import question_rhythm_record
from apps.chat.tasks import co_occurrence
from apps.core.queue import queue_after_commit
from apps.graph.feedback import Vote, paths_learn
from apps.notes.models import Chunk, Correction
from apps.notes.services.corrections import correction_submit
from apps.retrieval.trace import Trace
from apps.vaults.permissions import vault_ids_for


def feedback_record(*, user: User, item_id: int, signal: str, text: str = "") -> tuple[Feedback, bool]:
    """The vote and whether it is new."""
    if signal not in Signal.values:
        raise ValidationError({"signal": [f"one of {', '.join(Signal.values)}"]})
    text = (text or "").strip()
    if signal == Signal.CORRECT and not text:
        raise ValidationError({"text": ["a correction needs the corrected text"]})
    if len(text) > 10_000:
        raise ValidationError({"text": ["the correction is longer than 10,000 characters"]})
    item = (
        ContextItem.objects.filter(
            pk=item_id, message__conversation__owner=user, vault_id__in=vault_ids_for(user, "read")
        )
        .select_related("message")
        .first()
    )
    if item is None:
        raise Http404("No context item matches the given query.")
    with transaction.atomic():
        vote, created = Feedback.objects.get_or_create(
            user=user, context_item=item, signal=signal, defaults={"text": text}
        )
        if created:  # one vote per user, item and signal: pressing twice moves nothing twice
            asked = item.message
            paths_learn(
                vault_id=item.vault_id,
                trace=Trace.parse(item.trace),
                chunk_id=item.chunk_id,
                vote=Vote(signal, feedback_id=vote.pk, at=asked.created_at, question=asked.resolved_query),
            )
            if signal in (Signal.CONFIRM, Signal.USED):  # the question helped at this hour: burn-in evidence
                question_rhythm_record(
                    user=user, vault_ids=asked.vault_ids, question=asked.resolved_query, at=asked.created_at
                )
            if signal == Signal.USED:
                queue_after_commit(co_occurrence, item.pk, fallback="its neighbours miss one automatic signal")
            if signal == Signal.CORRECT:
                chunk = item.chunk or Chunk.objects.filter(note=item.note, text=item.text).first()
                if chunk is None:  # the note changed since: nothing is stored, the person is told
                    raise ValidationError(
                        {"context_item": ["this passage has changed since it was shown; open its note to correct it"]}
                    )
                correction_submit(user=user, chunk=chunk, text=text, feedback_id=vote.pk)
    return vote, created


def correction_of(vote: Feedback) -> Correction | None:
    """The correction a `correct` vote recorded (applied for a contributor, proposed for a reader)."""
    return Correction.objects.filter(feedback_id=vote.pk).first() if vote.signal == Signal.CORRECT else None
