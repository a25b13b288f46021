"""Collision metadata: what each note claims, which broad fields it bridges, what it pushes against.

Kept in its own table so that writing metadata can never touch the note row (its content-modified time, its
updated time, its hash). `model` and `content_hash` say who wrote it and for which version of the note, so
re-enrichment can find what is stale. Every version written is kept as well, without its words
(`NoteMetadataVersion`): the current one is rewritten, the history never is.

The session summary DAG lives here too: the Librarian's summaries of conversations, with pointers to what each
summarises (messages, or the lower summaries it condenses)."""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import F

from apps.chat.models import Conversation, Message
from apps.core.triggers import edits_limited
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


class NoteMetadataVersion(models.Model):
    """One version of a note's metadata as it was written: by which model, for which version of the note, when, into
    which broad fields. What it restated of the note (claim, tensions) is kept only as a digest: the history can
    never be deleted, and a manager's purge must still take every word of a note away. No links: the history
    outlives its note and its vault, as the weight ledger does."""

    vault_id = models.BigIntegerField(db_index=True)
    note_id = models.BigIntegerField(db_index=True)
    bridging_domains = ArrayField(models.CharField(max_length=80), default=list)
    model = models.CharField(max_length=200)
    content_hash = models.CharField(max_length=64)  # the note's version it was written for
    claim_hash = models.CharField(max_length=64)  # sha256 of the claim and tensions: which versions said the same
    written_at = models.DateTimeField()

    class Meta:
        ordering = ["-written_at", "-id"]

    def __str__(self) -> str:
        return f"metadata of note {self.note_id} by {self.model} at {self.written_at:%Y-%m-%d %H:%M}"


# A version, once written, is the record of what was said of the note then: never changed, never deleted.
edits_limited(NoteMetadataVersion, kept=True)


class SummaryNode(models.Model):
    """One node of a person's session summary DAG: level 0 summarises one conversation, level n ≥ 1 condenses
    level n-1 nodes of one period (1: an ISO week, 2: a month). Its text is a note (provenance `summary`) in the
    owner's personal vault, like everything filed from a conversation; `key` names what it summarises, so writing
    it again updates this node instead of adding one."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")  # the owner's personal vault
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    level = models.PositiveSmallIntegerField()
    key = models.CharField(max_length=40)  # conversation:<id> | week:<YYYY-Www> | month:<YYYY-MM>
    note = models.OneToOneField(Note, on_delete=models.CASCADE, related_name="summary_node")
    # Kept when the conversation goes: the summary and its note are the record of what was said.
    conversation = models.ForeignKey(Conversation, null=True, on_delete=models.SET_NULL, related_name="+")
    period_start = models.DateTimeField()
    period_end = models.DateTimeField()
    gist = models.TextField(blank=True)  # one line for the node's parents and for lists
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["vault", "key"], name="summary_node_unique_key"),
            models.CheckConstraint(
                # A level-0 node outlives its conversation when its owner deletes that (conversation then null).
                condition=models.Q(level=0) | models.Q(level__gt=0, conversation=None),
                name="summary_node_only_level_zero_has_a_conversation",
            ),
            models.CheckConstraint(condition=models.Q(period_start__lte=F("period_end")), name="summary_period"),
        ]
        indexes = [models.Index(fields=["vault", "level", "period_start"]), models.Index(fields=["owner", "level"])]

    def __str__(self) -> str:
        return f"summary {self.key} (level {self.level})"


class SummaryLink(models.Model):
    """A parent node condenses a child node; a child may have several parents (a conversation that ran over two
    weeks, a week that ran over two months), which makes the summaries a DAG rather than a tree."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    parent = models.ForeignKey(SummaryNode, on_delete=models.CASCADE, related_name="child_links")
    child = models.ForeignKey(SummaryNode, on_delete=models.CASCADE, related_name="parent_links")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["parent", "child"], name="summary_link_once"),
            models.CheckConstraint(condition=~models.Q(parent=F("child")), name="summary_link_not_itself"),
        ]

    def __str__(self) -> str:
        return f"summary {self.parent_id} → {self.child_id}"


class SummaryMessage(models.Model):
    """A level-0 node summarises this message: every settled message of the conversation has one, so nothing
    said is lost behind the summary's text."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    node = models.ForeignKey(SummaryNode, on_delete=models.CASCADE, related_name="message_links")
    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["node", "message"], name="summary_message_once")]

    def __str__(self) -> str:
        return f"summary {self.node_id} → message {self.message_id}"
