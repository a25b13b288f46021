import pgtrigger
from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import F
from django.db.models.functions import Lower
from pgvector.django import VectorField

from apps.core.triggers import edits_limited
from apps.notes.postings import POSTINGS_ON_DELETE, POSTINGS_ON_INSERT, POSTINGS_ON_UPDATE
from apps.vaults.models import Vault

LIBRARIAN_SOURCE = "librarian"  # the `source` of the notes the Librarian files


class Provenance(models.TextChoices):
    AUTHORED = "authored"
    EXTRACTED = "extracted"
    SUMMARY = "summary"
    PROPOSAL = "proposal"


class Tier(models.TextChoices):
    HOT = "hot"
    COLD = "cold"


_CONTENT_MODIFIED = """
IF TG_OP = 'INSERT' OR NEW.body IS DISTINCT FROM OLD.body THEN
    NEW.content_modified_at = clock_timestamp();
ELSE
    NEW.content_modified_at = OLD.content_modified_at;
END IF;
RETURN NEW;
"""

# A passage superseded by an applied correction stays cold whatever happens to its note.
_TIER_TO_CHUNKS = """
UPDATE notes_chunk c SET tier = NEW.tier WHERE c.note_id = NEW.id AND NOT EXISTS (
    SELECT 1 FROM notes_correction k
    WHERE k.note_id = NEW.id AND k.content_hash = c.content_hash AND k.status = 'applied'
);
RETURN NULL;
"""

_CHUNK_SEARCH_VECTORS = """
NEW.search_vector = setweight(to_tsvector('english', coalesce(NEW.heading, '')), 'A')
    || to_tsvector('english', NEW.text) || to_tsvector('english', NEW.properties);
NEW.search_simple = to_tsvector('simple', coalesce(NEW.heading, '') || ' ' || NEW.text || ' ' || NEW.properties);
RETURN NEW;
"""


class Note(models.Model):
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="notes")
    path = models.CharField(max_length=500)
    title = models.CharField(max_length=500)
    body = models.TextField()
    frontmatter = models.JSONField(default=dict, blank=True)
    tags = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    aliases = ArrayField(models.CharField(max_length=500), default=list, blank=True)
    # Lower-cased names a [[wikilink]] may use for this note: path, file stem, title, aliases.
    link_keys = ArrayField(models.CharField(max_length=500), default=list, blank=True)
    # Ids of its blocks (Logseq `id:: uuid`, Obsidian `^id`) that a `((uuid))` reference may point at.
    # database defaults too: bulk loaders (COPY) that leave the column out still get a valid row
    block_ids = ArrayField(models.CharField(max_length=200), default=list, db_default=[], blank=True)
    provenance = models.CharField(max_length=16, choices=Provenance.choices, default=Provenance.AUTHORED)
    content_hash = models.CharField(max_length=64)
    # The `READING_VERSION` its title, names, links and passages were read with (1: before versions were kept).
    read_with = models.PositiveSmallIntegerField(default=1, db_default=1)
    # Maintained by a trigger: changes only when the body changes, whatever code path writes the row.
    content_modified_at = models.DateTimeField(null=True, editable=False)
    tier = models.CharField(max_length=8, choices=Tier.choices, default=Tier.HOT)
    cold_reason = models.CharField(max_length=64, blank=True)
    # Import source label; "" for notes written through the API (re-imports never touch them).
    source = models.CharField(max_length=200, blank=True)
    # Other vaults whose content this note carries (what the Librarian filed, summarised or published from them):
    # it is read only by those who read every one of them, now. Empty for notes people write.
    drawn_from = ArrayField(models.BigIntegerField(), default=list, db_default=[], blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["vault", "path"], name="note_unique_path")]
        indexes = [
            models.Index(fields=["vault", "tier"]),
            GinIndex(fields=["link_keys"], name="note_link_keys"),
            # search finds the few derived notes of its scope without reading the others
            models.Index(fields=["vault"], condition=~models.Q(drawn_from=[]), name="note_drawn_from"),
            # and the Librarian's own notes, which a search of all the vaults leaves out
            models.Index(fields=["vault"], condition=models.Q(provenance="summary"), name="note_filed"),
            # the sweep that reads notes again finds the few stored under an older reading without reading the rest
            models.Index(fields=["read_with"], name="note_read_with"),
        ]
        triggers = [
            pgtrigger.Trigger(
                name="note_content_modified",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert | pgtrigger.Update,
                func=_CONTENT_MODIFIED,
            ),
            pgtrigger.Trigger(
                name="note_tier_to_chunks",
                when=pgtrigger.After,
                operation=pgtrigger.Update,
                condition=pgtrigger.Condition("OLD.tier IS DISTINCT FROM NEW.tier"),
                func=_TIER_TO_CHUNKS,
            ),
        ]

    def __str__(self) -> str:
        return f"note {self.pk} (filed by the Librarian)" if self.filed_by_librarian else self.path

    @property
    def filed_by_librarian(self) -> bool:
        """A note the Librarian filed: its title and path are taken from someone's chat question."""
        return self.source == LIBRARIAN_SOURCE


