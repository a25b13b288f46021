from django.contrib import admin

from apps.audit.models import AuditEvent
from apps.core.admin import ReadOnlyAdmin


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    """Read-only: the log is append-only (the database refuses changes too)."""

    list_display = ["at", "actor_label", "action", "object_type", "object_id", "vault_id"]
    list_filter = ["action", "object_type"]
    search_fields = ["actor_label", "object_id", "action"]
