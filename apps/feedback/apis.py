"""The feedback API: rate a context item, undo the vote, point to the passage that answers a question."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import actor
from apps.core.serializers import errors
from apps.feedback.models import Feedback, Signal
from apps.feedback.serializers import FeedbackOut
from apps.feedback.services.votes import answer_pick, correction_of, feedback_record, feedback_undo


class FeedbackIn(serializers.Serializer):
    context_item = serializers.IntegerField(min_value=1)
    signal = serializers.ChoiceField(choices=Signal.choices)
    text = serializers.CharField(required=False, allow_blank=True, default="")
    propose = serializers.BooleanField(
        required=False, default=False, help_text="a contributor's correction waits for review instead of applying"
    )


class FeedbackApi(APIView):
    @extend_schema(
        request=FeedbackIn,
        responses={201: FeedbackOut, 200: FeedbackOut, **errors(400, 404)},
        summary="Rate a context item: one choice per item, a new one replaces the earlier (201 new vote, 200 when "
        "this choice was already your current one)",
    )
    def post(self, request: Request) -> Response:
        data = FeedbackIn(data=request.data)
        data.is_valid(raise_exception=True)
        vote, created = feedback_record(
            user=actor(request),
            item_id=data.validated_data["context_item"],
            signal=data.validated_data["signal"],
            text=data.validated_data["text"],
            propose=data.validated_data["propose"],
        )
        return vote_response(vote, created)


class FeedbackUndoApi(APIView):
    @extend_schema(
        responses={204: None, **errors(400, 404)},
        summary="Undo your vote: what it taught is taken back and it is no longer your choice (204, again harmless)",
    )
    def delete(self, request: Request, vote_id: int) -> Response:
        feedback_undo(user=actor(request), vote_id=vote_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AnswerPickIn(serializers.Serializer):
    message = serializers.IntegerField(min_value=1, help_text="an answer in one of your conversations")
    chunk = serializers.IntegerField(min_value=1, help_text="a passage you may read (`chunk` of a search hit)")


class AnswerPickApi(APIView):
    @extend_schema(
        request=AnswerPickIn,
        responses={201: FeedbackOut, 200: FeedbackOut, **errors(400, 404)},
        summary="Point to the passage that answers a question you asked (201 new, 200 when already recorded)",
    )
    def post(self, request: Request) -> Response:
        data = AnswerPickIn(data=request.data)
        data.is_valid(raise_exception=True)
        vote, created = answer_pick(
            user=actor(request), message_id=data.validated_data["message"], chunk_id=data.validated_data["chunk"]
        )
        return vote_response(vote, created)


def vote_response(vote: Feedback, created: bool) -> Response:
    """A vote as both feedback endpoints answer it: 201 when new, 200 when it was already recorded."""
    body: dict[str, Any] = {"id": vote.pk, "context_item": vote.context_item_id, "signal": vote.signal}
    correction = correction_of(vote)
    if correction is not None:
        body["correction"] = {"id": correction.pk, "status": correction.status, "successor": correction.successor_id}
    replaced = Feedback.objects.filter(replaced_by=vote).values_list("pk", flat=True).first() if created else None
    if replaced is not None:
        body["replaced"] = replaced
    return Response(
        FeedbackOut({**body, "created": created}).data,
        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
    )
