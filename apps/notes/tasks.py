from celery import shared_task

from apps.notes.services.chunks import chunks_embed_pending
from apps.notes.services.ingest import import_job_run


@shared_task(acks_late=True, time_limit=3600, soft_time_limit=3300)
def import_run(job_id: int) -> str:
    job = import_job_run(job_id=job_id)  # extracts the graph as its last step
    return str(job.status)


@shared_task(autoretry_for=(OSError,), retry_backoff=True, max_retries=5, time_limit=1800, soft_time_limit=1700)
def embed_pending(vault_id: int | None = None) -> int:
    embedded = chunks_embed_pending(vault_id=vault_id)
    _extract_later(vault_id)
    return embedded


def _extract_later(vault_id: int | None) -> None:
    """Graph extraction is the last step of ingestion (its own task: embedding never waits for it)."""
    from apps.graph.tasks import extract_pending

    extract_pending.delay(vault_id)
