"""Discovered principles and the notifications that ask people about them (DESIGN, "Learning").

A principle is a `principle` entity of the graph with a statement, the evidence trail it was found in (sentences of
unrelated notes) and the people's verdict: proposed until someone answers; confirmed (its edges are walked),
refined (corrected: the statement replaced, the old ones kept) or rejected (it fades to the cold tier, nothing
deleted, never proposed again). Every row carries its own `vault_id`."""

from django.conf import settings
from django.db import models

from apps.graph.models import Entity
from apps.notes.models import Chunk, Note
from apps.vaults.models import Vault


class PrincipleStatus(models.TextChoices):
    PROPOSED = "proposed"
    CONFIRMED = "confirmed"
    REFINED = "refined"
    REJECTED = "rejected"


class Principle(models.Model):
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    entity = models.OneToOneField(Entity, on_delete=models.CASCADE, related_name="principle")
    signature = models.CharField(max_length=300)  # the shared terms that make the pattern: found once per vault
    statement = models.TextField()
    previous = models.JSONField(default=list, blank=True)  # earlier statements, oldest first
    status = models.CharField(max_length=16, choices=PrincipleStatus.choices, default=PrincipleStatus.PROPOSED)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["vault", "signature"], name="insights_principle_once")]

    def __str__(self) -> str:
        return f"principle {self.pk} ({self.status})"  # its statement is the vault's words


class Evidence(models.Model):
    """One sentence the pattern was seen in, with its note, passage and the note's entity."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    principle = models.ForeignKey(Principle, on_delete=models.CASCADE, related_name="evidence")
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    chunk = models.ForeignKey(Chunk, null=True, on_delete=models.SET_NULL, related_name="+")
    entity = models.ForeignKey(Entity, null=True, on_delete=models.SET_NULL, related_name="+")
    sentence = models.TextField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"evidence {self.pk} of principle {self.principle_id}"


class Answer(models.Model):
    """A person's answer to a principle: one per person, principle and signal."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    principle = models.ForeignKey(Principle, on_delete=models.CASCADE, related_name="answers")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    signal = models.CharField(max_length=16)
    text = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["principle", "user", "signal"], name="insights_one_answer")]

    def __str__(self) -> str:
        return f"{self.signal} on principle {self.principle_id}"


class Notification(models.Model):
    """ "DesirePath noticed something": shown to each reader of the vault until they open or answer it."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    principle = models.ForeignKey(Principle, null=True, on_delete=models.CASCADE, related_name="notifications")
    title = models.CharField(max_length=200)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "read_at"])]

    def __str__(self) -> str:
        return f"notification {self.pk} for {self.user_id}"
