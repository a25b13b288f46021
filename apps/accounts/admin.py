from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm, UsernameField
from django.contrib.auth.models import Group
from django.db.models import QuerySet
from django.http import HttpRequest

from apps.accounts.models import ApiToken, SsoIdentity, Team, TeamMembership
from apps.accounts.tokens import token_revoke
from apps.accounts.usernames import USERNAME_MAX_CHARS, USERNAME_RULE, username_rule
from apps.core.admin import ReadOnlyAdmin, ReadOnlyInline


class MembershipInline(ReadOnlyInline):
    model = TeamMembership
    fields = ("user", "role", "from_claim", "created_at")


@admin.register(Team)
class TeamAdmin(ReadOnlyAdmin):
    """Teams are observed here; membership changes go through team managers (audited), and a team's vault roles
    through the vault's managers."""

    list_display = ["id", "name", "created_by", "created_at"]
    fields = ["group", "name", "created_by", "created_at"]
    inlines = [MembershipInline]


User = get_user_model()
admin.site.unregister(User)
# A group is a team's membership list and carries its vault roles: edited only through the audited team services.
admin.site.unregister(Group)

_NO_MEMBERSHIPS = ("groups", "user_permissions")


def _ruled_username() -> UsernameField:
    return UsernameField(max_length=USERNAME_MAX_CHARS, validators=[username_rule], help_text=f"{USERNAME_RULE}.")


class AccountCreationForm(AdminUserCreationForm):
    username = _ruled_username()


class AccountChangeForm(UserChangeForm):
    username = _ruled_username()


@admin.register(User)
class DesirePathUserAdmin(UserAdmin):
    """Accounts: made and deactivated here; teams, roles and permissions never (they change only through the
    services that audit them)."""

    fieldsets = tuple(
        (name, {**options, "fields": tuple(f for f in options["fields"] if f not in _NO_MEMBERSHIPS)})
        for name, options in UserAdmin.fieldsets or ()
    )
    filter_horizontal = ()
    list_filter = ("is_staff", "is_superuser", "is_active")
    add_form = AccountCreationForm
    form = AccountChangeForm

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # an account's usage, feedback and history stay: deactivate it instead


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """Tokens are observed here: who holds which, how far it reaches, when it was used. The key exists only in its
    holder's hands and its hash is never shown; tokens are made by their holders, and revoking one is audited."""

    fields = [
        "name",
        "user",
        "prefix",
        "read_only",
        "vault_ids",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    ]
    list_display = ["name", "user", "prefix", "read_only", "created_at", "expires_at", "last_used_at", "revoked_at"]
    list_filter = ["read_only"]
    search_fields = ["name", "prefix", "user__username"]
    actions = ["revoke"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.fields

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return bool(getattr(request.user, "is_superuser", False))  # as `token_revoke` allows

    @admin.action(description="Revoke the selected tokens", permissions=["revoke"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        user = request.user
        assert isinstance(user, User)
        for token in queryset.filter(revoked_at__isnull=True):
            token_revoke(actor=user, token=token, reason="revoked by an administrator")


@admin.register(SsoIdentity)
class SsoIdentityAdmin(ReadOnlyAdmin):
    """Which account answers to which subject at the single sign-on provider, and when it last signed in that way."""

    list_display = ["user", "issuer", "subject", "created_at", "last_login_at"]
    search_fields = ["user__username", "subject"]
