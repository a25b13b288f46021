from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import Http404

from apps.accounts.models import Team, TeamMembership, TeamRole


def team_list(*, user: User) -> QuerySet[Team]:
    """Teams the user belongs to."""
    return Team.objects.filter(memberships__user=user).order_by("name").distinct()


def team_get(*, user: User, team_id: object, manage: bool = False) -> Team:
    """A team the user belongs to (404 otherwise, exactly like a missing one); with `manage`, 403 unless they are
    one of its managers."""
    try:
        team = team_list(user=user).get(pk=int(str(team_id)))
    except (Team.DoesNotExist, ValueError) as exc:
        raise Http404("No team matches the given query.") from exc
    if manage and not team_manages(user=user, team=team):
        raise PermissionDenied("only a manager of this team may change its members")
    return team


def team_manages(*, user: User, team: Team) -> bool:
    """Whether the user is one of the team's managers."""
    return TeamMembership.objects.filter(team=team, user=user, role=TeamRole.MANAGER).exists()


def team_members(*, team: Team) -> QuerySet[TeamMembership]:
    return team.memberships.select_related("user").order_by("user__username")


def user_get(*, user_id: object) -> User:
    """Any active account by id (sharing and team membership address people by id)."""
    try:
        return get_user_model().objects.get(pk=int(str(user_id)), is_active=True)
    except (get_user_model().DoesNotExist, ValueError) as exc:
        raise Http404("No user matches the given query.") from exc


def user_find(*, text: str) -> User:
    """An active account by its username (in any case) or its e-mail address: how a person names someone to share
    with. A miss or an e-mail several accounts use is a ValidationError whose message the form shows."""
    text = (text or "").strip()
    if not text or "\x00" in text:
        raise ValidationError({"user": ["Type a username or an e-mail address."]})
    people = get_user_model().objects.filter(is_active=True)
    found = people.filter(username__iexact=text).first()
    if found is not None:
        return found
    if "@" in text:
        by_mail = list(people.filter(email__iexact=text)[:2])
        if len(by_mail) == 1:
            return by_mail[0]
        if by_mail:
            raise ValidationError({"user": ["Several accounts use this e-mail address; type the username instead."]})
    raise ValidationError({"user": [f"Nobody here has the username or e-mail address {text!r}."]})


def team_find(*, name: str) -> Team:
    """A team by its name (in any case); a miss is a ValidationError whose message the form shows."""
    name = (name or "").strip()
    if not name or "\x00" in name:
        raise ValidationError({"team": ["Type the name of a team."]})
    found = Team.objects.filter(name__iexact=name).select_related("group").first()
    if found is None:
        raise ValidationError({"team": [f"There is no team called {name!r}."]})
    return found
