"""What an evaluation leaves on the deployment for staff to see: each learning-curve replay's figures and curve."""

from __future__ import annotations

from django.db import models


class LearningCurveRun(models.Model):
    """One `evaluate locomo --replay`: the same questions in order with learning on and off, and its curve."""

    created_at = models.DateTimeField(auto_now_add=True)
    dataset = models.CharField(max_length=300)
    window = models.PositiveIntegerField()
    conversations = models.JSONField(default=list)  # sample ids replayed
    questions = models.PositiveIntegerField()  # scored questions, over every conversation
    mrr_off = models.FloatField()
    mrr_on = models.FloatField()
    mrr_change = models.JSONField(default=dict)  # the paired bootstrap: change, low, high
    curve = models.JSONField(default=dict)  # {"on": [...], "off": [...]}, rolling MRR at each question answered

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"learning curve {self.created_at:%Y-%m-%d %H:%M} ({self.dataset})"
