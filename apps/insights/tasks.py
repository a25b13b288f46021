from celery import shared_task


@shared_task(name="apps.insights.tasks.discover_principles", time_limit=1800, soft_time_limit=1700)
def discover_principles(vault_id: int | None = None) -> int:
    """Look for patterns spanning unrelated notes in one vault (or every vault with a graph); principles made."""
    from apps.graph.models import Entity
    from apps.insights.discover import principles_discover

    ids = [vault_id] if vault_id is not None else sorted(set(Entity.objects.values_list("vault_id", flat=True)))
    return sum(len(principles_discover(vault_id=vid)) for vid in ids)
