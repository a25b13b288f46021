from django.conf import settings
from django.db import models

from apps.core.triggers import append_only


class AuditEvent(models.Model):
    """Append-only: PostgreSQL itself refuses UPDATE, DELETE and TRUNCATE on this table."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    # No FK constraint: the log outlives users, vaults and notes it mentions.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    actor_label = models.CharField(max_length=150)
    action = models.CharField(max_length=64, db_index=True)
    object_type = models.CharField(max_length=64)
    object_id = models.CharField(max_length=64)
    vault_id = models.BigIntegerField(null=True, db_index=True)
    changes = models.JSONField(default=dict)

    class Meta:
        ordering = ["-at", "-id"]
        triggers = append_only("audit", "the audit log")

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_label} {self.action} {self.object_type}:{self.object_id}"
