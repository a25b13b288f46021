from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import actor
from apps.core.serializers import errors
from apps.core.validation import vault_param
from apps.insights.card_selectors import blend_payload, card_get, insights_get, insights_payload
from apps.insights.card_services import card_answer
from apps.insights.models import CardKind, CardSignal


class EvidenceNoteOut(serializers.Serializer):
    id = serializers.IntegerField()
    path = serializers.CharField()
    title = serializers.CharField()
    url = serializers.CharField(help_text="the note's page")


class CardOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=CardKind.choices)
    title = serializers.CharField()
    narrative = serializers.CharField()
    why = serializers.CharField(help_text="why you are seeing this: the measure that ranked it")
    score = serializers.FloatField()
    evidence = EvidenceNoteOut(many=True)


class InsightListOut(serializers.Serializer):
    kind = serializers.ChoiceField(choices=CardKind.choices)
    title = serializers.CharField()
    cards = CardOut(many=True, help_text="at most five, best first")


class BlendOut(serializers.Serializer):
    id = serializers.IntegerField()
    parents = serializers.ListField(child=serializers.IntegerField())
    note = serializers.IntegerField(allow_null=True)
    url = serializers.CharField(allow_null=True)
    written = serializers.BooleanField(help_text="false while the worker is still writing it")


class InsightsOut(serializers.Serializer):
    vault = serializers.IntegerField()
    lists = InsightListOut(many=True)
    preparing = serializers.IntegerField(help_text="cards still being written in the background")
    built = serializers.BooleanField(help_text="false until the vault's first insights run")
    building = serializers.ChoiceField(
        choices=["queued", "running", ""],
        help_text="`queued` or `running` while a build after the vault's latest changes is on its way, else empty",
    )
    blends = BlendOut(many=True, help_text="your blends of this vault's collisions")


class CardAnswerIn(serializers.Serializer):
    signal = serializers.ChoiceField(choices=CardSignal.choices)


class CardAnsweredOut(serializers.Serializer):
    card = serializers.IntegerField()
    signal = serializers.ChoiceField(choices=CardSignal.choices)
    recorded = serializers.BooleanField(help_text="false when you had answered this card already")
    blend = BlendOut(allow_null=True, help_text="the blend an accepted collision asked for")


class InsightsApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("vault", int, required=True, description="a vault you can read")],
        responses={200: InsightsOut, **errors(400, 404)},
        summary="A vault's insights: four top-5 lists of cards that are ready, and what is still being prepared",
    )
    def get(self, request: Request) -> Response:
        vault = vault_param(request.query_params.get("vault"))
        return Response(InsightsOut(insights_payload(insights_get(user=actor(request), vault_id=vault))).data)


class CardAnswerApi(APIView):
    @extend_schema(
        request=CardAnswerIn,
        responses={200: CardAnsweredOut, **errors(400, 404)},
        summary="Accept a card (a fertile collision is blended into your personal vault) or dismiss it",
    )
    def post(self, request: Request, card_id: int) -> Response:
        card = card_get(user=actor(request), card_id=card_id)
        data = CardAnswerIn(data=request.data)
        data.is_valid(raise_exception=True)
        answer, blend, new = card_answer(actor=actor(request), card=card, signal=data.validated_data["signal"])
        out = {"card": card.pk, "signal": answer.signal, "recorded": new, "blend": blend and blend_payload(blend)}
        return Response(CardAnsweredOut(out).data)
