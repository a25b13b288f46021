from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.models import Team
from apps.accounts.selectors import team_find, user_find, user_get
from apps.core.auth import actor
from apps.core.serializers import errors
from apps.vaults import selectors, services
from apps.vaults.chat_settings import parse
from apps.vaults.models import Vault
from apps.vaults.permissions import role_of, roles_for
from apps.vaults.serializers import (
    ChatSettingsIn,
    ChatSettingsOut,
    MeOut,
    ShareIn,
    ShareOut,
    VaultCreateIn,
    VaultOut,
    VaultUpdateIn,
)


def _vault_out(vault: Vault, user: User, role: str | None = None) -> dict:
    vault.role = role or role_of(user, vault)  # type: ignore[attr-defined]
    return dict(VaultOut(vault).data)


def _team(team_id: int) -> Team:
    team = Team.objects.filter(pk=team_id).select_related("group").first()
    if team is None:
        raise ValidationError({"team": ["no such team"]})
    return team


class VaultListApi(APIView):
    @extend_schema(responses={200: VaultOut(many=True)}, summary="Vaults I may read")
    def get(self, request: Request) -> Response:
        vaults = list(selectors.vault_list(user=actor(request)).select_related("owner"))
        roles = roles_for(actor(request), vaults)
        return Response([_vault_out(v, actor(request), roles.get(v.pk)) for v in vaults])

    @extend_schema(
        request=VaultCreateIn,
        responses={201: VaultOut, **errors(400)},
        summary="Create a vault (you become its manager)",
    )
    def post(self, request: Request) -> Response:
        data = VaultCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        vault = services.vault_create(owner=actor(request), name=data.validated_data["name"])
        return Response(_vault_out(vault, actor(request)), status=status.HTTP_201_CREATED)


class VaultDetailApi(APIView):
    @extend_schema(responses={200: VaultOut, **errors(404)}, summary="A vault I may read")
    def get(self, request: Request, vault_id: int) -> Response:
        return Response(_vault_out(selectors.vault_get(user=actor(request), vault_id=vault_id), actor(request)))

    @extend_schema(
        request=VaultUpdateIn,
        responses={200: VaultOut, **errors(400, 403, 404)},
        summary="Rename a vault or archive it (managers)",
    )
    def patch(self, request: Request, vault_id: int) -> Response:
        vault = selectors.vault_get(user=actor(request), vault_id=vault_id)
        data = VaultUpdateIn(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            if "name" in data.validated_data:
                vault = services.vault_rename(actor=actor(request), vault=vault, name=data.validated_data["name"])
            if "archived" in data.validated_data:
                archived = data.validated_data["archived"]
                vault = services.vault_archive(actor=actor(request), vault=vault, archived=archived)
        return Response(_vault_out(vault, actor(request)))


class VaultSettingsApi(APIView):
    @extend_schema(
        responses={200: ChatSettingsOut, **errors(404)},
        summary="How this vault answers (gate, fallback, switches, models)",
    )
    def get(self, request: Request, vault_id: int) -> Response:
        vault = selectors.vault_get(user=actor(request), vault_id=vault_id)
        return Response(ChatSettingsOut(parse(vault.chat_settings)).data)

    @extend_schema(
        request=ChatSettingsIn,
        responses={200: ChatSettingsOut, **errors(400, 403, 404)},
        summary="Replace how this vault answers (managers)",
    )
    def put(self, request: Request, vault_id: int) -> Response:
        vault = selectors.vault_get(user=actor(request), vault_id=vault_id)
        if not isinstance(request.data, dict):
            raise ValidationError({"settings": ["send a JSON object"]})
        vault = services.vault_settings_update(actor=actor(request), vault=vault, raw=dict(request.data))
        return Response(ChatSettingsOut(parse(vault.chat_settings)).data)


class VaultSharesApi(APIView):
    @extend_schema(responses={200: ShareOut(many=True), **errors(404)}, summary="Who holds which role on this vault")
    def get(self, request: Request, vault_id: int) -> Response:
        vault = selectors.vault_get(user=actor(request), vault_id=vault_id)
        return Response(ShareOut(selectors.vault_shares(vault=vault), many=True).data)

    @extend_schema(
        request=ShareIn,
        responses={201: ShareOut(many=True), **errors(400, 403, 404)},
        summary="Share with a person (by id, username or e-mail) or a team (by id or name) (managers)",
    )
    def post(self, request: Request, vault_id: int) -> Response:
        # Only a manager learns whether a name or id is an account: everyone else is refused before the look-up.
        vault = selectors.vault_get(user=actor(request), vault_id=vault_id, action="manage")
        data = ShareIn(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        user = user_get(user_id=given["user"]) if "user" in given else None
        if "username" in given:
            user = user_find(text=given["username"])
        team = _team(given["team"]) if "team" in given else None
        if "team_name" in given:
            team = team_find(name=given["team_name"])
        services.vault_share(actor=actor(request), vault=vault, role=given["role"], user=user, team=team)
        return Response(ShareOut(selectors.vault_shares(vault=vault), many=True).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[OpenApiParameter("user", OpenApiTypes.INT), OpenApiParameter("team", OpenApiTypes.INT)],
        responses={204: None, **errors(400, 403, 404)},
        summary="Revoke a user's or team's role (managers)",
    )
    def delete(self, request: Request, vault_id: int) -> Response:
        vault = selectors.vault_get(user=actor(request), vault_id=vault_id, action="manage")
        user_id, team_id = request.query_params.get("user"), request.query_params.get("team")
        if bool(user_id) == bool(team_id) or (not (user_id or "").isdigit() and not (team_id or "").isdigit()):
            raise ValidationError({"detail": ["give exactly one of ?user=ID or ?team=ID"]})
        user = user_get(user_id=user_id) if user_id else None
        team = _team(int(team_id)) if team_id else None
        services.vault_unshare(actor=actor(request), vault=vault, user=user, team=team)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(APIView):
    @extend_schema(responses={200: MeOut}, summary="Who am I, and which is my personal vault")
    def get(self, request: Request) -> Response:
        personal = Vault.objects.filter(owner=actor(request), is_personal=True).values_list("id", flat=True).first()
        user = actor(request)
        me = {"id": user.pk, "username": user.get_username(), "is_staff": user.is_staff, "personal_vault": personal}
        return Response(MeOut(me).data)