class LinkKind(models.TextChoices):
    LINK = "link"
    EMBED = "embed"
    BLOCK = "block"  # a ((uuid)) block reference: target_text is the block id
    PROPERTY = "property"  # a [[wikilink]] in a frontmatter property


class NoteLink(models.Model):
    """A link as written (a [[wikilink]], a Markdown link to a note, a property's wikilink, a block reference);
    `target` is null while it resolves to no note (kept and shown)."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    source = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="outgoing_links")
    target_text = models.CharField(max_length=500)
    heading = models.CharField(max_length=500, blank=True)
    alias = models.CharField(max_length=500, blank=True)
    kind = models.CharField(max_length=8, choices=LinkKind.choices, default=LinkKind.LINK, db_default=LinkKind.LINK)
    # [[note#^block-id]]: the block the link points at inside its target note (which it still resolves to)
    block_id = models.CharField(max_length=200, blank=True, default="", db_default="")
    target = models.ForeignKey(Note, null=True, on_delete=models.SET_NULL, related_name="incoming_links")
    ordinal = models.PositiveIntegerField()

    class Meta:
        ordering = ["source_id", "ordinal"]
        indexes = [
            models.Index(fields=["vault", "target_text"]),
            # a write re-resolves only the links naming what it changed, found by name as resolution compares
            models.Index(F("vault"), Lower("target_text"), name="notelink_vault_lower_target"),
        ]

    def __str__(self) -> str:
        return f"[[{self.target_text}]]"


def _postings_triggers() -> list[pgtrigger.Trigger]:
    """Statement triggers that keep `ChunkTerm`, `VaultTerm` and `VaultText` in step with the chunks."""
    kept = []
    for name, operation, func, referencing in [
        ("insert", pgtrigger.Insert, POSTINGS_ON_INSERT, pgtrigger.Referencing(new="new_chunks")),
        ("delete", pgtrigger.Delete, POSTINGS_ON_DELETE, pgtrigger.Referencing(old="old_chunks")),
        ("update", pgtrigger.Update, POSTINGS_ON_UPDATE, pgtrigger.Referencing(old="old_chunks", new="new_chunks")),
    ]:
        kept.append(
            pgtrigger.Trigger(
                name=f"chunk_postings_{name}",
                when=pgtrigger.After,
                operation=operation,
                level=pgtrigger.Statement,
                referencing=referencing,
                func=func,
            )
        )
    return kept


_CHUNK_TIER_TO_VECTORS = """
UPDATE notes_chunkvector v SET tier = NEW.tier WHERE v.chunk_id = NEW.id;
RETURN NULL;
"""


class Chunk(models.Model):
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="chunks")
    ordinal = models.PositiveIntegerField()
    heading = models.CharField(max_length=500, blank=True)
    text = models.TextField()
    # A note's properties, searched with its first chunk when no chunk's text holds them (a note with a body)
    properties = models.TextField(blank=True, default="", db_default="")
    content_hash = models.CharField(max_length=64)
    search_vector = SearchVectorField(null=True, editable=False)
    search_simple = SearchVectorField(null=True, editable=False)
    # Copy of the note's tier (trigger-maintained) so search filters without a join.
    tier = models.CharField(max_length=8, choices=Tier.choices, default=Tier.HOT)

    class Meta:
        ordering = ["note_id", "ordinal"]
        indexes = [
            models.Index(fields=["vault", "tier"]),
            models.Index(fields=["vault", "content_hash"]),
            GinIndex(fields=["search_vector"], name="chunk_search_vector"),
            GinIndex(fields=["search_simple"], name="chunk_search_simple"),
        ]
        triggers = [
            pgtrigger.Trigger(
                name="chunk_search_vectors",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert | pgtrigger.UpdateOf("text", "heading", "properties"),
                func=_CHUNK_SEARCH_VECTORS,
            ),
            *_postings_triggers(),
            pgtrigger.Trigger(
                name="chunk_tier_to_vectors",
                when=pgtrigger.After,
                operation=pgtrigger.UpdateOf("tier"),
                condition=pgtrigger.Condition("OLD.tier IS DISTINCT FROM NEW.tier"),
                func=_CHUNK_TIER_TO_VECTORS,
            ),
        ]

    def __str__(self) -> str:
        return f"chunk {self.ordinal} of note {self.note_id}"


# A vector's vault, note and tier are its chunk's, copied so a meaning search reads the vector table alone.
_CHUNK_VECTOR_PLACE = """
SELECT c.vault_id, c.note_id, c.tier INTO NEW.vault_id, NEW.note_id, NEW.tier
FROM notes_chunk c WHERE c.id = NEW.chunk_id;
RETURN NEW;
"""


class ChunkVector(models.Model):
    """One model's vector of a chunk: a chunk holds one per model that embedded it, so a new model's vectors are
    built beside the ones search is using. The column has no fixed size; each model's HNSW index is partial (its
    rows only) over the vector cast to that model's size (`apps/notes/vectors.py`)."""

    # the unique (chunk, model) and (vault, tier) indexes serve every lookup: no index per foreign key
    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="vectors", db_index=False)
    model = models.CharField(max_length=200)
    vault = models.ForeignKey(Vault, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+", db_index=False)
    note = models.ForeignKey(Note, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+", db_index=False)
    tier = models.CharField(max_length=8, choices=Tier.choices)
    embedding = VectorField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["chunk", "model"], name="chunkvector_one_per_model")]
        # no btree leads with the model: a filtered HNSW search must find none that serves `model = …` instead
        indexes = [models.Index(fields=["vault", "tier"], name="chunkvector_scope")]
        triggers = [
            pgtrigger.Trigger(
                name="chunkvector_place",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert,
                func=_CHUNK_VECTOR_PLACE,
            )
        ]

    def __str__(self) -> str:
        return f"{self.model} vector of chunk {self.chunk_id}"


