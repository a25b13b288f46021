from django.urls import reverse
from rest_framework import serializers

from apps.notes.coverage import STATES
from apps.notes.followup import FAILURES_SHOWN, JobStatus, StepState, import_job_follow_up, job_progress
from apps.notes.models import Attachment, CorrectionStatus, ExportJob, ImportJob, NoteStep, Tier
from apps.notes.selectors import attachment_url


class NoteCreateIn(serializers.Serializer):
    path = serializers.CharField(max_length=1000)
    body = serializers.CharField(allow_blank=True, trim_whitespace=False)


class NoteUpdateIn(serializers.Serializer):
    path = serializers.CharField(max_length=1000, required=False)
    body = serializers.CharField(allow_blank=True, trim_whitespace=False)


class NoteListOut(serializers.Serializer):
    id = serializers.IntegerField()
    vault = serializers.IntegerField(source="vault_id")
    path = serializers.CharField()
    title = serializers.CharField()
    provenance = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    tier = serializers.CharField()
    content_modified_at = serializers.DateTimeField()


class LinkOut(serializers.Serializer):
    target_text = serializers.CharField()
    heading = serializers.CharField()
    alias = serializers.CharField()
    kind = serializers.CharField(help_text="link, embed, block (a ((uuid)) reference) or property (in frontmatter)")
    block_id = serializers.CharField(help_text="the ^block-id of a [[note#^block-id]] link, else empty")
    target = serializers.IntegerField(source="target_id", allow_null=True)
    resolved = serializers.SerializerMethodField()

    def get_resolved(self, link: object) -> bool:
        return getattr(link, "target_id", None) is not None


class BacklinkOut(serializers.Serializer):
    id = serializers.IntegerField()
    path = serializers.CharField()
    title = serializers.CharField()


class MetadataOut(serializers.Serializer):
    core_claim = serializers.CharField()
    bridging_domains = serializers.ListField(child=serializers.CharField())
    tensions = serializers.ListField(child=serializers.CharField())
    model = serializers.CharField()
    written_at = serializers.DateTimeField()


class SupersededSuccessorOut(serializers.Serializer):
    id = serializers.IntegerField()
    path = serializers.CharField()


class SupersededOut(serializers.Serializer):
    correction = serializers.IntegerField()
    passage = serializers.CharField()
    successor = SupersededSuccessorOut()


class NoteOut(NoteListOut):
    body = serializers.CharField()
    frontmatter = serializers.DictField(help_text="the note's YAML front matter, as its author wrote it")
    aliases = serializers.ListField(child=serializers.CharField())
    content_hash = serializers.CharField()
    cold_reason = serializers.CharField()
    source = serializers.CharField()  # type: ignore[assignment]
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    links = LinkOut(many=True, source="link_rows")
    backlinks = BacklinkOut(many=True, source="backlink_rows")
    metadata = MetadataOut(source="metadata_row", allow_null=True)
    superseded = SupersededOut(many=True, source="superseded_rows")


class NoteConflictOut(serializers.Serializer):
    detail = serializers.CharField()
    current = NoteOut(help_text="the note as it is now (its version is the response's ETag)")
    yours = NoteUpdateIn(help_text="what the refused write sent")


class NoteListQuery(serializers.Serializer):
    tier = serializers.ChoiceField(choices=Tier.values, default=Tier.HOT)


class AttachmentListQuery(serializers.Serializer):
    tier = serializers.ChoiceField(choices=Tier.values, default=Tier.HOT)


class AttachmentOut(serializers.Serializer):
    id = serializers.IntegerField()
    vault = serializers.IntegerField(source="vault_id")
    path = serializers.CharField(help_text="where the file sits in the vault, as in its source")
    media_type = serializers.CharField(help_text="sniffed from the bytes when stored, not taken from the name")
    size = serializers.IntegerField(help_text="bytes")
    content_hash = serializers.CharField(help_text="sha256 of the bytes; the file's ETag")
    tier = serializers.CharField()
    cold_reason = serializers.CharField()
    source = serializers.CharField()  # type: ignore[assignment]
    url = serializers.SerializerMethodField(help_text="the bytes, for readers of the vault")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    def get_url(self, attachment: Attachment) -> str:
        return attachment_url(attachment)


class ImportIn(serializers.Serializer):
    file = serializers.FileField()
    source = serializers.CharField(max_length=200, required=False, allow_blank=True)  # type: ignore[assignment]


class FileResultOut(serializers.Serializer):
    path = serializers.CharField()
    outcome = serializers.CharField()
    reason = serializers.CharField()


class CorrectionOut(serializers.Serializer):
    id = serializers.IntegerField()
    vault = serializers.IntegerField(source="vault_id")
    note = serializers.IntegerField(source="note_id")
    note_path = serializers.CharField(source="note.path")
    passage = serializers.CharField()
    text = serializers.CharField()
    status = serializers.CharField()
    proposed_by = serializers.CharField(source="proposed_by.username", default=None, allow_null=True)
    decided_by = serializers.CharField(source="decided_by.username", default=None, allow_null=True)
    successor = serializers.IntegerField(source="successor_id", allow_null=True)
    created_at = serializers.DateTimeField()
    decided_at = serializers.DateTimeField(allow_null=True)


class CorrectionListQuery(serializers.Serializer):
    status = serializers.ChoiceField(choices=CorrectionStatus.values, required=False)


class CorrectionActionIn(serializers.Serializer):
    action = serializers.ChoiceField(choices=["apply", "decline"])


