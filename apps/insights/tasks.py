from celery import shared_task

from apps.core.sweep import sweep
from apps.graph.tasks import vaults_of
from apps.insights.discover import principles_discover


@shared_task(name="apps.insights.tasks.discover_principles", time_limit=1800, soft_time_limit=1700)
def discover_principles(vault_id: int | None = None) -> int:
    """Look for patterns spanning unrelated notes in one vault (or every vault with a graph); principles made."""
    done, _ = sweep(
        vaults_of(vault_id, with_graph=True),
        "principle discovery in vault",
        lambda vid: len(principles_discover(vault_id=vid)),
    )
    return sum(done.values())
