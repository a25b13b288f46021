from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import actor
from apps.llm.selectors import usage_for_vault
from apps.vaults.selectors import vault_get


class UsageRowOut(serializers.Serializer):
    created_at = serializers.DateTimeField()
    slot = serializers.CharField()
    purpose = serializers.CharField()
    model = serializers.CharField()
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    cost_usd = serializers.DecimalField(max_digits=12, decimal_places=6)
    latency_ms = serializers.IntegerField()
    outcome = serializers.CharField()
    user = serializers.IntegerField(source="user_id", allow_null=True)


class UsageTotalOut(serializers.Serializer):
    slot = serializers.CharField()
    calls = serializers.IntegerField()
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    cost_usd = serializers.DecimalField(max_digits=14, decimal_places=6)


class UsageOut(serializers.Serializer):
    totals = UsageTotalOut(many=True)
    rows = UsageRowOut(many=True)


class UsageApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("vault", OpenApiTypes.INT, required=True)],
        responses={200: UsageOut},
        summary="Model calls charged to a vault, with totals per slot (vault managers)",
    )
    def get(self, request: Request) -> Response:
        vault_id = request.query_params.get("vault", "")
        if not vault_id.isdigit():
            raise ValidationError({"vault": ["give ?vault=ID"]})
        vault = vault_get(user=actor(request), vault_id=vault_id, action="manage")
        return Response(UsageOut(usage_for_vault(vault=vault)).data)
