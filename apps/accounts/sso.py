"""Single sign-on's writes: which account a verified sign-in belongs to (found, linked or made), and the team
memberships that follow the provider's group claim. The protocol itself (discovery, ID token checks) is in oidc.py."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from apps.accounts.hooks import team_membership_ended
from apps.accounts.models import SsoIdentity, Team, TeamMembership, TeamRole
from apps.accounts.usernames import USERNAME_MAX_CHARS, validate_username
from apps.audit.services import audit_record

logger = logging.getLogger(__name__)

ACTOR_LABEL = "single sign-on"


class SignInRefused(Exception):
    """A single sign-on that logs nobody in. Its message is for the person: the sign-in page shows it."""


def verified_email(claims: dict[str, Any]) -> str:
    """The `email` claim when the provider says it verified it (`email_verified` true), else ''."""
    email, verified = claims.get("email"), claims.get("email_verified")
    if not isinstance(email, str) or "@" not in email:
        return ""
    if verified is True or (isinstance(verified, str) and verified.strip().lower() == "true"):
        return email.strip()
    return ""


def claim_values(claims: dict[str, Any], name: str) -> list[str]:
    """A claim as a list of strings: providers send a group claim as a list, some as one string when there is one."""
    value = claims.get(name)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


@transaction.atomic
def sso_sign_in(*, issuer: str, claims: dict[str, Any]) -> User:
    """The account a verified sign-in at `issuer` belongs to, with its teams brought in line with the group claim.

    Found by the provider's subject first; else linked to the one account holding the provider-verified e-mail
    address; else made, when DESIREPATH_OIDC_CREATE_USERS allows. An unverified address never reaches an existing
    account. Raises SignInRefused, saying why, for everything else."""
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise SignInRefused("The sign-in provider did not say who you are (no subject in its answer).")
    identity = (
        SsoIdentity.objects.select_for_update().select_related("user").filter(issuer=issuer, subject=subject).first()
    )
    if identity is None:
        user = _linked_by_email(issuer=issuer, claims=claims) or _provisioned(issuer=issuer, claims=claims)
        identity = SsoIdentity.objects.create(user=user, issuer=issuer, subject=subject)
    user = identity.user
    if not user.is_active:
        raise SignInRefused(f"The account {user.get_username()} is deactivated here; ask an administrator.")
    identity.last_login_at = timezone.now()
    identity.save(update_fields=["last_login_at"])
    if settings.OIDC_GROUPS_CLAIM:
        sso_teams_sync(user=user, groups=claim_values(claims, settings.OIDC_GROUPS_CLAIM))
    return user


def _linked_by_email(*, issuer: str, claims: dict[str, Any]) -> User | None:
    email = verified_email(claims)
    if not email:
        return None
    found = list(User.objects.filter(email__iexact=email).order_by("pk")[:2])
    if not found:
        return None
    if len(found) > 1:
        raise SignInRefused(
            f"Several accounts here use the e-mail address {email}, so single sign-on cannot tell which is yours; "
            "ask an administrator."
        )
    user = found[0]
    if SsoIdentity.objects.filter(issuer=issuer, user=user).exists():
        # The provider calls this a new person; the account already answers to another identity there.
        raise SignInRefused(
            f"The account with the e-mail address {email} is linked to another identity at the sign-in provider; "
            "ask an administrator."
        )
    audit_record(
        actor=None,
        actor_label=ACTOR_LABEL,
        action="user.sso_link",
        object_type="user",
        object_id=user.pk,
        vault_id=None,
        changes={"issuer": issuer, "subject": claims["sub"], "email": email},
    )
    return user


def _provisioned(*, issuer: str, claims: dict[str, Any]) -> User:
    email = verified_email(claims)
    if not settings.OIDC_CREATE_USERS:
        who = email or claims.get("preferred_username") or "you"
        raise SignInRefused(
            f"There is no account here for {who}, and this site makes none at sign-in: "
            "ask an administrator to make one for you."
        )
    username = _free_username(claims)
    user = User.objects.create_user(
        username=username,
        email=email,  # an address the provider did not verify is not kept: others find people by it to share
        password=None,  # unusable: this account signs in through the provider
        first_name=str(claims.get("given_name") or "")[:150],
        last_name=str(claims.get("family_name") or "")[:150],
    )
    audit_record(
        actor=None,
        actor_label=ACTOR_LABEL,
        action="user.create",
        object_type="user",
        object_id=user.pk,
        vault_id=None,
        changes={"username": username, "staff": False, "issuer": issuer, "subject": claims["sub"]},
    )
    return user


def _free_username(claims: dict[str, Any]) -> str:
    """The provider's preferred username, else the verified address, else one made from the subject; with a number
    added when taken."""
    digest = hashlib.sha256(str(claims["sub"]).encode()).hexdigest()[:12]
    for wanted in (claims.get("preferred_username"), verified_email(claims), f"sso-{digest}"):
        try:
            base = validate_username(str(wanted or ""))
        except ValidationError:
            continue
        for number in range(1, 100):
            suffix = "" if number == 1 else f"-{number}"
            candidate = base[: USERNAME_MAX_CHARS - len(suffix)] + suffix
            if not User.objects.filter(username__iexact=candidate).exists():
                return candidate
    raise SignInRefused("No free username could be made for you here; ask an administrator.")


@transaction.atomic
def sso_teams_sync(*, user: User, groups: list[str]) -> None:
    """Memberships of the teams DESIREPATH_OIDC_GROUP_TEAMS names follow the group claim: a team the claim maps to
    gains the person as a member, and a membership the claim made ends when the claim stops naming its team.
    Memberships of other teams, and ones a person made or changed, are left alone. Each change is audited."""
    mapping: dict[str, list[str]] = settings.OIDC_GROUP_TEAMS
    managed = {name.lower() for names in mapping.values() for name in names}
    if not managed:
        return
    wanted = {name.lower() for group in groups for name in mapping.get(group, [])}
    named = Q()
    for name in managed:
        named |= Q(name__iexact=name)
    teams = list(Team.objects.filter(named).select_related("group").order_by("pk"))
    if missing := managed - {team.name.lower() for team in teams}:
        logger.warning("DESIREPATH_OIDC_GROUP_TEAMS names teams that do not exist: %s", ", ".join(sorted(missing)))
    held = {m.team_id: m for m in TeamMembership.objects.filter(user=user, team__in=teams)}
    for team in teams:
        membership = held.get(team.pk)
        if team.name.lower() in wanted and membership is None:
            TeamMembership.objects.create(team=team, user=user, role=TeamRole.MEMBER, from_claim=True)
            user.groups.add(team.group)
            _audit_membership(user=user, team=team, action="team.member_add")
        elif team.name.lower() not in wanted and membership is not None and membership.from_claim:
            membership.delete()
            user.groups.remove(team.group)
            _audit_membership(user=user, team=team, action="team.member_remove")
            team_membership_ended(user=user, actor=None)


def _audit_membership(*, user: User, team: Team, action: str) -> None:
    audit_record(
        actor=None,
        actor_label=ACTOR_LABEL,
        action=action,
        object_type="team",
        object_id=team.pk,
        vault_id=None,
        changes={"user": user.pk, "role": TeamRole.MEMBER, "claim": settings.OIDC_GROUPS_CLAIM},
    )
