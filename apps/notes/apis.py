from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import Requester, actor
from apps.core.serializers import ErrorOut, errors
from apps.llm.local_models import ModelConfigurationError, WeightsMismatchError
from apps.notes import selectors
from apps.notes.coverage import import_coverage
from apps.notes.models import ImportStatus, Note
from apps.notes.serializers import (
    AttachmentListQuery,
    AttachmentOut,
    CorrectionActionIn,
    CorrectionListQuery,
    CorrectionOut,
    CoverageOut,
    EmbeddingModelOut,
    EmbeddingSwitchIn,
    ExportJobOut,
    ImportIn,
    JobOut,
    NoteConflictOut,
    NoteCreateIn,
    NoteListOut,
    NoteListQuery,
    NoteOut,
    NoteUpdateIn,
    StepFailureOut,
)
from apps.notes.services import notes as note_services
from apps.notes.services.corrections import correction_apply, correction_decline
from apps.notes.services.embedding_switch import embedding_switch_progress, embedding_switch_start, embedding_switches
from apps.notes.services.export import export_folder_name, export_job_create, export_size, vault_export_inline
from apps.notes.services.ingest import import_job_from_upload
from apps.notes.services.recovery import import_job_retry
from apps.vaults.selectors import vault_get


def note_out(note: Note, *, user: Requester) -> dict:
    note.link_rows = list(selectors.note_links(note=note))  # type: ignore[attr-defined]
    note.backlink_rows = list(selectors.note_backlinks(user=user, note=note))  # type: ignore[attr-defined]
    note.metadata_row = selectors.note_metadata(note=note)  # type: ignore[attr-defined]
    note.superseded_rows = selectors.note_superseded(note=note)  # type: ignore[attr-defined]
    return dict(NoteOut(note).data)


def note_response(note: Note, *, user: Requester, status_code: int = status.HTTP_200_OK) -> Response:
    return Response(
        note_out(note, user=user), status=status_code, headers={"ETag": f'"{note_services.note_version(note)}"'}
    )


def if_match(request: Request) -> set[str] | None:
    """The versions an If-Match header names; None when it is absent or `*` (any version)."""
    header = request.headers.get("If-Match", "").strip()
    if not header or header == "*":
        return None
    return {tag.strip().removeprefix("W/").strip('"') for tag in header.split(",") if tag.strip()}


class VaultNotesApi(APIView):
    pagination_class = PageNumberPagination

    @extend_schema(
        parameters=[NoteListQuery],
        responses={200: NoteListOut(many=True), **errors(400, 404)},
        summary="Notes of a vault",
    )
    def get(self, request: Request, vault_id: int) -> Response:
        vault = vault_get(user=actor(request), vault_id=vault_id)
        query = NoteListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(
            selectors.note_list(user=actor(request), vault=vault, tier=query.validated_data["tier"]), request, view=self
        )
        return paginator.get_paginated_response(NoteListOut(page, many=True).data)

    @extend_schema(
        request=NoteCreateIn,
        responses={201: NoteOut, **errors(400, 403, 404, 409)},
        summary="Write a note (contributors)",
    )
    def post(self, request: Request, vault_id: int) -> Response:
        vault = vault_get(user=actor(request), vault_id=vault_id, action="contribute")
        data = NoteCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        note = note_services.note_create(actor=actor(request), vault=vault, **data.validated_data)
        return note_response(note, user=actor(request), status_code=status.HTTP_201_CREATED)


class VaultAttachmentsApi(APIView):
    pagination_class = PageNumberPagination

    @extend_schema(
        parameters=[AttachmentListQuery],
        responses={200: AttachmentOut(many=True), **errors(400, 404)},
        summary="Attachments of a vault (images, PDFs, other files), each with the URL of its bytes",
    )
    def get(self, request: Request, vault_id: int) -> Response:
        user = actor(request)
        vault = vault_get(user=user, vault_id=vault_id)
        query = AttachmentListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        paginator = self.pagination_class()
        rows = selectors.attachment_list(user=user, vault_id=vault.pk, tier=query.validated_data["tier"])
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response(AttachmentOut(page, many=True).data)


