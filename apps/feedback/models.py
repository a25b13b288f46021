"""Feedback on the context items an answer was given: a person's votes (their one choice per item, a pointed-to
passage that answers the question) and the automatic signals noticed from what they did with an answer. A vote
rates exactly what the person saw (the `ContextItem` keeps a copy); what it taught the graph is on the graph's
weight ledger (`apps.graph.models.WeightChange`), rows that name the vote. The table keeps the name it was created
under in chat.

Votes are kept like the ledger that names them: the application's role may neither delete one nor change what it
said. A conversation its owner deletes takes the items its answers were given, with their text; the votes on them
stay, naming their vault, their voter and the item's id."""

from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.db import models

from apps.chat.models import ContextItem
from apps.core.triggers import edits_limited
from apps.vaults.models import Vault


class Signal(models.TextChoices):
    CONFIRM = "confirm"
    REJECT = "reject"
    CORRECT = "correct"
    NOT_RELEVANT = "not_relevant"
    NOT_USEFUL = "not_useful"
    USED = "used"
    ANSWERS = "answers"  # the asker pointed to a passage that answers the question (shown or not)
    OPENED = "opened"  # automatic: the asker opened the unit's note from the answer (citation or source)
    COPIED = "copied"  # automatic: the asker copied answer text that cites the unit


# A person's choices on one item exclude each other: the latest replaces the earlier (`services.votes`).
CHOICES = ("confirm", "used", "not_relevant", "not_useful", "reject", "correct")


class Feedback(models.Model):
    """A vote on a context item. A withdrawn vote (undone, or replaced by a later choice) is kept, with when and by
    what, so that the ledger rows that reversed its effect still name it; it no longer counts anywhere."""

    # No constraints: a vote outlives its item (a deleted conversation's), its vault and its voter's account.
    context_item = models.ForeignKey(
        ContextItem, on_delete=models.DO_NOTHING, db_constraint=False, related_name="feedback"
    )
    vault = models.ForeignKey(Vault, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    signal = models.CharField(max_length=16, choices=Signal.choices)
    text = models.TextField(blank=True)  # the correction, for `correct`
    created_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    replaced_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        db_table = "chat_feedback"
        # The vault a vote names is its passage's, and the passage must be one the voter's binding shows.
        triggers = [
            pgtrigger.Trigger(
                name="feedback_vault_of_its_item",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert,
                func=(
                    "NEW.vault_id := (SELECT i.vault_id FROM chat_contextitem i WHERE i.id = NEW.context_item_id);"
                    " IF NEW.vault_id IS NULL THEN"
                    " RAISE EXCEPTION 'a vote is on a passage its voter may read';"
                    " END IF; RETURN NEW;"
                ),
            )
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "context_item", "signal"],
                condition=models.Q(withdrawn_at__isnull=True),
                name="feedback_one_vote",
            ),
            models.UniqueConstraint(
                fields=["user", "context_item"],
                condition=models.Q(withdrawn_at__isnull=True, signal__in=CHOICES),
                name="feedback_one_choice",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.signal} on {self.context_item_id}"


# What a person said stays as said: a vote is only ever withdrawn (when, and by which later vote), never deleted.
edits_limited(Feedback, changeable=("withdrawn_at", "replaced_by"), kept=True)
