from django.contrib import admin

from apps.core.admin import ReadOnlyAdmin
from apps.llm.models import ModelUsage


@admin.register(ModelUsage)
class ModelUsageAdmin(ReadOnlyAdmin):
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