class NoteDetailApi(APIView):
    @extend_schema(
        responses={200: NoteOut, **errors(404)},
        summary="A note with its links and backlinks; the ETag header is its version, for If-Match on a write",
    )
    def get(self, request: Request, note_id: int) -> Response:
        return note_response(selectors.note_get(user=actor(request), note_id=note_id), user=actor(request))

    @extend_schema(
        request=NoteUpdateIn,
        responses={200: NoteOut, 409: NoteConflictOut, **errors(400, 403, 404)},
        summary="Rewrite a note (contributors); 409 if it changed since (with If-Match) or its vault is archived",
    )
    def put(self, request: Request, note_id: int) -> Response:
        return self._write(request, note_id, partial=False)

    @extend_schema(
        request=NoteUpdateIn(partial=True),
        responses={200: NoteOut, 409: NoteConflictOut, **errors(400, 403, 404)},
        summary="Change a note's body or path (contributors); 409 if it changed since or its vault is archived",
    )
    def patch(self, request: Request, note_id: int) -> Response:
        return self._write(request, note_id, partial=True)

    def _write(self, request: Request, note_id: int, *, partial: bool) -> Response:
        note = selectors.note_get(user=actor(request), note_id=note_id)
        data = NoteUpdateIn(data=request.data, partial=partial)
        data.is_valid(raise_exception=True)
        try:
            note = note_services.note_update(
                actor=actor(request), note=note, if_version=if_match(request), **data.validated_data
            )
        except note_services.NoteChanged as conflict:
            # The writer's text comes back beside the current version, so nothing typed is lost to the refusal.
            body = {
                "detail": str(conflict),
                "current": note_out(conflict.current, user=actor(request)),
                "yours": data.validated_data,
            }
            version = note_services.note_version(conflict.current)
            return Response(body, status=status.HTTP_409_CONFLICT, headers={"ETag": f'"{version}"'})
        return note_response(note, user=actor(request))

    @extend_schema(
        responses={200: NoteOut, **errors(403, 404, 409)},
        summary="Move a note to the cold tier (contributors); nothing is destroyed",
    )
    def delete(self, request: Request, note_id: int) -> Response:
        note = selectors.note_get(user=actor(request), note_id=note_id)
        return note_response(note_services.note_delete(actor=actor(request), note=note), user=actor(request))


class NoteRestoreApi(APIView):
    @extend_schema(
        request=None, responses={200: NoteOut, **errors(403, 404, 409)}, summary="Bring a cold note back (managers)"
    )
    def post(self, request: Request, note_id: int) -> Response:
        note = selectors.note_get(user=actor(request), note_id=note_id)
        return note_response(note_services.note_restore(actor=actor(request), note=note), user=actor(request))


class NotePurgeApi(APIView):
    @extend_schema(
        request=None,
        responses={204: None, **errors(400, 403, 404, 409)},
        summary="Remove a cold note for good (managers; logged)",
    )
    def post(self, request: Request, note_id: int) -> Response:
        note = selectors.note_get(user=actor(request), note_id=note_id)
        note_services.note_purge(actor=actor(request), note=note)
        return Response(status=status.HTTP_204_NO_CONTENT)


class VaultImportApi(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": ImportIn},
        responses={202: JobOut, **errors(400, 403, 404, 409)},
        summary="Upload a zip of an Obsidian vault, or one Markdown note; poll the returned job",
    )
    def post(self, request: Request, vault_id: int) -> Response:
        vault = vault_get(user=actor(request), vault_id=vault_id, action="contribute")
        data = ImportIn(data=request.data)
        data.is_valid(raise_exception=True)
        job = import_job_from_upload(
            actor=actor(request),
            vault=vault,
            upload=data.validated_data["file"],
            source=data.validated_data.get("source") or "",
        )
        return Response(JobOut(job).data, status=status.HTTP_202_ACCEPTED)


