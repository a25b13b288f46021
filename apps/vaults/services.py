from __future__ import annotations

from django.contrib.auth.models import Group, User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from guardian.shortcuts import assign_perm, remove_perm

from apps.accounts.models import Team
from apps.audit.services import audit_record
from apps.vaults.chat_settings import parse
from apps.vaults.models import Vault, VaultRole
from apps.vaults.permissions import ALL_PERMISSIONS, ROLE_PERMISSIONS, user_may


def _grant(principal: User | Group, vault: Vault, role: str) -> None:
    for codename in ALL_PERMISSIONS:
        remove_perm(f"vaults.{codename}", principal, vault)
    for codename in ROLE_PERMISSIONS[role]:
        assign_perm(f"vaults.{codename}", principal, vault)


@transaction.atomic
def vault_create(*, owner: User, name: str, is_personal: bool = False) -> Vault:
    """Create a vault; its creator becomes its manager."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": ["a vault needs a name"]})
    vault = Vault.objects.create(name=name[:200], owner=owner, is_personal=is_personal)
    _grant(owner, vault, VaultRole.MANAGER)
    audit_record(
        actor=owner,
        action="vault.create",
        object_type="vault",
        object_id=vault.pk,
        vault_id=vault.pk,
        changes={"name": vault.name, "personal": is_personal},
    )
    return vault


def personal_vault_ensure(*, user: User) -> Vault:
    """Every user has exactly one private personal vault."""
    existing = Vault.objects.filter(owner=user, is_personal=True).first()
    if existing is not None:
        return existing
    return vault_create(owner=user, name=f"{user.get_username()} (personal)", is_personal=True)


def _principal(*, user: User | None, team: Team | None) -> tuple[User | Group, str]:
    if (user is None) == (team is None):
        raise ValidationError({"detail": ["give exactly one of 'user' or 'team'"]})
    if user is not None:
        return user, f"user:{user.pk}"
    assert team is not None
    return team.group, f"team:{team.pk}"


def _check_share_allowed(*, actor: User, vault: Vault, user: User | None, team: Team | None = None) -> None:
    if not user_may(actor, "manage", vault):
        raise PermissionDenied("only a manager of this vault may change who can see it")
    if vault.is_personal:
        raise ValidationError({"detail": ["a personal vault is private and cannot be shared"]})
    if user is not None and user.pk == actor.pk:
        raise ValidationError({"user": ["nobody can change their own role"]})
    if user is not None and user.pk == vault.owner_id:
        raise ValidationError({"user": ["the vault's owner always stays its manager"]})
    # Through a team of one's own, a manager could keep (or regain) a role the owner took away.
    if team is not None and actor.pk != vault.owner_id and team.group.user_set.filter(pk=actor.pk).exists():
        raise ValidationError({"team": ["only the vault's owner may change the role of a team they belong to"]})


@transaction.atomic
def vault_share(*, actor: User, vault: Vault, role: str, user: User | None = None, team: Team | None = None) -> None:
    """Give a user or a team a role on a vault (replacing the role they had)."""
    if role not in ROLE_PERMISSIONS:
        raise ValidationError({"role": [f"role must be one of {', '.join(ROLE_PERMISSIONS)}"]})
    _check_share_allowed(actor=actor, vault=vault, user=user, team=team)
    principal, label = _principal(user=user, team=team)
    _grant(principal, vault, role)
    audit_record(
        actor=actor,
        action="vault.share",
        object_type="vault",
        object_id=vault.pk,
        vault_id=vault.pk,
        changes={"principal": label, "role": role},
    )


@transaction.atomic
def vault_settings_update(*, actor: User, vault: Vault, raw: dict[str, object]) -> Vault:
    """Replace a vault's answering settings (managers); validated, audited."""
    if not user_may(actor, "manage", vault):
        raise PermissionDenied("only a manager of this vault may change how it answers")
    parse(raw)  # refuses unknown keys and bad values with a reason
    before, vault.chat_settings = vault.chat_settings, dict(raw)
    vault.save(update_fields=["chat_settings"])
    audit_record(
        actor=actor,
        action="vault.settings",
        object_type="vault",
        object_id=vault.pk,
        vault_id=vault.pk,
        changes={"before": before, "after": vault.chat_settings},
    )
    return vault


@transaction.atomic
def vault_unshare(*, actor: User, vault: Vault, user: User | None = None, team: Team | None = None) -> None:
    """Revoke every role a user or team holds on a vault."""
    _check_share_allowed(actor=actor, vault=vault, user=user, team=team)
    principal, label = _principal(user=user, team=team)
    for codename in ALL_PERMISSIONS:
        remove_perm(f"vaults.{codename}", principal, vault)
    audit_record(
        actor=actor,
        action="vault.revoke",
        object_type="vault",
        object_id=vault.pk,
        vault_id=vault.pk,
        changes={"principal": label},
    )
