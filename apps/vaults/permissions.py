"""The vault permission policy: "may this user do X to this vault" and "which vaults may this user do X to".

Superusers get no implicit access: an admin reads a vault only when it is shared with them (privacy of
personal vaults; admins observe through the admin site and the audit log).

Roles are cumulative guardian object permissions: reader = read; contributor = read + contribute;
manager = read + contribute + manage. A user's role is the strongest of their own and their teams'.
"""

from __future__ import annotations

from typing import Literal

from django.db.models import QuerySet
from guardian.shortcuts import get_objects_for_user

from apps.vaults.models import Vault, VaultRole

Action = Literal["read", "contribute", "manage"]

ROLE_PERMISSIONS: dict[str, list[str]] = {
    VaultRole.READER: ["read_vault"],
    VaultRole.CONTRIBUTOR: ["read_vault", "contribute_vault"],
    VaultRole.MANAGER: ["read_vault", "contribute_vault", "manage_vault"],
}
ALL_PERMISSIONS = ROLE_PERMISSIONS[VaultRole.MANAGER]


def vaults_for(user: object, action: Action) -> QuerySet[Vault]:
    """Vaults on which `user` (directly or through a team) may perform `action`."""
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return Vault.objects.none()
    return get_objects_for_user(
        user, f"vaults.{action}_vault", klass=Vault, accept_global_perms=False, with_superuser=False
    )


def vault_ids_for(user: object, action: Action = "read") -> list[int]:
    return list(vaults_for(user, action).values_list("id", flat=True))


def user_may(user: object, action: Action, vault: Vault) -> bool:
    return vaults_for(user, action).filter(pk=vault.pk).exists()


def role_of(user: object, vault: Vault) -> str | None:
    for role in (VaultRole.MANAGER, VaultRole.CONTRIBUTOR, VaultRole.READER):
        action: Action = {"manager": "manage", "contributor": "contribute", "reader": "read"}[role]  # type: ignore[assignment]
        if user_may(user, action, vault):
            return str(role)
    return None
