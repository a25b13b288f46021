"""Collision metadata: what each note claims, which broad fields it bridges, what it pushes against.

Kept in its own table so that writing metadata can never touch the note row (its content-modified time, its
updated time, its hash). `model` and `content_hash` say who wrote it and for which version of the note, so
re-enrichment can find what is stale."""

from django.contrib.postgres.fields import ArrayField
from django.db import models

from apps.notes.models import Note
from apps.vaults.models import Vault


class NoteMetadata(models.Model):
    note = models.OneToOneField(Note, on_delete=models.CASCADE, related_name="metadata")
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    core_claim = models.TextField()
    bridging_domains = ArrayField(models.CharField(max_length=80), default=list)
    tensions = ArrayField(models.TextField(), default=list)
    model = models.CharField(max_length=200)
    content_hash = models.CharField(max_length=64)  # the note's hash when this was written
    written_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["vault", "model"])]

    def __str__(self) -> str:
        return f"metadata of note {self.note_id} by {self.model}"
