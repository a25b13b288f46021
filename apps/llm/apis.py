from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import actor
from apps.core.serializers import errors
from apps.llm.selectors import usage_for_vault
from apps.llm.serializers import UsageOut
from apps.vaults.selectors import vault_get


class UsageApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("vault", OpenApiTypes.INT, required=True)],
        responses={200: UsageOut, **errors(400, 403, 404)},
        summary="Model calls charged to a vault, with totals per slot (vault managers)",
    )
    def get(self, request: Request) -> Response:
        vault_id = request.query_params.get("vault", "")
        if not vault_id.isdigit():
            raise ValidationError({"vault": ["give ?vault=ID"]})
        vault = vault_get(user=actor(request), vault_id=vault_id, action="manage")
        return Response(UsageOut(usage_for_vault(vault=vault)).data)
