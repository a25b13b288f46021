from __future__ import annotations

from django.contrib.auth.models import Group, User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from apps.accounts.hooks import team_membership_ended
from apps.accounts.models import Team, TeamMembership, TeamRole
from apps.accounts.selectors import team_manages
from apps.accounts.usernames import validate_username
from apps.audit.services import audit_record


@transaction.atomic
def user_create(*, actor: User | None, username: str, password: str, is_staff: bool = False) -> User:
    """Create an account (staff only over the API) with its private personal vault."""
    if actor is not None and not actor.is_staff:
        raise PermissionDenied("only staff may create users")
    username = validate_username(username)
    if User.objects.filter(username__iexact=username).exists():
        raise ValidationError({"username": ["that username is taken"]})
    try:
        validate_password(password, User(username=username))
    except ValidationError as exc:
        raise ValidationError({"password": exc.messages}) from exc
    user = User.objects.create_user(username=username, password=password, is_staff=is_staff)
    audit_record(
        actor=actor,
        action="user.create",
        object_type="user",
        object_id=user.pk,
        vault_id=None,
        changes={"username": username, "staff": is_staff},
    )
    return user


@transaction.atomic
def team_create(*, actor: User, name: str) -> Team:
    """Create a team; its creator is its first manager."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": ["a team needs a name"]})
    if Team.objects.filter(name__iexact=name).exists() or Group.objects.filter(name__iexact=name).exists():
        raise ValidationError({"name": ["a team with that name exists"]})
    group = Group.objects.create(name=name[:150])
    team = Team.objects.create(group=group, name=name[:150], created_by=actor)
    TeamMembership.objects.create(team=team, user=actor, role=TeamRole.MANAGER)
    actor.groups.add(group)
    audit_record(
        actor=actor,
        action="team.create",
        object_type="team",
        object_id=team.pk,
        vault_id=None,
        changes={"name": team.name},
    )
    return team


@transaction.atomic
def team_member_add(*, actor: User, team: Team, user: User, role: str = TeamRole.MEMBER) -> None:
    """Add a person to a team or change their team role. Only team managers; never oneself."""
    if role not in TeamRole.values:
        raise ValidationError({"role": [f"role must be one of {', '.join(TeamRole.values)}"]})
    if not team_manages(user=actor, team=team):
        raise PermissionDenied("only a manager of this team may change its members")
    if user.pk == actor.pk:
        raise ValidationError({"user": ["nobody can add themselves to a team or change their own role"]})
    membership, created = TeamMembership.objects.get_or_create(team=team, user=user, defaults={"role": role})
    old_role = None if created else membership.role
    if not created and (membership.role != role or membership.from_claim):
        # A manager's say makes the membership theirs: single sign-on's group claim no longer ends it.
        membership.role, membership.from_claim = role, False
        membership.save(update_fields=["role", "from_claim"])
    user.groups.add(team.group)
    audit_record(
        actor=actor,
        action="team.member_add" if created else "team.member_role",
        object_type="team",
        object_id=team.pk,
        vault_id=None,
        changes={"user": user.pk, "role": role, "old_role": old_role},
    )


@transaction.atomic
def team_member_remove(*, actor: User, team: Team, user: User) -> None:
    """Remove a member (team managers), or leave a team oneself; a team always keeps one manager."""
    if user.pk != actor.pk and not team_manages(user=actor, team=team):
        raise PermissionDenied("only a manager of this team may remove its members")
    membership = TeamMembership.objects.filter(team=team, user=user).first()
    if membership is None:
        raise ValidationError({"user": ["that person is not a member of this team"]})
    others = TeamMembership.objects.filter(team=team, role=TeamRole.MANAGER).exclude(user=user)
    if membership.role == TeamRole.MANAGER and not others.exists():
        raise ValidationError({"user": ["a team must keep at least one manager"]})
    membership.delete()
    user.groups.remove(team.group)
    audit_record(
        actor=actor,
        action="team.member_remove",
        object_type="team",
        object_id=team.pk,
        vault_id=None,
        changes={"user": user.pk, "role": membership.role},
    )
    team_membership_ended(user=user, actor=actor)
