from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404
from guardian.models import GroupObjectPermission, UserObjectPermission

from apps.accounts.models import Team, TeamMembership
from apps.core.auth import Requester
from apps.vaults.models import Vault
from apps.vaults.permissions import ROLE_PERMISSIONS, Action, user_may, vaults_for


def vault_list(*, user: Requester) -> QuerySet[Vault]:
    """Vaults the user may read, personal vault first."""
    return vaults_for(user, "read").order_by("-is_personal", "name", "id")


def vault_ids_unarchived(*, user: Requester) -> list[int]:
    """The vaults a search or chat over "every vault" reads: those the user reads, less the archived ones."""
    return list(vaults_for(user, "read").filter(archived_at__isnull=True).values_list("id", flat=True))


def vault_choices(*, user: Requester) -> list[tuple[int, str]]:
    """(id, name) of the shared vaults the user may read, the vaults a token may be limited to. A personal vault
    is not one of them: it holds the Librarian's copies of what its owner read in every vault, so a token limited to
    it would read beyond it."""
    return list(vault_list(user=user).filter(is_personal=False).values_list("id", "name"))


def vault_get(*, user: Requester, vault_id: object, action: Action = "read") -> Vault:
    """A vault the user may read (404 otherwise, exactly like a missing one); 403 if `action` is not allowed."""
    try:
        vault = vaults_for(user, "read").get(pk=int(str(vault_id)))
    except (Vault.DoesNotExist, ValueError) as exc:
        raise Http404("No vault matches the given query.") from exc
    if action != "read" and not user_may(user, action, vault):
        raise PermissionDenied(f"your role on this vault does not allow '{action}'")
    return vault


def vault_shares(*, vault: Vault) -> list[dict[str, Any]]:
    """Who holds which role on a vault (callers have checked that the requester may read it)."""

    def role(codenames: set[str]) -> str:
        for name in ("manager", "contributor", "reader"):
            if set(ROLE_PERMISSIONS[name]) <= codenames:
                return name
        return "reader"

    users: dict[int, tuple[str, set[str]]] = {}
    for row in UserObjectPermission.objects.filter(
        content_type__app_label="vaults", object_pk=str(vault.pk)
    ).select_related("user", "permission"):
        users.setdefault(row.user_id, (row.user.get_username(), set()))[1].add(row.permission.codename)
    teams: dict[int, tuple[str, set[str]]] = {}
    for grow in GroupObjectPermission.objects.filter(
        content_type__app_label="vaults", object_pk=str(vault.pk)
    ).select_related("group", "permission"):
        teams.setdefault(grow.group_id, (grow.group.name, set()))[1].add(grow.permission.codename)
    team_ids = dict(Team.objects.filter(group_id__in=teams).values_list("group_id", "id"))
    return [{"user": uid, "team": None, "name": name, "role": role(perms)} for uid, (name, perms) in users.items()] + [
        {"user": None, "team": team_ids.get(gid), "name": name, "role": role(perms)}
        for gid, (name, perms) in teams.items()
    ]


def share_candidates(*, user: Requester) -> tuple[list[str], list[str]]:
    """The usernames and team names the members page suggests while typing: people who share a team or a readable
    vault with `user`, teams they belong to or that hold a role on a vault they read. Each of these the user can
    already list (a vault's members, a team's members), so the suggestions reveal no account beyond them; anyone else
    is added by typing their exact username or e-mail address."""
    vault_ids = [str(pk) for pk in vaults_for(user, "read").values_list("id", flat=True)]
    team_ids = list(TeamMembership.objects.filter(user_id=int(user.pk or 0)).values_list("team_id", flat=True))
    on_vaults = UserObjectPermission.objects.filter(content_type__app_label="vaults", object_pk__in=vault_ids)
    people = set(on_vaults.values_list("user__username", flat=True)) | set(
        TeamMembership.objects.filter(team_id__in=team_ids).values_list("user__username", flat=True)
    )
    groups = GroupObjectPermission.objects.filter(content_type__app_label="vaults", object_pk__in=vault_ids)
    teams = set(Team.objects.filter(pk__in=team_ids).values_list("name", flat=True)) | set(
        Team.objects.filter(group_id__in=groups.values("group_id")).values_list("name", flat=True)
    )
    people.discard(getattr(user, "username", ""))
    return sorted(people, key=str.lower)[:500], sorted(teams, key=str.lower)[:500]
