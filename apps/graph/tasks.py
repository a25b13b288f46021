from collections.abc import Iterable

from celery import shared_task

from apps.core.queue import queue_after_commit
from apps.core.sweep import sweep
from apps.graph.communities import communities_detect
from apps.graph.health import entities_tend
from apps.graph.hooks import communities_detected
from apps.graph.learning import edges_decay
from apps.graph.models import Entity
from apps.graph.services import graph_extract_pending, graph_extract_step, graph_structure_refresh
from apps.notes.models import Note
from apps.vaults.models import Vault


def vaults_of(vault_id: int | None, *, with_graph: bool = False) -> list[int]:
    """The vault a task was queued for, or every vault (`with_graph`: every vault that has entities); a vault
    deleted since it was queued (an evaluation's, a purged one) is skipped, not an error."""
    vaults = Vault.objects.filter(pk=vault_id) if vault_id is not None else Vault.objects.all()
    if vault_id is None and with_graph:
        vaults = vaults.filter(pk__in=Entity.objects.values("vault_id"))
    return list(vaults.order_by("pk").values_list("pk", flat=True))


@shared_task(name="apps.graph.tasks.extract_pending", time_limit=3600, soft_time_limit=3300)
def extract_pending(vault_id: int | None = None) -> dict[str, int]:
    """Extract the notes of one vault (or every vault) whose graph material is missing or stale."""
    done, failed = sweep(
        vaults_of(vault_id), "graph extraction of vault", lambda vid: graph_extract_pending(vault_id=vid)
    )
    return _summed(done.values(), vaults_failed=len(failed))


@shared_task(name="apps.graph.tasks.extract_written", time_limit=3600, soft_time_limit=3300)
def extract_written(vault_id: int) -> dict[str, int]:
    """Queued once per import: the vault's graph material for what changed, then its communities (always: the
    Librarian's metadata task, queued beside this one, may have extracted the imported notes first)."""
    counts = extract_pending(vault_id)
    queue_after_commit(detect_communities, vault_id, fallback="the hourly job finds the communities")
    return counts


def _summed(results: Iterable[dict[str, int]], **extra: int) -> dict[str, int]:
    totals: dict[str, int] = {}
    for counts in results:
        for key, n in counts.items():
            totals[key] = totals.get(key, 0) + n
    return totals | {k: n for k, n in extra.items() if n}


@shared_task(name="apps.graph.tasks.detect_communities", time_limit=1800, soft_time_limit=1700)
def detect_communities(vault_id: int | None = None) -> int:
    """Leiden over one vault (or every vault with a graph), then what subscribes to new communities (insights
    looks for the patterns spanning them); the number of runs stored."""

    def detect(vid: int) -> None:
        communities_detect(vault_id=vid)
        communities_detected(vault_id=vid)

    done, _ = sweep(vaults_of(vault_id, with_graph=True), "community detection of vault", detect)
    return len(done)


@shared_task(name="apps.graph.tasks.decay", time_limit=1800, soft_time_limit=1700)
def decay() -> int:
    """Daily: edges nobody walked fade a little (ledger source `decay`)."""

    return edges_decay()


@shared_task(name="apps.graph.tasks.tend_entities", time_limit=1800, soft_time_limit=1700)
def tend_entities(vault_id: int | None = None) -> dict[str, int]:
    """Daily: entity health per vault; the sick go to the cold tier, the under-mapped's notes are re-extracted."""
    done, failed = sweep(
        vaults_of(vault_id, with_graph=True), "entity health of vault", lambda vid: entities_tend(vault_id=vid)
    )
    return _summed(done.values(), vaults_failed=len(failed))


@shared_task(name="apps.graph.tasks.reextract_notes", time_limit=1800, soft_time_limit=1700)
def reextract_notes(note_ids: list[int]) -> int:
    """Extract these notes again (under-mapped entities: with a reasoning model, a second look finds more)."""
    notes = list(Note.objects.filter(pk__in=note_ids, tier="hot").select_related("vault"))
    for note in notes:
        graph_extract_step(note=note, force=True)
    for vault_id in sorted({n.vault_id for n in notes}):
        graph_structure_refresh(vault_id=vault_id, notes=[n for n in notes if n.vault_id == vault_id])
    return len(notes)
