from __future__ import annotations

from typing import cast

from django.contrib.auth.models import Group, User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models import QuerySet, Value
from django.db.models.functions import Lower, Trim
from django.utils import timezone
from guardian.shortcuts import assign_perm, get_groups_with_perms, get_users_with_perms, remove_perm

from apps.accounts.models import Team
from apps.audit.services import audit_record
from apps.core import row_security
from apps.vaults.chat_settings import ChatSettings, model_options, parse
from apps.vaults.models import TeamGrant, Vault, VaultRole
from apps.vaults.permissions import ALL_PERMISSIONS, ROLE_PERMISSIONS, user_may, vaults_for


def _grant(principal: User | Group, vault: Vault, role: str) -> None:
    for codename in ALL_PERMISSIONS:
        remove_perm(f"vaults.{codename}", principal, vault)
    for codename in ROLE_PERMISSIONS[role]:
        assign_perm(f"vaults.{codename}", principal, vault)


def _vault_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": ["a vault needs a name"]})
    if "\x00" in name:
        raise ValidationError({"name": ["a vault's name cannot hold a NUL character"]})
    return name


def _name_unused(*, person: User, name: str, renamed: Vault | None = None) -> None:
    """Refuse a name `person` already gives one of the vaults they manage, letter case and outer spaces aside.
    Only those count: a vault they cannot manage or cannot see never blocks a name, so no refusal tells of it. A
    person's creates and renames wait for each other, so a form sent twice cannot make two of a name."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext('vault names'), %s)", [person.pk])
    same = vaults_for(person, "manage").alias(key=Lower(Trim("name"))).filter(key=Lower(Value(name)))
    if renamed is not None:
        same = same.exclude(pk=renamed.pk)
    taken = same.order_by("pk").values_list("name", flat=True).first()
    if taken is not None:
        raise ValidationError({"name": [f"You already have a vault named “{taken}”: choose another name."]})


@transaction.atomic
def vault_create(*, owner: User, name: str, is_personal: bool = False) -> Vault:
    """Create a vault; its creator becomes its manager. 400 on a name among the vaults they already manage."""
    name = _vault_name(name)[:200]
    if not is_personal:  # made for the person, not named by them: it must exist even where its name is taken
        _name_unused(person=owner, name=name)
    vault = Vault.objects.create(name=name, owner=owner, is_personal=is_personal)
    row_security.admit(vault.pk)  # its maker reads it from this statement on, in the request that made it
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


@transaction.atomic
def vault_rename(*, actor: User, vault: Vault, name: str) -> Vault:
    """Give a vault a new name (managers); audited. 400 on a name among the other vaults the actor manages."""
    if not user_may(actor, "manage", vault):
        raise PermissionDenied("only a manager of this vault may rename it")
    name = _vault_name(name)[:200]
    _name_unused(person=actor, name=name, renamed=vault)
    before, vault.name = vault.name, name
    return _vault_field_save(actor=actor, vault=vault, field="name", before=before, action="vault.rename")


@transaction.atomic
def vault_archive(*, actor: User, vault: Vault, archived: bool) -> Vault:
    """Archive a vault or bring it back (managers); audited. An archived vault keeps its notes and members, is read
    at its address and when chosen by name, and is read-only (`require_unarchived`); searches and chats over "every
    vault" leave it out."""
    if not user_may(actor, "manage", vault):
        raise PermissionDenied("only a manager of this vault may archive it")
    if vault.is_personal:
        raise ValidationError({"detail": ["a personal vault cannot be archived"]})
    if archived == (vault.archived_at is not None):
        return vault
    vault.archived_at = timezone.now() if archived else None
    vault.save(update_fields=["archived_at"])
    audit_record(
        actor=actor,
        action="vault.archive" if archived else "vault.unarchive",
        object_type="vault",
        object_id=vault.pk,
        vault_id=vault.pk,
    )
    return vault


@transaction.atomic
def personal_vault_ensure(*, user: User) -> Vault:
    """Every user has exactly one private personal vault: this makes it unless it exists, and is safe to call any
    number of times, at once too."""
    existing = Vault.objects.filter(owner=user, is_personal=True).first()
    if existing is not None:
        return existing
    # Two callers at once wait here in turn; the second then finds the first's vault instead of breaking the
    # one-personal-vault constraint.
    User.objects.select_for_update().filter(pk=user.pk).first()
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
    if team is not None:
        TeamGrant.objects.update_or_create(vault=vault, team=team, defaults={"granted_by": actor})
    audit_record(
        actor=actor,
        action="vault.share",
        object_type="vault",
        object_id=vault.pk,
        vault_id=vault.pk,
        changes={"principal": label, "role": role},
    )
    team_grants_settle(vault=vault, actor=actor)


