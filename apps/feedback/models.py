"""Feedback on the context items an answer was given: a person's votes (their one choice per item, a pointed-to
passage that answers the question) and the automatic signals noticed from what they did with an answer. A vote
rates exactly what the person saw (the `ContextItem` keeps a copy); what it taught the graph is on the graph's
weight ledger (`apps.graph.models.WeightChange`), rows that name the vote. The table keeps the name it was created
under in chat."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from apps.chat.models import ContextItem


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

    context_item = models.ForeignKey(ContextItem, on_delete=models.CASCADE, related_name="feedback")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    signal = models.CharField(max_length=16, choices=Signal.choices)
    text = models.TextField(blank=True)  # the correction, for `correct`
    created_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    replaced_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        db_table = "chat_feedback"
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
