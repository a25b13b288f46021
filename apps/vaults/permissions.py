"""The vault permission policy: "may this user do X to this vault" and "which vaults may this user do X to".

Superusers get no implicit access: an admin reads a vault only when it is shared with them (privacy of
personal vaults; admins observe through the admin site and the audit log).

Roles are cumulative guardian object permissions: reader = read; contributor = read + contribute;
manager = read + contribute + manage. A user's role is the strongest of their own and their teams'.

A request made with an API token is narrowed here, once, for every read and write path: a read-only token holds
no more than read, a token limited to some vaults holds nothing on the others (they answer 404 like any vault
the user cannot read).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL
from django.urls import reverse

from apps.core.auth import Requester, token_limits
from apps.core.exceptions import Conflict
from apps.vaults.models import Vault, VaultRole

Action = Literal["read", "contribute", "manage"]

ROLE_PERMISSIONS: dict[str, list[str]] = {
    VaultRole.READER: ["read_vault"],
    VaultRole.CONTRIBUTOR: ["read_vault", "contribute_vault"],
    VaultRole.MANAGER: ["read_vault", "contribute_vault", "manage_vault"],
}
ALL_PERMISSIONS = ROLE_PERMISSIONS[VaultRole.MANAGER]

# The vaults on which a user holds a permission, directly or through a group (guardian's object-permission tables),
# in one statement: guardian's own lookup takes several queries and most of a request's permission time.
_HELD = """
SELECT o.object_pk::int FROM guardian_userobjectpermission o
JOIN auth_permission p ON p.id = o.permission_id
WHERE o.user_id = %s AND o.content_type_id = %s AND p.codename = %s
UNION
SELECT o.object_pk::int FROM guardian_groupobjectpermission o
JOIN auth_permission p ON p.id = o.permission_id
JOIN auth_user_groups m ON m.group_id = o.group_id
WHERE m.user_id = %s AND o.content_type_id = %s AND p.codename = %s
"""


def _held_params(user: Requester, action: Action) -> list[int | str | None]:
    vault_type = ContentType.objects.get_for_model(Vault).pk  # cached by Django after the first call
    codename = f"{action}_vault"
    return [user.pk, vault_type, codename, user.pk, vault_type, codename]


def _usable(user: Requester, action: Action) -> bool:
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return False
    limits = token_limits(user)
    return not (limits is not None and limits.read_only and action != "read")


def vaults_for(user: Requester, action: Action) -> QuerySet[Vault]:
    """Vaults on which `user` (directly or through a team) may perform `action`."""
    if not _usable(user, action):
        return Vault.objects.none()
    vaults = Vault.objects.filter(pk__in=RawSQL(_HELD, _held_params(user, action)))  # noqa: S611 - constant SQL
    limits = token_limits(user)
    if limits is not None and limits.vault_ids is not None:
        vaults = vaults.filter(pk__in=sorted(limits.vault_ids))
    return vaults


def vault_ids_for(user: Requester, action: Action = "read") -> list[int]:
    """The ids of `vaults_for`, in id order, straight from the permission tables (every request asks this)."""
    if not _usable(user, action):
        return []
    with connection.cursor() as cursor:
        # the join leaves out permission rows of a vault deleted since (guardian keeps them)
        cursor.execute(
            f"SELECT v.id FROM vaults_vault v WHERE v.id IN ({_HELD}) ORDER BY v.id",  # noqa: S608 - constant SQL
            _held_params(user, action),
        )
        held = [int(row[0]) for row in cursor.fetchall()]
    limits = token_limits(user)
    if limits is not None and limits.vault_ids is not None:
        held = [vault_id for vault_id in held if vault_id in limits.vault_ids]
    return held


def user_may(user: Requester, action: Action, vault: Vault) -> bool:
    return vaults_for(user, action).filter(pk=vault.pk).exists()


def require_unarchived(vault: Vault) -> None:
    """An archived vault is read-only: its notes, imports and corrections wait until a manager brings it back.
    Roles are untouched (a manager still manages it, so it can be brought back), and feedback, which changes
    what is learned rather than what is written, goes on."""
    if vault.archived_at is not None:
        raise Conflict(
            f"“{vault.name}” is archived, so nothing in it changes: a manager brings it back from the archive first.",
            back=(reverse("vault-page", args=[vault.pk]), vault.name),
        )


ROLE_ACTIONS: list[tuple[str, Action]] = [
    (VaultRole.MANAGER, "manage"),
    (VaultRole.CONTRIBUTOR, "contribute"),
    (VaultRole.READER, "read"),
]


def roles_for(user: Requester, vaults: Iterable[Vault]) -> dict[int, str]:
    """The strongest role `user` holds on each of `vaults` (one query per role, however many vaults)."""
    ids = [v.pk for v in vaults]
    roles: dict[int, str] = {}
    for role, action in ROLE_ACTIONS:
        for vault_id in vaults_for(user, action).filter(pk__in=ids).values_list("id", flat=True):
            roles.setdefault(vault_id, str(role))
    return roles


def role_of(user: Requester, vault: Vault) -> str | None:
    return roles_for(user, [vault]).get(vault.pk)
