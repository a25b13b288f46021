"""Feedback on a context item the user was shown. A person has one choice per item (`CHOICES`: helpful, used, not
relevant, not useful, wrong, a correction): a new choice replaces the earlier one, whose effect on what was learned
is taken back on the ledger and linked to its successor; pressing the same choice again changes nothing. A choice
can be undone the same way. Only the conversation's owner can rate its items, and only while they can still read
the item's vault; anyone else gets a 404, as if the item did not exist. A `correct` vote also records the
correction: applied at once from a contributor (unless they only propose it), proposed to the vault's contributors
from a reader.

Beside the buttons: the asker can point to the passage that answers the question (`answer_pick`), from any note they
can read, shown or not: a deliberate signal, like a confirm, on a unit added to the answer for it. Opening a unit's
note from the answer and copying answer text that cites it are automatic signals (`AUTOMATIC`): they move weights
a thousandth as much as a button, once per unit, and are noticed rather than chosen, so they are not undone."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone

from apps.chat.models import ContextItem, Message, Role, Status
from apps.chat.prewarm import question_rhythm_record
from apps.chat.services.chat import PICKED
from apps.core.queue import queue_after_commit
from apps.feedback.learners import Vote, paths_learn, paths_unlearn
from apps.feedback.models import CHOICES, Feedback, Signal
from apps.feedback.services.signals import automatic_learn
from apps.feedback.tasks import co_occurrence
from apps.graph.context import question_trace
from apps.notes.models import Chunk, Correction, CorrectionStatus, Tier
from apps.notes.services.corrections import correction_submit, correction_withdraw
from apps.retrieval.trace import Trace
from apps.vaults.permissions import vault_ids_for
from apps.vaults.scope import readable_scope

AUTOMATIC = {
    Signal.OPENED: "its note was opened from the answer",
    Signal.COPIED: "answer text citing it was copied",
}


def feedback_record(
    *, user: User, item_id: int, signal: str, text: str = "", propose: bool = False
) -> tuple[Feedback, bool]:
    """The person's vote and whether it is new. A choice other than their current one on the item replaces it; a
    correction with other text than their current one is a new choice too. `propose`: a contributor's correction
    waits for review like a reader's instead of being applied."""
    if signal not in Signal.values:
        raise ValidationError({"signal": [f"one of {', '.join(Signal.values)}"]})
    if signal == Signal.ANSWERS:
        raise ValidationError({"signal": ["point to the passage that answers it at /api/feedback/answers/"]})
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
    if signal in AUTOMATIC:
        with transaction.atomic():
            vote, created = Feedback.objects.get_or_create(
                user=user,
                context_item=item,
                signal=signal,
                withdrawn_at__isnull=True,
                defaults={"vault_id": item.vault_id},
            )
            if created:
                asked = item.message
                why = AUTOMATIC[Signal(signal)]
                automatic_learn(item, why, feedback_id=vote.pk, at=asked.created_at, question=asked.resolved_query)
        return vote, created
    with transaction.atomic():
        ContextItem.objects.select_for_update().filter(pk=item.pk).first()  # one choice at a time per item
        current = _current_choice(user, item)
        if current is not None and current.signal == signal and (signal != Signal.CORRECT or current.text == text):
            return current, False  # the same choice again moves nothing twice
        chunk = None
        if signal == Signal.CORRECT:
            chunk = item.chunk or Chunk.objects.filter(note=item.note, text=item.text).first()
            if chunk is None:  # the note changed since: nothing is stored, the person is told
                raise ValidationError(
                    {"context_item": ["this passage has changed since it was shown; open its note to correct it"]}
                )
        if current is not None:  # withdrawn first: the person's one choice is free for the new vote
            current.withdrawn_at = timezone.now()
            current.save(update_fields=["withdrawn_at"])
        vote = Feedback.objects.create(user=user, context_item=item, vault_id=item.vault_id, signal=signal, text=text)
        if current is not None:
            _withdraw(current, why=f"replaced by {signal} (vote {vote.pk})", successor=vote)
        _person_learns(user, item, vote, signal)
        if signal == Signal.USED:
            queue_after_commit(co_occurrence, item.pk, fallback="its neighbours miss one automatic signal")
        if chunk is not None:
            correction_submit(user=user, chunk=chunk, text=text, feedback_id=vote.pk, propose=propose)
    return vote, True