class VaultJobsApi(APIView):
    @extend_schema(responses={200: JobOut(many=True), **errors(404)}, summary="Import jobs of a vault, newest first")
    def get(self, request: Request, vault_id: int) -> Response:
        vault = vault_get(user=actor(request), vault_id=vault_id)
        jobs = vault.import_jobs.all()[:20]
        return Response(JobOut(jobs, many=True).data)


class VaultFailuresApi(APIView):
    @extend_schema(
        responses={200: StepFailureOut(many=True), **errors(404)},
        summary="Notes a background step (graph extraction, metadata) failed on, with the reason",
    )
    def get(self, request: Request, vault_id: int) -> Response:
        user = actor(request)
        vault = vault_get(user=user, vault_id=vault_id)
        rows = selectors.step_failure_list(user=user, vault_id=vault.pk)[:500]
        return Response(StepFailureOut(rows, many=True).data)


class VaultEmbeddingModelsApi(APIView):
    @extend_schema(
        responses={200: EmbeddingModelOut(many=True), **errors(404)},
        summary="The embedding models of the deployment and how far each has embedded this vault",
    )
    def get(self, request: Request, vault_id: int) -> Response:
        vault = vault_get(user=actor(request), vault_id=vault_id)
        return Response(EmbeddingModelOut(embedding_switches(vault_id=vault.pk), many=True).data)


class EmbeddingModelsApi(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        responses={200: EmbeddingModelOut(many=True), **errors(403)},
        summary="The deployment's embedding models and how far each has embedded every passage (staff)",
    )
    def get(self, request: Request) -> Response:
        return Response(EmbeddingModelOut(embedding_switches(), many=True).data)

    @extend_schema(
        request=EmbeddingSwitchIn,
        responses={202: EmbeddingModelOut, **errors(400, 403)},
        summary="Switch the deployment's embedding model: its vectors are built in the background, then swapped in "
        "(staff)",
    )
    def post(self, request: Request) -> Response:
        data = EmbeddingSwitchIn(data=request.data)
        data.is_valid(raise_exception=True)
        model = data.validated_data["model"]
        try:
            embedding_switch_start(model=model)
        except (ModelConfigurationError, WeightsMismatchError) as error:
            raise ValidationError({"model": [str(error)]}) from None
        return Response(EmbeddingModelOut(embedding_switch_progress(model=model)).data, status=status.HTTP_202_ACCEPTED)


class JobDetailApi(APIView):
    @extend_schema(responses={200: JobOut, **errors(404)}, summary="An import job: status, progress, per-file outcomes")
    def get(self, request: Request, job_id: int) -> Response:
        return Response(JobOut(selectors.import_job_get(user=actor(request), job_id=job_id)).data)


class JobRetryApi(APIView):
    @extend_schema(
        request=None,
        responses={202: JobOut, **errors(400, 403, 404, 409)},
        summary="Run a failed import again while its files are still there (contributors)",
    )
    def post(self, request: Request, job_id: int) -> Response:
        job = selectors.import_job_get(user=actor(request), job_id=job_id)
        return Response(JobOut(import_job_retry(actor=actor(request), job=job)).data, status=status.HTTP_202_ACCEPTED)


class VaultCorrectionsApi(APIView):
    @extend_schema(
        parameters=[CorrectionListQuery],
        responses={200: CorrectionOut(many=True), **errors(400, 403, 404)},
        summary="Corrections of a vault, newest first (contributors: readers' proposals wait here)",
    )
    def get(self, request: Request, vault_id: int) -> Response:
        vault = vault_get(user=actor(request), vault_id=vault_id, action="contribute")
        query = CorrectionListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        rows = selectors.correction_list(vault=vault, status=query.validated_data.get("status"))[:200]
        return Response(CorrectionOut(rows, many=True).data)


