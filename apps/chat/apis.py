from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.chat.models import Conversation, Message, Role, Status
from apps.chat.selectors import conversation_get, expansion
from apps.chat.serializers import (
    ChatAnswerDetailOut,
    ChatAnswerOut,
    ConversationCancelOut,
    ConversationDetailOut,
    ConversationOut,
    ExpansionOut,
)
from apps.chat.services.asking import chat_ask, not_answered
from apps.chat.services.chat import message_payload
from apps.chat.services.history import conversation_delete
from apps.core.auth import actor
from apps.core.serializers import ErrorOut, errors
from apps.vaults.permissions import vault_ids_for


class ChatIn(serializers.Serializer):
    vaults = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False, default=list)
    message = serializers.CharField(allow_blank=True, trim_whitespace=False)
    conversation = serializers.IntegerField(required=False, allow_null=True, min_value=1)


class ChatApi(APIView):
    @extend_schema(
        request=ChatIn,
        responses={
            200: ChatAnswerOut,
            202: OpenApiResponse(
                ChatAnswerDetailOut,
                description="Still being written, or waiting its turn behind other answers: fetch the conversation.",
            ),
            **errors(400),
            404: OpenApiResponse(
                ErrorOut,
                description="A vault or the conversation is not yours to read. When a vault became unreadable while "
                "answering, the body is the kept question's answer state with `detail`, as for 503.",
            ),
            409: OpenApiResponse(ChatAnswerDetailOut, description="Another run is writing this answer."),
            503: OpenApiResponse(
                ChatAnswerDetailOut, description="The question is kept; answering failed or no worker picked it up."
            ),
        },
        summary="Ask a question; a worker answers while the call waits: 200 when the answer is complete (its "
        "context, citations and gate scores); 202 if it is still being written after the wait, or at once when "
        "the asker already has as many answers waiting as allowed, or while it waits its turn behind answers the "
        "workers are writing (fetch the conversation); 404 if a vault became unreadable meanwhile; 503 (question "
        "kept) if answering failed or no worker picked it up while none was writing",
    )
    def post(self, request: Request) -> Response:
        data = ChatIn(data=request.data)
        data.is_valid(raise_exception=True)
        asked = chat_ask(
            user=actor(request),
            vault_ids=data.validated_data["vaults"],
            text=data.validated_data["message"],
            conversation_id=data.validated_data.get("conversation"),
        )
        last, payload = asked.last, message_payload(asked.message)
        if last.kind == "unwaited":
            body = ChatAnswerDetailOut({**payload, "detail": last.data["detail"]}).data
            return Response(body, status=status.HTTP_202_ACCEPTED)
        if last.kind == "failure":
            return Response(
                ChatAnswerDetailOut({**payload, "detail": last.data["detail"]}).data, status=last.data["status"]
            )
        if last.kind == "timeout":
            code, detail = not_answered(asked)
            return Response(ChatAnswerDetailOut({**payload, "detail": detail}).data, status=code)
        return Response(ChatAnswerOut(payload).data)


def conversation_payload(conversation: Conversation, *, messages: bool, user: User | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": conversation.pk,
        "title": conversation.title,
        "created_at": conversation.created_at,
        "updated_at": conversation.updated_at,
    }
    if messages:
        readable = set(vault_ids_for(user, "read")) if user is not None else set()
        body["vaults"] = sorted(set(conversation.vault_ids) & readable)
        rows = conversation.messages.filter(role=Role.ASSISTANT).select_related("reply_to")
        body["turns"] = [
            {"question": m.reply_to.text if m.reply_to else "", **message_payload(m, readable)} for m in rows
        ]
    return body


class ConversationListApi(APIView):
    @extend_schema(responses={200: ConversationOut(many=True)}, summary="Your conversations, newest first")
    def get(self, request: Request) -> Response:
        rows = Conversation.objects.filter(owner=actor(request))[:200]
        return Response(ConversationOut([conversation_payload(c, messages=False) for c in rows], many=True).data)


class ConversationDetailApi(APIView):
    @extend_schema(
        responses={200: ConversationDetailOut, **errors(404)}, summary="One of your conversations with every turn"
    )
    def get(self, request: Request, conversation_id: int) -> Response:
        conversation = conversation_get(user=actor(request), conversation_id=conversation_id)
        return Response(
            ConversationDetailOut(conversation_payload(conversation, messages=True, user=actor(request))).data
        )

    @extend_schema(
        request=None,
        responses={204: None, **errors(404, 409)},
        summary="Delete one of your conversations for good (409 while an answer in it is being written)",
    )
    def delete(self, request: Request, conversation_id: int) -> Response:
        conversation_delete(user=actor(request), conversation_id=conversation_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ConversationCancelApi(APIView):
    @extend_schema(
        request=None,
        responses={202: ConversationCancelOut, **errors(404)},
        summary="Skip the deep research in flight",
    )
    def post(self, request: Request, conversation_id: int) -> Response:
        conversation = conversation_get(user=actor(request), conversation_id=conversation_id)
        running = conversation.messages.filter(role=Role.ASSISTANT, status__in=[Status.PENDING, Status.RUNNING])
        count = running.update(cancel_requested=True)
        return Response(ConversationCancelOut({"cancelled": count}).data, status=status.HTTP_202_ACCEPTED)


def pending_message(*, user: User, message_id: int) -> Message | None:
    return Message.objects.filter(
        pk=message_id, role=Role.ASSISTANT, status=Status.PENDING, conversation__owner=user
    ).first()


class ExpandApi(APIView):
    @extend_schema(
        responses={200: ExpansionOut, **errors(404)}, summary="A context unit's sources and the path behind it"
    )
    def get(self, request: Request, item_id: int) -> Response:
        return Response(ExpansionOut(expansion(user=actor(request), item_id=item_id)).data)