def feedback_undo(*, user: User, vote_id: int) -> Feedback:
    """Undo the person's vote `vote_id`: what it taught is taken back on the ledger and it is no longer among their
    choices (a correction it proposed is withdrawn; one applied stays, as the note it wrote). Undoing a vote that
    is no longer current changes nothing. Someone else's vote, or one on an item they can no longer read, is a
    404."""
    vote = Feedback.objects.filter(
        pk=vote_id,
        user=user,
        context_item__message__conversation__owner=user,
        context_item__vault_id__in=vault_ids_for(user, "read"),
    ).first()
    if vote is None:
        raise Http404("No vote matches the given query.")
    if vote.signal in AUTOMATIC:
        raise ValidationError({"detail": ["opening or copying is noticed, not chosen: there is nothing to undo"]})
    with transaction.atomic():
        ContextItem.objects.select_for_update().filter(pk=vote.context_item_id).first()
        vote = Feedback.objects.select_for_update().get(pk=vote.pk)
        if vote.withdrawn_at is None:
            _withdraw(vote, why="undone")
    return vote


def _current_choice(user: User, item: ContextItem) -> Feedback | None:
    return Feedback.objects.filter(user=user, context_item=item, signal__in=CHOICES, withdrawn_at__isnull=True).first()


def _withdraw(vote: Feedback, *, why: str, successor: Feedback | None = None) -> None:
    """Take `vote` back: its learned effect reversed on the ledger, the vote kept as withdrawn (and by what)."""
    learned = Signal.CONFIRM if vote.signal == Signal.ANSWERS else vote.signal
    paths_unlearn(feedback_id=vote.pk, signal=learned, why=f"{vote.signal} {why}")
    vote.withdrawn_at = vote.withdrawn_at or timezone.now()
    vote.replaced_by = successor
    vote.save(update_fields=["withdrawn_at", "replaced_by"])
    correction = correction_of(vote)
    if correction is not None and correction.status == CorrectionStatus.PROPOSED:
        correction_withdraw(actor=vote.user, correction=correction)


def correction_of(vote: Feedback) -> Correction | None:
    """The correction a `correct` vote recorded (applied for a contributor, proposed for a reader)."""
    return Correction.objects.filter(feedback_id=vote.pk).first() if vote.signal == Signal.CORRECT else None


def answer_pick(*, user: User, message_id: int, chunk_id: int) -> tuple[Feedback, bool]:
    """`user` points to the passage `chunk_id` as what answers their question in `message_id` (an answer in one of
    their conversations; the passage from any vault they can read): the vote and whether it is new. A passage the
    answer weighed keeps its unit, and its path learns; any other joins the answer as a unit of its own, traced by
    the question alone, so that the question's desire paths and the questions near it learn to bring it."""
    readable = vault_ids_for(user, "read")
    message = Message.objects.filter(pk=message_id, role=Role.ASSISTANT, conversation__owner=user).first()
    if message is None:
        raise Http404("No answer matches the given query.")
    if message.status != Status.COMPLETE:
        raise ValidationError({"message": ["this answer is not finished; point to a passage once it is"]})
    chunk = Chunk.objects.filter(pk=chunk_id, vault_id__in=readable, tier=Tier.HOT).select_related("note").first()
    if chunk is None:
        raise Http404("No passage matches the given query.")
    with transaction.atomic():
        Message.objects.select_for_update().filter(pk=message.pk).first()  # one new unit per passage and answer
        item = ContextItem.objects.filter(message=message, chunk=chunk).order_by("position").first()
        if item is None:
            last = ContextItem.objects.filter(message=message).order_by("-position").first()
            item = ContextItem.objects.create(
                message=message,
                vault_id=chunk.vault_id,
                note=chunk.note,
                chunk=chunk,
                path=chunk.note.path,
                title=chunk.note.title,
                heading=chunk.heading,
                text=chunk.text,
                sources=[{"note": chunk.note_id, "chunk": chunk.pk, "vault": chunk.vault_id, "path": chunk.note.path}],
                score=0,
                position=last.position + 1 if last else 0,
                provenance=PICKED,
                trace=question_trace(message.resolved_query, readable_scope(user).within([chunk.vault_id])).to_json(),
            )
        vote, created = Feedback.objects.get_or_create(
            user=user,
            context_item=item,
            signal=Signal.ANSWERS,
            withdrawn_at__isnull=True,
            defaults={"vault_id": item.vault_id},
        )
        if created:
            _person_learns(user, item, vote, Signal.CONFIRM, "the asker pointed to it as what answers the question")
    return vote, created


def _person_learns(user: User, item: ContextItem, vote: Feedback, signal: str, reason: str | None = None) -> None:
    """A person's `signal` on `item` lands on the path that brought it, for the question as it was asked; a unit
    that helped is also burn-in evidence that the question is asked at that hour."""
    asked = item.message
    paths_learn(
        vault_id=item.vault_id,
        trace=Trace.parse(item.trace),
        chunk_id=item.chunk_id,
        vote=Vote(signal, feedback_id=vote.pk, reason=reason, at=asked.created_at, question=asked.resolved_query),
    )
    if signal in (Signal.CONFIRM, Signal.USED):
        question_rhythm_record(user=user, vault_ids=asked.vault_ids, question=asked.resolved_query, at=asked.created_at)