class CorrectionApi(APIView):
    @extend_schema(
        request=CorrectionActionIn,
        responses={200: CorrectionOut, **errors(400, 403, 404, 409)},
        summary="Apply a proposed correction (an authored note supersedes the passage) or decline it (contributors)",
    )
    def post(self, request: Request, correction_id: int) -> Response:
        correction = selectors.correction_get(user=actor(request), correction_id=correction_id)
        data = CorrectionActionIn(data=request.data)
        data.is_valid(raise_exception=True)
        act = correction_apply if data.validated_data["action"] == "apply" else correction_decline
        return Response(CorrectionOut(act(actor=actor(request), correction=correction)).data)


ZIP_RESPONSE = OpenApiResponse(OpenApiTypes.BINARY, description="a zip of the vault's notes and attachments")
TOO_LARGE = OpenApiResponse(ErrorOut, description="The vault is too large to export at once: POST to export it.")


def zip_response(data: bytes, *, name: str) -> HttpResponse:
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = content_disposition_header(True, f"{name}.zip") or "attachment"
    return response


class VaultExportApi(APIView):
    @extend_schema(
        responses={(200, "application/zip"): ZIP_RESPONSE, 413: TOO_LARGE, **errors(403, 404)},
        summary="The vault as a zip of Markdown notes (frontmatter included) and attachments (managers); a vault "
        "above the inline limit answers 413: POST to export it in the background",
    )
    def get(self, request: Request, vault_id: int) -> HttpResponse:
        user = actor(request)
        vault = vault_get(user=user, vault_id=vault_id, action="manage")
        limit = int(settings.EXPORT_INLINE_MAX_BYTES)
        if export_size(vault=vault) > limit:
            detail = f"this vault holds more than {limit >> 20} MiB: POST to this address to export it in the worker"
            return Response({"detail": detail}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        return zip_response(vault_export_inline(actor=user, vault=vault), name=export_folder_name(vault))

    @extend_schema(
        request=None,
        responses={202: ExportJobOut, **errors(403, 404)},
        summary="Export the vault in the background (managers); poll the returned job, then download its zip",
    )
    def post(self, request: Request, vault_id: int) -> Response:
        vault = vault_get(user=actor(request), vault_id=vault_id, action="manage")
        job = export_job_create(actor=actor(request), vault=vault)
        return Response(ExportJobOut(job).data, status=status.HTTP_202_ACCEPTED)


class ExportDetailApi(APIView):
    @extend_schema(responses={200: ExportJobOut, **errors(404)}, summary="An export job (managers of its vault)")
    def get(self, request: Request, export_id: int) -> Response:
        return Response(ExportJobOut(selectors.export_job_get(user=actor(request), job_id=export_id)).data)


class ExportDownloadApi(APIView):
    @extend_schema(
        responses={
            (200, "application/zip"): ZIP_RESPONSE,
            409: OpenApiResponse(ErrorOut, description="Not built yet, failed, or replaced by a newer export."),
            **errors(404),
        },
        summary="The zip an export job built (managers of its vault)",
    )
    def get(self, request: Request, export_id: int) -> HttpResponse:
        job = selectors.export_job_get(user=actor(request), job_id=export_id)
        if job.status != ImportStatus.SUCCEEDED or job.archive is None:
            why = {
                ImportStatus.QUEUED: "the export is still queued; poll it until it has succeeded",
                ImportStatus.RUNNING: "the export is still running; poll it until it has succeeded",
                ImportStatus.FAILED: f"the export failed: {job.error}",
            }.get(ImportStatus(job.status), "a newer export of this vault replaced this one's zip; export again")
            return Response({"detail": why}, status=status.HTTP_409_CONFLICT)
        return zip_response(bytes(job.archive), name=export_folder_name(job.vault))


class VaultCoverageApi(APIView):
    @extend_schema(
        responses={200: CoverageOut, **errors(404)},
        summary="Every file the vault's imports read: indexed, unchanged, waiting, skipped, failed or removed, with "
        "the reason and when it was last imported",
    )
    def get(self, request: Request, vault_id: int) -> Response:
        user = actor(request)
        vault = vault_get(user=user, vault_id=vault_id)
        coverage = import_coverage(user=user, vault_id=vault.pk)
        return Response(CoverageOut({"counts": coverage.counts, "files": coverage.files}).data)
