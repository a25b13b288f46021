from celery import shared_task

from apps.librarian.services import reenrich_stale_everywhere


@shared_task(name="apps.librarian.tasks.reenrich_stale")
def reenrich_stale() -> dict[str, int]:
    return reenrich_stale_everywhere()


@shared_task(name="apps.librarian.tasks.reenrich_vaults")
def reenrich_vaults(vault_ids: list[int], everything: bool = True) -> dict[str, int]:
    from apps.librarian.services import reenrich
    from apps.vaults.models import Vault

    return reenrich(vaults=list(Vault.objects.filter(pk__in=vault_ids).order_by("id")), everything=everything)


@shared_task(name="apps.librarian.tasks.file_exchange")
def file_exchange_task(message_id: int) -> int | None:
    from apps.librarian.filing import file_exchange

    note = file_exchange(message_id)
    return note.pk if note else None
