from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from apps.accounts import selectors, services
from apps.accounts.serializers import (
    MemberAddIn,
    TeamCreateIn,
    TeamOut,
    TokenIn,
    TokenOut,
    UserCreateIn,
    UserOut,
)
from apps.core.auth import actor
from apps.core.serializers import errors


class TokenApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "auth"

    @extend_schema(
        request=TokenIn,
        responses={200: TokenOut, **errors(400, 429)},
        summary="Exchange username and password for a token",
    )
    def post(self, request: Request) -> Response:
        data = TokenIn(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request, username=data.validated_data["username"], password=data.validated_data["password"])
        if user is None or not user.is_active:
            raise ValidationError({"detail": ["wrong username or password"]})
        token, _ = Token.objects.get_or_create(user=user)
        return Response(TokenOut({"token": token.key}).data)


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
        summary="Add a member or change a role (team managers)",
    )
    def post(self, request: Request, team_id: int) -> Response:
        team = selectors.team_get(user=actor(request), team_id=team_id)
        data = MemberAddIn(data=request.data)
        data.is_valid(raise_exception=True)
        member = selectors.user_get(user_id=data.validated_data["user"])
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
