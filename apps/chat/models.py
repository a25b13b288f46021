"""Conversations, their messages and the context items each answer was given.

A conversation belongs to one person (nobody reads another's conversations); the vaults it read are recorded per
answer. Context items keep a copy of what was shown and its gate score, so feedback rates exactly what the user
saw even after the note changes (the votes are kept by `apps.feedback`).
"""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models

from apps.notes.models import Chunk, Note
from apps.vaults.models import Vault


class Conversation(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True)
    # The vaults its asker last ticked (empty: every vault they read); a follow-up naming none searches these.
    vault_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title or f"conversation {self.pk}"


class Role(models.TextChoices):
    USER = "user"
    ASSISTANT = "assistant"


class Status(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"  # claimed by one run: a second stream of the same message gets nothing
    COMPLETE = "complete"
    FAILED = "failed"


class Fallback(models.TextChoices):
    EXPLICIT = "explicit"  # general knowledge, said to be so
    REFUSE = "refuse"
    SILENT = "silent"
    CASUAL = "casual"  # a casual message: nothing searched, nothing injected


class Message(models.Model):
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=16, choices=Role.choices)
    text = models.TextField(blank=True)
    reply_to = models.OneToOneField("self", null=True, on_delete=models.CASCADE, related_name="reply")
    vault_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)  # the vaults this turn read
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.COMPLETE)
    resolved_query = models.TextField(blank=True)  # what was searched after reading the conversation
    significance = models.CharField(max_length=300, blank=True)
    grounded = models.BooleanField(null=True)
    fallback = models.CharField(max_length=16, choices=Fallback.choices, blank=True)
    notices = models.JSONField(default=list, blank=True)  # degradations the user was told about
    answer_model = models.CharField(max_length=200, blank=True)
    gate_model = models.CharField(max_length=200, blank=True)
    gate_threshold = models.PositiveSmallIntegerField(null=True)
    research = models.JSONField(default=dict, blank=True)  # {ran, reason, sub_questions, dispatches, hidden, cancelled}
    cancel_requested = models.BooleanField(default=False)  # Skip pressed while research was running
    # When the answer was last handed to the queue and when a run claimed it: the recovery sweep re-sends
    # pending answers the queue never got, and fails running ones whose worker was lost.
    sent_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.role}: {self.text[:60]}"


class ContextItem(models.Model):
    """One candidate the gate rated for an answer; `survived` ones were injected and may be cited."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="context")
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    note = models.ForeignKey(Note, null=True, on_delete=models.SET_NULL, related_name="+")
    chunk = models.ForeignKey(Chunk, null=True, on_delete=models.SET_NULL, related_name="+")
    path = models.CharField(max_length=500)
    title = models.CharField(max_length=500, blank=True)
    heading = models.CharField(max_length=500, blank=True, default="")  # the section of the note it was read from
    text = models.TextField()
    byline = models.TextField(blank=True, default="")  # its note's byline, when the passage does not hold it
    decision = models.TextField(blank=True, default="")  # what its note decided, when the passage does not say it
    properties = models.TextField(blank=True, default="")  # its note's properties, when the passage does not hold them
    sources = models.JSONField(default=list)  # [{note, chunk, vault, path}], the main source first
    score = models.PositiveSmallIntegerField()
    probability = models.FloatField(null=True)
    position = models.PositiveSmallIntegerField()  # order the gate ranked it
    citation = models.PositiveSmallIntegerField(null=True)  # [n] in the answer, for survivors
    survived = models.BooleanField(default=False)
    provenance = models.CharField(max_length=16)
    speculative = models.BooleanField(default=False)
    trace = models.JSONField(default=dict, blank=True)  # the graph path that produced it, read through `Trace.parse`

    class Meta:
        ordering = ["message", "position"]

    def __str__(self) -> str:
        return f"{self.path} ({self.score})"


class QuestionRhythm(models.Model):
    """One day on which a person's confirm or used landed on the units of a question asked at an hour: the
    evidence that a question burns in at that hour (`prewarm.py`). The question is keyed by its normalised
    resolved text and the exact vaults it read; rows older than the burn-in window are pruned by the hourly job."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    vault_ids = ArrayField(models.BigIntegerField())
    key = models.CharField(max_length=64)  # sha256 of the normalised question
    text = models.TextField()  # as last asked: what the pre-warm searches for
    day = models.DateField()
    hour = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "vault_ids", "key", "day", "hour"], name="chat_rhythm_one_a_day")
        ]
        indexes = [models.Index(fields=["hour", "day"])]

    def __str__(self) -> str:
        return f"{self.key[:40]!r} on {self.day} at {self.hour:02d}"


class PrewarmedContext(models.Model):
    """A burned-in question's gated context, prepared before the hour it is usually asked and kept until that hour
    ends: chunk ids with their ratings and traces (`items`: [{chunk, rank, similarity, score, probability, survived,
    trace, text}]); the chunks themselves are read again, through the permission filter, when it is used."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    vault_ids = ArrayField(models.BigIntegerField())
    key = models.CharField(max_length=64)
    threshold = models.PositiveSmallIntegerField()
    scoring = models.CharField(max_length=200)  # the scoring model asked for; the gate's own is in `model`
    model = models.CharField(max_length=200)
    items = models.JSONField(default=list)
    notes = models.JSONField(default=list)  # the gate's degradations, told again when it is used
    ready_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "vault_ids", "key"], name="chat_prewarmed_one_per_question")
        ]

    def __str__(self) -> str:
        return f"{self.key[:40]!r} until {self.expires_at:%Y-%m-%d %H:%M}"
