from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from guardian.models import GroupObjectPermission, UserObjectPermission

from apps.vaults.models import Vault


@admin.register(Vault)
class VaultAdmin(admin.ModelAdmin):
    """Vaults and who may see them; shares change through the API (audited), not here."""

    list_display = ["id", "name", "owner", "is_personal", "archived_at", "created_at", "shares"]
    list_filter = ["is_personal"]
    search_fields = ["name", "owner__username"]
    readonly_fields = ["owner", "is_personal", "archived_at", "created_at", "shares", "chat_settings"]

    @admin.display(description="shares")
    def shares(self, vault: Vault) -> str:
        users = UserObjectPermission.objects.filter(content_type__app_label="vaults", object_pk=str(vault.pk))
        groups = GroupObjectPermission.objects.filter(content_type__app_label="vaults", object_pk=str(vault.pk))
        names = sorted(
            {f"{p.user.username}:{p.permission.codename}" for p in users.select_related("user", "permission")}
            | {f"team {p.group.name}:{p.permission.codename}" for p in groups.select_related("group", "permission")}
        )
        return ", ".join(names)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a vault is made through `vault_create`, which makes its owner its manager (audited)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
