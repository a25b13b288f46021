from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import actor
from apps.core.serializers import errors
from apps.core.validation import vault_param
from apps.insights.selectors import (
    notification_get,
    notification_list,
    notification_payload,
    principle_get,
    principle_list,
    principle_payload,
)
from apps.insights.serializers import NotificationListOut, NotificationOut, PrincipleAnsweredOut, PrincipleListOut
from apps.insights.services import SIGNALS, notification_read, principle_answer


class PrincipleAnswerIn(serializers.Serializer):
    signal = serializers.ChoiceField(choices=SIGNALS)
    text = serializers.CharField(required=False, allow_blank=True, max_length=500)


class PrinciplesApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("vault", int, required=True, description="a vault you can read")],
        responses={200: PrincipleListOut, **errors(400, 404)},
        summary="Principles DesirePath noticed in a vault, with their evidence trail and status",
    )
    def get(self, request: Request) -> Response:
        vault = vault_param(request.query_params.get("vault"))
        rows = principle_list(user=actor(request), vault_id=vault)
        return Response(PrincipleListOut({"principles": [principle_payload(p) for p in rows]}).data)


class PrincipleApi(APIView):
    @extend_schema(
        request=PrincipleAnswerIn,
        responses={200: PrincipleAnsweredOut, **errors(400, 403, 404)},
        summary="Confirm a principle (walks go through it), correct it (`text`: it is refined) or reject it (it fades)",
    )
    def post(self, request: Request, principle_id: int) -> Response:
        principle = principle_get(user=actor(request), principle_id=principle_id)
        data = PrincipleAnswerIn(data=request.data)
        data.is_valid(raise_exception=True)
        principle, new = principle_answer(
            actor=actor(request),
            principle=principle,
            signal=data.validated_data["signal"],
            text=data.validated_data.get("text", ""),
        )
        return Response(PrincipleAnsweredOut({**principle_payload(principle), "recorded": new}).data)


class NotificationsApi(APIView):
    @extend_schema(responses={200: NotificationListOut}, summary="What DesirePath noticed for you, newest first")
    def get(self, request: Request) -> Response:
        rows = notification_list(user=actor(request))[:200]
        return Response(NotificationListOut({"notifications": [notification_payload(n) for n in rows]}).data)


class NotificationReadApi(APIView):
    @extend_schema(request=None, responses={200: NotificationOut, **errors(404)}, summary="Mark a notification as read")
    def post(self, request: Request, notification_id: int) -> Response:
        notification = notification_get(user=actor(request), notification_id=notification_id)
        read = notification_read(actor=actor(request), notification=notification)
        return Response(NotificationOut(notification_payload(read)).data)
