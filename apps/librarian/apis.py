from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import actor
from apps.core.serializers import errors
from apps.core.validation import is_id
from apps.librarian.publishing import note_publish
from apps.librarian.serializers import SummaryDetailOut, SummaryOut
from apps.librarian.summaries.selectors import summary_get, summary_list
from apps.notes.apis import note_out
from apps.notes.selectors import note_get
from apps.notes.serializers import NoteOut
from apps.vaults.selectors import vault_get


class PublishIn(serializers.Serializer):
    vault = serializers.IntegerField(min_value=1)


class NotePublishApi(APIView):
    @extend_schema(
        request=PublishIn,
        responses={201: NoteOut, **errors(400, 403, 404)},
        summary="Publish a note the Librarian filed in your personal vault into a shared vault (contributors)",
    )
    def post(self, request: Request, note_id: int) -> Response:
        data = PublishIn(data=request.data)
        data.is_valid(raise_exception=True)
        user = actor(request)
        note = note_get(user=user, note_id=note_id)
        vault = vault_get(user=user, vault_id=data.validated_data["vault"])
        copy = note_publish(actor=user, note=note, vault=vault)
        return Response(note_out(copy, user=user), status=status.HTTP_201_CREATED)


def _id_param(request: Request, name: str) -> int | None:
    raw = (request.query_params.get(name) or "").strip()
    if not raw:
        return None
    if not is_id(raw):
        raise ValidationError({name: ["give a number"]})
    return int(raw)


class SummaryListApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("level", int, description="0 conversations, 1 weeks, 2 months"),
            OpenApiParameter("conversation", int, description="one of your conversations"),
        ],
        responses={200: SummaryOut(many=True), **errors(400)},
        summary="Your session summaries (the summary DAG), oldest period first",
    )
    def get(self, request: Request) -> Response:
        level, conversation = _id_param(request, "level"), _id_param(request, "conversation")
        return Response(
            SummaryOut(summary_list(user=actor(request), level=level, conversation=conversation), many=True).data
        )


class SummaryDetailApi(APIView):
    @extend_schema(
        responses={200: SummaryDetailOut, **errors(404)},
        summary="One of your session summaries: its text, the summaries it condenses and those condensing it, "
        "and the messages it summarises",
    )
    def get(self, request: Request, summary_id: int) -> Response:
        return Response(SummaryDetailOut(summary_get(user=actor(request), summary_id=summary_id)).data)
