from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from apps.llm.models import ModelUsage


@admin.register(ModelUsage)
class ModelUsageAdmin(admin.ModelAdmin):
    """The usage ledger, read-only: every model call with its slot, tokens, cost and outcome."""

    list_display = [
        "created_at",
        "slot",
        "purpose",
        "model",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "outcome",
        "vault_id",
        "user",
    ]
    list_filter = ["slot", "outcome", "model"]
    readonly_fields = [f.name for f in ModelUsage._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
