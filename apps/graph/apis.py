from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import actor
from apps.core.serializers import errors
from apps.core.validation import vault_param
from apps.graph.constellation import constellation
from apps.graph.health import entity_revive
from apps.graph.selectors import entity_get, impact
from apps.graph.serializers import ConstellationOut, EntityOut, ImpactOut


class ImpactApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("entity", str, required=True, description="the entity's name")],
        responses={200: ImpactOut, **errors(400, 404)},
        summary="What depends on an entity, grouped by depth (edges of confidence ≥ 0.7)",
    )
    def get(self, request: Request, vault_id: int) -> Response:
        name = (request.query_params.get("entity") or "").strip()
        if not name or len(name) > 300 or "\x00" in name:
            raise ValidationError({"entity": ["name an entity (at most 300 characters)"]})
        return Response(ImpactOut(impact(user=actor(request), vault_id=vault_id, name=name)).data)


class ConstellationApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("vault", int, required=True, description="a vault you can read")],
        responses={200: ConstellationOut, **errors(400, 404)},
        summary="What the constellation page draws: nodes, edges (strength, hot, cold, speculative), communities",
    )
    def get(self, request: Request) -> Response:
        vault = vault_param(request.query_params.get("vault"))
        return Response(ConstellationOut(constellation(user=actor(request), vault_id=vault)).data)


class EntityReviveApi(APIView):
    @extend_schema(
        request=None,
        responses={200: EntityOut, **errors(400, 403, 404)},
        summary="Bring a cold (demoted) entity back to the hot tier (vault managers; audited)",
    )
    def post(self, request: Request, entity_id: int) -> Response:
        entity = entity_get(user=actor(request), entity_id=entity_id)
        entity = entity_revive(actor=actor(request), entity=entity)
        return Response(EntityOut(entity).data)