@transaction.atomic
def _check_models_configured(wanted: ChatSettings, *, current: ChatSettings) -> None:
    """A vault picks among the models the deployment is configured with, or keeps the one it has: each is called
    with the server and key of the slot it is configured in, and a model the deployment never set up has none."""
    for slot, model in wanted.models.items():
        options = model_options(slot, current)
        if model not in options:
            raise ValidationError(
                {"models": [f"{model} is not one of this deployment's models for {slot}: {', '.join(options)}"]}
            )


def vault_settings_update(*, actor: User, vault: Vault, raw: dict[str, object]) -> Vault:
    """Replace a vault's answering settings (managers); validated, audited."""
    if not user_may(actor, "manage", vault):
        raise PermissionDenied("only a manager of this vault may change how it answers")
    _check_models_configured(parse(raw), current=parse(vault.chat_settings))  # parse refuses bad values with a reason
    before, vault.chat_settings = vault.chat_settings, dict(raw)
    return _vault_field_save(actor=actor, vault=vault, field="chat_settings", before=before, action="vault.settings")


@transaction.atomic
def vault_unshare(*, actor: User, vault: Vault, user: User | None = None, team: Team | None = None) -> None:
    """Revoke every role a user or team holds on a vault."""
    _check_share_allowed(actor=actor, vault=vault, user=user, team=team)
    principal, label = _principal(user=user, team=team)
    for codename in ALL_PERMISSIONS:
        remove_perm(f"vaults.{codename}", principal, vault)
    if team is not None:
        TeamGrant.objects.filter(vault=vault, team=team).delete()
    audit_record(
        actor=actor,
        action="vault.revoke",
        object_type="vault",
        object_id=vault.pk,
        vault_id=vault.pk,
        changes={"principal": label},
    )
    team_grants_settle(vault=vault, actor=actor)


def _managers_rooted(vault: Vault, grants: list[TeamGrant]) -> set[int]:
    """Who manages `vault` by a role that rests on the owner: the owner, direct managers, then (repeatedly) the
    members of a managing team whose grant was given by someone already here. A grant never props up its giver."""
    users = cast(
        "QuerySet[User]",
        get_users_with_perms(vault, only_with_perms_in=["manage_vault"], with_group_users=False, with_superusers=False),
    )
    direct = set(users.values_list("pk", flat=True))
    groups = cast("dict[Group, list[str]]", get_groups_with_perms(vault, attach_perms=True))
    managing = {group.pk for group, perms in groups.items() if "manage_vault" in perms}
    members = {g.team_id: set(g.team.group.user_set.values_list("pk", flat=True)) for g in grants}
    rooted = direct | {vault.owner_id}
    grown = True
    while grown:
        grown = False
        for grant in grants:
            if grant.granted_by_id in rooted and grant.team.group_id in managing and members[grant.team_id] - rooted:
                rooted |= members[grant.team_id]
                grown = True
    return rooted


def team_grants_settle(*, vault: Vault, actor: User | None) -> list[int]:
    """Revoke the team roles on `vault` whose giver no longer manages it (their role revoked or lowered, or the
    team that made them a manager gone), audited; the ids of the teams that lost their role."""
    grants = list(TeamGrant.objects.filter(vault=vault).select_related("team__group"))
    if not grants:
        return []
    rooted = _managers_rooted(vault, grants)
    cut = [grant for grant in grants if grant.granted_by_id not in rooted]
    for grant in cut:
        for codename in ALL_PERMISSIONS:
            remove_perm(f"vaults.{codename}", grant.team.group, vault)
        grant.delete()
        audit_record(
            actor=actor,
            action="vault.revoke",
            object_type="vault",
            object_id=vault.pk,
            vault_id=vault.pk,
            changes={
                "principal": f"team:{grant.team_id}",
                "reason": "the person who gave it no longer manages the vault",
                "given_by": grant.granted_by_id,
            },
        )
    return [grant.team_id for grant in cut]


def team_grants_settle_for(*, user: User, actor: User | None) -> None:
    """After `user` left a team: settle every vault where they gave a team its role. Whoever ended the membership
    (a team manager, the identity provider at sign-in) may read none of those vaults, so the settling reads as the
    system: a role must end whoever asked."""
    with row_security.bound(row_security.system("team roles resting on an ended membership are settled")):
        vault_ids = TeamGrant.objects.filter(granted_by=user).values_list("vault_id", flat=True).distinct()
        for vault in Vault.objects.filter(pk__in=list(vault_ids)).order_by("pk"):
            team_grants_settle(vault=vault, actor=actor)


def _vault_field_save(*, actor: User, vault: Vault, field: str, before: object, action: str) -> Vault:
    """Save one changed field of a vault with an audit row naming its value before and after."""
    vault.save(update_fields=[field])
    audit_record(
        actor=actor,
        action=action,
        object_type="vault",
        object_id=vault.pk,
        vault_id=vault.pk,
        changes={"before": before, "after": getattr(vault, field)},
    )
    return vault
