from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.chat.models import Conversation, Feedback, Message, Role, Signal, Status
from apps.chat.selectors import expansion
from apps.chat.serializers import (
    ChatAnswerDetailOut,
    ChatAnswerOut,
    ConversationCancelOut,
    ConversationDetailOut,
    ConversationOut,
    ExpansionOut,
    FeedbackOut,
)
from apps.chat.services.asking import chat_ask, not_answered
from apps.chat.services.chat import message_payload
from apps.chat.services.feedback import answer_pick, correction_of, feedback_record, feedback_undo
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
        conversation = Conversation.objects.filter(pk=conversation_id, owner=actor(request)).first()
        if conversation is None:
            return Response({"detail": "No conversation matches the given query."}, status=404)
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
        conversation = Conversation.objects.filter(pk=conversation_id, owner=actor(request)).first()
        if conversation is None:
            return Response({"detail": "No conversation matches the given query."}, status=404)
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
