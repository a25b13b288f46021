from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404

from apps.accounts.models import Team, TeamMembership


def team_list(*, user: User) -> QuerySet[Team]:
    """Teams the user belongs to."""
    return Team.objects.filter(memberships__user=user).order_by("name").distinct()


def team_get(*, user: User, team_id: object) -> Team:
    """A team the user belongs to; 404 otherwise."""
    try:
        return team_list(user=user).get(pk=int(str(team_id)))
    except (Team.DoesNotExist, ValueError) as exc:
        raise Http404("No team matches the given query.") from exc


def team_members(*, team: Team) -> QuerySet[TeamMembership]:
    return team.memberships.select_related("user").order_by("user__username")


def user_get(*, user_id: object) -> User:
    """Any active account by id (sharing and team membership address people by id)."""
    try:
        return get_user_model().objects.get(pk=int(str(user_id)), is_active=True)
    except (get_user_model().DoesNotExist, ValueError) as exc:
        raise Http404("No user matches the given query.") from exc
