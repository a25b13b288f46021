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
