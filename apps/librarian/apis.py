from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import actor
from apps.librarian.publishing import note_publish
from apps.notes.apis import note_out
from apps.notes.selectors import note_get
from apps.notes.serializers import NoteOut
from apps.vaults.selectors import vault_get


class PublishIn(serializers.Serializer):
    vault = serializers.IntegerField(min_value=1)


class NotePublishApi(APIView):
    @extend_schema(
        request=PublishIn,
        responses={201: NoteOut},
        summary="Publish a note the Librarian filed in your personal vault into a shared vault (contributors)",
    )
    def post(self, request: Request, note_id: int) -> Response:
        data = PublishIn(data=request.data)
        data.is_valid(raise_exception=True)
        user = actor(request)
        note = note_get(user=user, note_id=note_id)
        vault = vault_get(user=user, vault_id=data.validated_data["vault"])
        copy = note_publish(actor=user, note=note, vault=vault)
        return Response(note_out(copy), status=status.HTTP_201_CREATED)