class ChunkTerm(models.Model):
    """A posting: one English term of a chunk (title, heading and text), how often it occurs there and the chunk's
    length in terms. Written only by the triggers on `notes_chunk` (`apps/notes/postings.py`)."""

    pk = models.CompositePrimaryKey("chunk_id", "term")
    chunk = models.ForeignKey(Chunk, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    note = models.ForeignKey(Note, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    vault = models.ForeignKey(Vault, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    tier = models.CharField(max_length=8, choices=Tier.choices)
    term = models.TextField()
    tf = models.IntegerField()
    length = models.IntegerField()
    impact = models.FloatField()  # the pruning order of a term's postings (postings.IMPACT)

    class Meta:
        indexes = [
            models.Index(
                fields=["term", "vault"], include=["tier", "note", "chunk", "tf", "length"], name="chunkterm_by_vault"
            ),
            models.Index(
                fields=["term", "-impact"],
                include=["vault", "tier", "note", "chunk", "tf", "length"],
                name="chunkterm_by_impact",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.term} x{self.tf} in chunk {self.chunk_id}"


class VaultTerm(models.Model):
    """How many hot chunks of a vault carry a term (BM25's document frequency, per vault)."""

    pk = models.CompositePrimaryKey("term", "vault_id")
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    term = models.TextField()
    chunks = models.IntegerField()

    class Meta:
        indexes = [models.Index(fields=["chunks"], condition=models.Q(chunks__lte=0), name="vaultterm_unused")]

    def __str__(self) -> str:
        return f"{self.term} in {self.chunks} chunks of vault {self.vault_id}"


class VaultText(models.Model):
    """A vault's hot chunks and their total length in terms (BM25's collection size and average length)."""

    vault = models.OneToOneField(Vault, on_delete=models.CASCADE, primary_key=True, related_name="+")
    chunks = models.BigIntegerField()
    length = models.BigIntegerField()

    def __str__(self) -> str:
        return f"vault {self.vault_id}: {self.chunks} chunks, {self.length} terms"


class CorrectionStatus(models.TextChoices):
    PROPOSED = "proposed"  # a reader's: waits for a contributor
    APPLIED = "applied"  # an authored note supersedes the passage, which is cold
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"  # its vote was undone or replaced before a contributor decided


class Correction(models.Model):
    """A correction of one passage. Applied, the passage (identified by its note and content hash, so it stays
    superseded when the note is re-chunked) moves to the cold tier and `successor` points to the authored note that
    replaces it; nothing is deleted."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="corrections")
    content_hash = models.CharField(max_length=64)  # the corrected passage (chunk) of `note`
    passage = models.TextField()  # its text when corrected, for the reviewer
    text = models.TextField()  # the correction
    proposed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    feedback_id = models.BigIntegerField(null=True, blank=True)  # the `correct` vote it came from
    status = models.CharField(max_length=16, choices=CorrectionStatus.choices, default=CorrectionStatus.PROPOSED)
    successor = models.ForeignKey(Note, null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes")
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["vault", "status"]), models.Index(fields=["note", "status"])]

    def __str__(self) -> str:
        return f"correction of note {self.note_id} ({self.status})"


class ImportStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class ImportPhase(models.TextChoices):
    """What a running import is doing: files are read and written first, then their new chunk texts embedded."""

    READING = "reading", "reading files"
    EMBEDDING = "embedding", "embedding chunks"
    LINKING = "linking", "linking notes"


class ImportJob(models.Model):
    # A record of what came in: it outlives its vault (an evaluation's vault is torn down, its imports stay).
    vault = models.ForeignKey(Vault, on_delete=models.DO_NOTHING, db_constraint=False, related_name="import_jobs")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    source = models.CharField(max_length=200)
    # The archive or folder is this vault's own export (its manifest says so): it updates the notes it holds,
    # whichever source brought them.
    own_export = models.BooleanField(default=False, db_default=False)
    folder = models.CharField(max_length=1000, blank=True)
    # The uploaded file's name as its requester's computer gave it ("Vault.ZIP", "Runbook.md"), shown for the import;
    # `source` is the label its notes are kept under. Empty for a folder.
    file_name = models.CharField(max_length=255, blank=True, default="", db_default="")
    # The uploaded zip waits here for the worker (any machine can run it), then is cleared.
    archive = models.BinaryField(null=True, editable=False)
    status = models.CharField(max_length=16, choices=ImportStatus.choices, default=ImportStatus.QUEUED)
    total = models.PositiveIntegerField(default=0)
    processed = models.PositiveIntegerField(default=0)  # files read so far
    phase = models.CharField(max_length=16, choices=ImportPhase.choices, blank=True)
    embed_total = models.PositiveIntegerField(default=0)  # distinct new chunk texts the embedding phase sends
    embed_done = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=dict)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True)
    finished_at = models.DateTimeField(null=True)
    # Written with the progress: a running job whose heartbeat stopped lost its worker, and the recovery sweep
    # resumes it (counted in `resumes`) or fails it with the reason.
    heartbeat_at = models.DateTimeField(null=True)
    resumes = models.PositiveSmallIntegerField(default=0)
    attempt = models.PositiveSmallIntegerField(default=1)  # a retry from the first file starts the next one

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"import {self.id} of {self.source} into {self.vault_id} ({self.status})"

    def outcomes(self) -> "models.QuerySet[ImportFileResult]":
        """Each file's outcome in the job's latest attempt (a retry keeps the earlier attempts' as they were)."""
        return self.files.filter(attempt=self.attempt)


class FileOutcome(models.TextChoices):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    SKIPPED = "skipped"
    MOVED_TO_COLD = "moved_to_cold"


class ImportFileResult(models.Model):
    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="files")
    vault = models.ForeignKey(Vault, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    attempt = models.PositiveSmallIntegerField(default=1)
    path = models.CharField(max_length=1000)
    outcome = models.CharField(max_length=16, choices=FileOutcome.choices)
    reason = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.path}: {self.outcome}"


# An import's record: where it came from and when, each file's outcome in each attempt; only its progress moves
# (the uploaded archive is cleared once read; the job names whoever retried it, or no one once that person is
# removed), and nothing of it is ever deleted.
edits_limited(
    ImportJob,
    kept=True,
    changeable=(
        "created_by",
        "archive",
        "status",
        "total",
        "processed",
        "phase",
        "embed_total",
        "embed_done",
        "counts",
        "error",
        "started_at",
        "finished_at",
        "heartbeat_at",
        "resumes",
        "attempt",
    ),
)
edits_limited(ImportFileResult, kept=True)


class NoteStep(models.TextChoices):
    """Background steps run on every note of a vault by the periodic sweeps."""

    GRAPH_EXTRACTION = "graph_extraction", "graph extraction"
    METADATA = "metadata", "metadata"


class NoteStepFailure(models.Model):
    """A background step that failed on one note: the sweep went on with the others, retries this one later (after
    a backoff that grows with `retries`), and deletes the row when the step succeeds for it."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="step_failures")
    step = models.CharField(max_length=32, choices=NoteStep.choices)
    model = models.CharField(max_length=200, blank=True)  # the model or extractor the step ran with
    reason = models.TextField()
    failed_at = models.DateTimeField()
    retries = models.PositiveIntegerField(default=0)  # failed again after the first time

    class Meta:
        constraints = [models.UniqueConstraint(fields=["note", "step"], name="notes_step_failure_one_per_step")]
        indexes = [models.Index(fields=["vault", "step"])]

    def __str__(self) -> str:
        return f"{self.step} failed on note {self.note_id}: {self.reason[:80]}"


class AttachmentBlob(models.Model):
    """The bytes of a vault's attachments, stored once per vault and content: two paths holding the same file
    share one row. Rows no attachment points at any more are removed at the end of each import."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()
    data = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["vault", "sha256"], name="attachment_blob_unique_hash")]

    def __str__(self) -> str:
        return f"{self.sha256[:12]} ({self.size} bytes) in vault {self.vault_id}"


# An attachment's hash and size are its blob's, and its blob is of its own vault: no row can show another
# vault's bytes or an ETag that does not match what is served.
_ATTACHMENT_MATCHES_BLOB = """
IF NOT EXISTS (
    SELECT 1 FROM notes_attachmentblob b
    WHERE b.id = NEW.blob_id AND b.vault_id = NEW.vault_id AND b.sha256 = NEW.content_hash AND b.size = NEW.size
) THEN
    RAISE EXCEPTION 'attachment % does not match its blob %', NEW.path, NEW.blob_id USING ERRCODE = 'check_violation';
END IF;
RETURN NEW;
"""


class Attachment(models.Model):
    """A file of a vault that is not a note (image, PDF, audio, …) at its path in the source. The media type is
    sniffed from the bytes when stored."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="attachments")
    path = models.CharField(max_length=500)
    # Lower-cased file name: `![[photo.png]]` finds the file by name wherever it sits.
    name_key = models.CharField(max_length=500)
    blob = models.ForeignKey(AttachmentBlob, on_delete=models.PROTECT, related_name="attachments")
    content_hash = models.CharField(max_length=64)  # sha256 of the bytes; the strong ETag
    size = models.PositiveBigIntegerField()
    media_type = models.CharField(max_length=100)
    tier = models.CharField(max_length=8, choices=Tier.choices, default=Tier.HOT)
    cold_reason = models.CharField(max_length=64, blank=True)
    source = models.CharField(max_length=200, blank=True)  # the import that brought it, as on notes
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["vault", "path"], name="attachment_unique_path")]
        indexes = [models.Index(fields=["vault", "name_key"]), models.Index(fields=["vault", "tier"])]
        triggers = [
            pgtrigger.Trigger(
                name="attachment_matches_blob",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert | pgtrigger.Update,
                func=_ATTACHMENT_MATCHES_BLOB,
            )
        ]

    def __str__(self) -> str:
        return self.path


class ExportJob(models.Model):
    """A vault written out as a zip of its notes (Markdown, frontmatter included) and attachments, built by the
    worker; the zip is kept here until it is downloaded or the vault's next export replaces it."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="export_jobs")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=16, choices=ImportStatus.choices, default=ImportStatus.QUEUED)
    archive = models.BinaryField(null=True, editable=False)
    size = models.PositiveBigIntegerField(default=0)
    notes = models.PositiveIntegerField(default=0)
    attachments = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"export {self.id} of vault {self.vault_id} ({self.status})"
