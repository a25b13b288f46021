"""The API of discovered concepts (readers list them, contributors accept or dismiss) and of discovery's usage
report (staff)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import actor
from apps.core.serializers import errors
from apps.core.validation import vault_param
from apps.insights.budgets import usage_report
from apps.insights.concepts import VERDICTS, concept_answer, concept_get, concept_list, concept_payload
from apps.insights.models import ConceptStatus


class ConceptMemberOut(serializers.Serializer):
    note = serializers.IntegerField()
    path = serializers.CharField()
    co_visits = serializers.IntegerField(help_text="answers and linking notes it shared with the hub")


class ConceptRelationOut(serializers.Serializer):
    concept = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]
    why = serializers.CharField()


class ConceptOut(serializers.Serializer):
    id = serializers.IntegerField()
    vault = serializers.IntegerField()
    entity = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]
    description = serializers.CharField()
    provenance = serializers.CharField(help_text="always `proposal`: the system found it, no person wrote it")
    status = serializers.ChoiceField(choices=ConceptStatus.choices)
    written_by = serializers.CharField(help_text="the reasoning model that wrote it, or `model-free`")
    hub = serializers.IntegerField(allow_null=True)
    members = ConceptMemberOut(many=True)
    relations = ConceptRelationOut(many=True)
    created_at = serializers.DateTimeField()


class ConceptListOut(serializers.Serializer):
    concepts = ConceptOut(many=True)


class ConceptAnswerIn(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=sorted(VERDICTS))


class ConceptsApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("vault", int, required=True, description="a vault you can read")],
        responses={200: ConceptListOut, **errors(400, 404)},
        summary="Concepts discovery formed in a vault from its footsteps (proposals), newest first",
    )
    def get(self, request: Request) -> Response:
        vault = vault_param(request.query_params.get("vault"))
        rows = concept_list(user=actor(request), vault_id=vault)[:200]
        return Response(ConceptListOut({"concepts": [concept_payload(c) for c in rows]}).data)


class ConceptApi(APIView):
    @extend_schema(
        request=ConceptAnswerIn,
        responses={200: ConceptOut, **errors(400, 403, 404)},
        summary="Accept or dismiss a discovered concept",
    )
    def post(self, request: Request, concept_id: int) -> Response:
        concept = concept_get(user=actor(request), concept_id=concept_id)
        data = ConceptAnswerIn(data=request.data)
        data.is_valid(raise_exception=True)
        concept = concept_answer(actor=actor(request), concept=concept, verdict=data.validated_data["verdict"])
        return Response(ConceptOut(concept_payload(concept_get(user=actor(request), concept_id=concept.pk))).data)


class UsageDayOut(serializers.Serializer):
    day = serializers.DateField()
    vault = serializers.IntegerField()
    screening = serializers.IntegerField(help_text="screening calls (scoring slot)")
    formation = serializers.IntegerField(help_text="formation calls (reasoning slot)")
    collisions = serializers.IntegerField(help_text="collision verdict calls (scoring slot)")
    cards = serializers.IntegerField(help_text="insight card narrative calls (reasoning slot)")
    blends = serializers.IntegerField(help_text="blend calls (reasoning slot), each asked for by a person")


class DiscoveryUsageOut(serializers.Serializer):
    days = UsageDayOut(many=True)
    calls = serializers.IntegerField()
    formed = serializers.IntegerField()
    accepted = serializers.IntegerField()
    calls_per_accepted = serializers.FloatField(allow_null=True)


class DiscoveryUsageApi(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        responses={200: DiscoveryUsageOut, **errors(403)},
        summary="Discovery's model calls per tier per day and vault, and calls per accepted suggestion (staff)",
    )
    def get(self, request: Request) -> Response:
        report = usage_report()
        payload = {
            "days": report.days,
            "calls": report.calls,
            "formed": report.formed,
            "accepted": report.accepted,
            "calls_per_accepted": report.calls_per_accepted,
        }
        return Response(DiscoveryUsageOut(payload).data)