class StepFailureOut(serializers.Serializer):
    id = serializers.IntegerField()
    note = serializers.IntegerField(source="note_id")
    title = serializers.CharField(source="note.title")
    path = serializers.CharField(source="note.path")
    step = serializers.ChoiceField(choices=NoteStep.choices)
    step_label = serializers.CharField(source="get_step_display")
    model = serializers.CharField(help_text="the model or extractor the step ran with")
    reason = serializers.CharField()
    failed_at = serializers.DateTimeField()
    retries = serializers.IntegerField(help_text="failures after the first; the next sweep waits longer each time")


class StepStateOut(serializers.Serializer):
    step = serializers.CharField(help_text="embedding, graph_extraction or metadata")
    label = serializers.CharField()  # type: ignore[assignment]
    waiting = serializers.IntegerField(help_text="notes of this job the step has not reached yet")
    failed = serializers.SerializerMethodField(help_text="notes of this job the step failed on")
    failures = StepFailureOut(many=True, help_text="newest first, at most 100")

    def get_failed(self, state: StepState) -> int:
        return len(state.failures)

    def to_representation(self, instance: StepState) -> dict[str, object]:
        data = super().to_representation(instance)
        data["failures"] = data["failures"][:FAILURES_SHOWN]
        return data


class JobOut(serializers.Serializer):
    id = serializers.IntegerField()
    job = serializers.IntegerField(source="id")
    vault = serializers.IntegerField(source="vault_id")
    source = serializers.CharField(help_text="the label the imported notes are kept under")  # type: ignore[assignment]
    file_name = serializers.CharField(help_text="the uploaded file's name as uploaded; empty for a folder")
    own_export = serializers.BooleanField(
        help_text="the zip or folder is this vault's own export: it updates the notes it holds, whoever wrote them"
    )
    status = serializers.ChoiceField(
        choices=list(JobStatus.LABELS),
        help_text="the import's own status until its files are in; then following_up while its notes wait for a "
        "follow-up step, succeeded_with_failures when a step failed on some of them, else succeeded; "
        "nothing_imported when every file was skipped (status_label counts them)",
    )
    status_label = serializers.CharField()
    import_status = serializers.CharField(help_text="the import step alone: queued, running, succeeded or failed")
    phase = serializers.CharField(help_text="while running: reading, embedding or linking")
    total = serializers.IntegerField()
    processed = serializers.IntegerField(help_text="files read so far")
    embed_total = serializers.IntegerField(help_text="distinct new chunk texts the embedding phase sends")
    embed_done = serializers.IntegerField()
    progress = serializers.FloatField()
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="files per outcome, and chunks_embedded")
    follow_up = StepStateOut(many=True, help_text="once the files are in: each follow-up step of the job's notes")
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    attempt = serializers.IntegerField(help_text="1, then one more for each retry from the first file")
    files = FileResultOut(many=True, help_text="each file's outcome in the latest attempt")

    def to_representation(self, instance: ImportJob) -> dict[str, object]:
        follow_up = import_job_follow_up(instance)
        view = {
            "id": instance.pk,
            "vault_id": instance.vault_id,
            "source": instance.source,
            "file_name": instance.file_name,
            "own_export": instance.own_export,
            "status": follow_up.status,
            "status_label": follow_up.label,
            "import_status": instance.status,
            "phase": instance.phase,
            "total": instance.total,
            "processed": instance.processed,
            "embed_total": instance.embed_total,
            "embed_done": instance.embed_done,
            "progress": job_progress(instance),
            "counts": instance.counts,
            "follow_up": follow_up.steps,
            "error": instance.error,
            "created_at": instance.created_at,
            "started_at": instance.started_at,
            "finished_at": instance.finished_at,
            "attempt": instance.attempt,
            "files": instance.outcomes(),
        }
        return super().to_representation(view)


class EmbeddingSwitchIn(serializers.Serializer):
    model = serializers.CharField(max_length=200, help_text="a registered local model (local/...) or a litellm name")


class EmbeddingModelOut(serializers.Serializer):
    model = serializers.CharField()
    state = serializers.CharField(help_text="active (searched), building (not searched until complete) or retired")
    embedded = serializers.IntegerField(help_text="this vault's passages holding a vector of the model")
    total = serializers.IntegerField(help_text="this vault's passages")


class ExportJobOut(serializers.Serializer):
    id = serializers.IntegerField()
    vault = serializers.IntegerField(source="vault_id")
    status = serializers.ChoiceField(choices=["queued", "running", "succeeded", "failed"])
    notes = serializers.IntegerField(help_text="notes in the zip")
    attachments = serializers.IntegerField(help_text="attachments in the zip")
    size = serializers.IntegerField(help_text="bytes of the zip")
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.SerializerMethodField(help_text="poll this until the status is succeeded or failed")
    download_url = serializers.SerializerMethodField(help_text="the zip, once the status is succeeded")

    def get_url(self, job: ExportJob) -> str:
        return reverse("export-detail", args=[job.pk])

    def get_download_url(self, job: ExportJob) -> str | None:
        return reverse("export-download", args=[job.pk]) if job.status == "succeeded" else None


class CoverageFileOut(serializers.Serializer):
    path = serializers.CharField()
    kind = serializers.ChoiceField(choices=["note", "file", ""], help_text="'' for a file that was never stored")
    state = serializers.ChoiceField(choices=list(STATES))
    reason = serializers.CharField(help_text="why it was skipped, failed or removed; '' otherwise")
    step = serializers.CharField(help_text="the background step that failed on it, when state is failed")
    imported_at = serializers.DateTimeField(allow_null=True, help_text="when its latest import ran")
    job = serializers.IntegerField(help_text="that import job")
    note = serializers.IntegerField(allow_null=True)


class CoverageOut(serializers.Serializer):
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="files in each state")
    files = CoverageFileOut(many=True)
