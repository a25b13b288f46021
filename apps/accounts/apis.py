from __future__ import annotations

from django.conf import settings
from django.contrib.auth import authenticate
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied, Throttled, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts import selectors, services, tokens
from apps.accounts.lockout import lockout_message
from apps.accounts.serializers import (
    ApiTokenCreatedOut,
    ApiTokenCreateIn,
    ApiTokenOut,
    MemberAddIn,
    TeamCreateIn,
    TeamOut,
    TokenExchangeOut,
    TokenIn,
    UserCreateIn,
    UserOut,
)
from apps.core.auth import actor
from apps.core.serializers import errors


class TokenApi(APIView):
    """Username and password for a new token. Failed attempts count towards the lockout of the account from that
    address (django-axes, shared by every web process); a locked-out attempt gets 429 without its password being
    checked. With local login off it is refused (403): people make tokens on /tokens/ after single sign-on."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(
        request=TokenIn,
        responses={200: TokenExchangeOut, **errors(400, 403, 429)},
        summary="Exchange username and password for a new token (default lifetime, every vault)",
    )
    def post(self, request: Request) -> Response:
        if not settings.LOCAL_LOGIN:
            raise PermissionDenied(
                "signing in with a password is turned off here: sign in on the web and make a token on /tokens/"
            )
        data = TokenIn(data=request.data)
        data.is_valid(raise_exception=True)
        # The Django request: django-axes marks a lockout on it, and its middleware answers with the 429.
        http_request = request._request
        user = authenticate(
            http_request, username=data.validated_data["username"], password=data.validated_data["password"]
        )
        if getattr(http_request, "axes_locked_out", False):
            raise Throttled(detail=lockout_message())
        if user is None or not user.is_active:
            raise ValidationError({"detail": ["wrong username or password"]})
        made = tokens.token_create(user=user, name=f"signed in {timezone.now():%Y-%m-%d %H:%M} UTC")
        return Response(TokenExchangeOut({"token": made.key, "expires_at": made.token.expires_at}).data)


class ApiTokenListApi(APIView):
    @extend_schema(responses={200: ApiTokenOut(many=True)}, summary="My API tokens (never their keys)")
    def get(self, request: Request) -> Response:
        return Response(ApiTokenOut(tokens.token_list(user=actor(request))[:500], many=True).data)

    @extend_schema(
        request=ApiTokenCreateIn,
        responses={201: ApiTokenCreatedOut, **errors(400, 403, 404)},
        summary="Make an API token: its key is in this answer only",
    )
    def post(self, request: Request) -> Response:
        data = ApiTokenCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        made = tokens.token_create(
            user=actor(request),
            name=data.validated_data["name"],
            read_only=data.validated_data["read_only"],
            vault_ids=data.validated_data["vaults"],
            expires_in_days=data.validated_data["expires_in_days"],
        )
        response = Response({**ApiTokenOut(made.token).data, "key": made.key}, status=status.HTTP_201_CREATED)
        response["Cache-Control"] = "no-store"
        return response


class ApiTokenDetailApi(APIView):
    @extend_schema(responses={204: None, **errors(403, 404)}, summary="Revoke one of my API tokens")
    def delete(self, request: Request, token_id: int) -> Response:
        token = tokens.token_get(user=actor(request), token_id=token_id)
        tokens.token_revoke(actor=actor(request), token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)


class UserCreateApi(APIView):
    @extend_schema(
        request=UserCreateIn, responses={201: UserOut, **errors(400, 403)}, summary="Create a user (staff only)"
    )
    def post(self, request: Request) -> Response:
        data = UserCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_create(actor=actor(request), **data.validated_data)
        return Response(UserOut(user).data, status=status.HTTP_201_CREATED)


class TeamListApi(APIView):
    @extend_schema(responses={200: TeamOut(many=True)}, summary="Teams I belong to")
    def get(self, request: Request) -> Response:
        teams = selectors.team_list(user=actor(request)).prefetch_related("memberships__user")
        return Response(TeamOut(teams, many=True).data)

    @extend_schema(
        request=TeamCreateIn,
        responses={201: TeamOut, **errors(400)},
        summary="Create a team (you become its manager)",
    )
    def post(self, request: Request) -> Response:
        data = TeamCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        team = services.team_create(actor=actor(request), name=data.validated_data["name"])
        return Response(TeamOut(team).data, status=status.HTTP_201_CREATED)


class TeamDetailApi(APIView):
    @extend_schema(responses={200: TeamOut, **errors(404)}, summary="A team I belong to, with its members")
    def get(self, request: Request, team_id: int) -> Response:
        return Response(TeamOut(selectors.team_get(user=actor(request), team_id=team_id)).data)


class TeamMembersApi(APIView):
    @extend_schema(
        request=MemberAddIn,
        responses={201: TeamOut, **errors(400, 403, 404)},
        summary="Add a member (by id, username or e-mail) or change a role (team managers)",
    )
    def post(self, request: Request, team_id: int) -> Response:
        # Only a manager learns whether a name or id is an account: everyone else is refused before the look-up.
        team = selectors.team_get(user=actor(request), team_id=team_id, manage=True)
        data = MemberAddIn(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        if "username" in given:
            member = selectors.user_find(text=given["username"])
        else:
            member = selectors.user_get(user_id=given["user"])
        services.team_member_add(actor=actor(request), team=team, user=member, role=data.validated_data["role"])
        return Response(TeamOut(team).data, status=status.HTTP_201_CREATED)


class TeamMemberDetailApi(APIView):
    @extend_schema(
        responses={204: None, **errors(400, 403, 404)},
        summary="Remove a member (team managers) or leave the team",
    )
    def delete(self, request: Request, team_id: int, user_id: int) -> Response:
        team = selectors.team_get(user=actor(request), team_id=team_id)
        member = selectors.user_get(user_id=user_id)
        services.team_member_remove(actor=actor(request), team=team, user=member)
        return Response(status=status.HTTP_204_NO_CONTENT)
