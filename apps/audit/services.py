from typing import Any

from django.contrib.auth.models import User

from apps.audit.models import AuditEvent


def audit_record(
    *,
    actor: User | None,
    action: str,
    object_type: str,
    object_id: object,
    vault_id: int | None,
    changes: dict[str, Any] | None = None,
    actor_label: str = "",
) -> AuditEvent:
    """Append one row to the audit log (who or what, which object, what changed)."""
    user = actor if actor is not None and getattr(actor, "is_authenticated", False) else None
    return AuditEvent.objects.create(
        actor=user,
        actor_label=actor_label or (user.get_username() if user is not None else "system"),
        action=action,
        object_type=object_type,
        object_id=str(object_id),
        vault_id=vault_id,
        changes=changes or {},
    )
