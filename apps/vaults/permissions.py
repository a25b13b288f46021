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

from django.db.models import QuerySet
from guardian.shortcuts import get_objects_for_user

from apps.core.auth import Requester, token_limits
from apps.vaults.models import Vault, VaultRole

Action = Literal["read", "contribute", "manage"]

ROLE_PERMISSIONS: dict[str, list[str]] = {
    VaultRole.READER: ["read_vault"],
    VaultRole.CONTRIBUTOR: ["read_vault", "contribute_vault"],
    VaultRole.MANAGER: ["read_vault", "contribute_vault", "manage_vault"],
}
ALL_PERMISSIONS = ROLE_PERMISSIONS[VaultRole.MANAGER]


def vaults_for(user: Requester, action: Action) -> QuerySet[Vault]:
    """Vaults on which `user` (directly or through a team) may perform `action`."""
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return Vault.objects.none()
    limits = token_limits(user)
    if limits is not None and limits.read_only and action != "read":
        return Vault.objects.none()
    vaults: QuerySet[Vault] = get_objects_for_user(
        user, f"vaults.{action}_vault", klass=Vault, accept_global_perms=False, with_superuser=False
    )
    if limits is not None and limits.vault_ids is not None:
        vaults = vaults.filter(pk__in=sorted(limits.vault_ids))
    return vaults


def vault_ids_for(user: Requester, action: Action = "read") -> list[int]:
    return list(vaults_for(user, action).values_list("id", flat=True))


def user_may(user: Requester, action: Action, vault: Vault) -> bool:
    return vaults_for(user, action).filter(pk=vault.pk).exists()


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
