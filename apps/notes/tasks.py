from celery import shared_task

from apps.notes import hooks
from apps.notes.models import ImportJob
from apps.notes.services.chunks import chunks_embed_pending
from apps.notes.services.ingest import import_job_run


def _import_job_vault(job_id: int) -> int | None:
    return ImportJob.objects.filter(pk=job_id).values_list("vault_id", flat=True).first()


# An import reads and writes its own vault alone (desirepath.celery); an export reads which other vaults its
# requester reads (the notes it withholds), so it does not take this option.
@shared_task(acks_late=True, time_limit=3600, soft_time_limit=3300, vault_of=_import_job_vault)
def import_run(job_id: int) -> str:
    job = import_job_run(job_id=job_id)  # extracts the graph as its last step
    return str(job.status)


@shared_task(autoretry_for=(OSError,), retry_backoff=True, max_retries=5, time_limit=1800, soft_time_limit=1700)
def embed_pending(vault_id: int | None = None) -> int:
    embedded = chunks_embed_pending(vault_id=vault_id)
    hooks.embedded(vault_id=vault_id)
    return embedded


@shared_task(time_limit=300, soft_time_limit=280)
def imports_recover() -> dict[str, int]:
    """Every minute: imports whose worker was lost are resumed or failed with the reason."""
    from apps.notes.services.recovery import imports_recover as recover

    return recover()


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5, time_limit=6 * 3600)
def embedding_switch_build(model: str) -> str:
    """Build `model`'s vectors and swap when done; a killed worker's redelivered task continues where it stopped."""
    from apps.notes.services.embedding_switch import embedding_switch_build as build

    return build(model=model).state


@shared_task(time_limit=120, soft_time_limit=110)
def embedding_switches_recover() -> int:
    """Every minute: a model switch whose worker was lost is queued again."""
    from apps.notes.services.embedding_switch import embedding_switches_recover as recover

    return recover()


@shared_task(acks_late=True, time_limit=3600, soft_time_limit=3300)
def export_run(job_id: int) -> str:
    from apps.notes.services.export import export_job_run

    return str(export_job_run(job_id=job_id).status)


@shared_task(time_limit=900, soft_time_limit=840)
def notes_reread() -> int:
    """Every few minutes: a batch of notes stored under an older reading of Markdown is read again (none, once
    every note has been)."""
    from apps.notes.services.rereading import notes_reread as reread

    return reread()
