from celery import shared_task

from apps.core.sweep import sweep
from apps.graph.tasks import vaults_of
from apps.insights.discover import principles_discover
from apps.insights.footsteps import footsteps_collect, novelty_detect
from apps.insights.formation import concepts_form
from apps.insights.screening import candidates_screen
from apps.vaults.chat_settings import parse
from apps.vaults.models import Vault


@shared_task(name="apps.insights.tasks.discover_principles", time_limit=1800, soft_time_limit=1700)
def discover_principles(vault_id: int | None = None) -> int:
    """Look for patterns spanning unrelated notes in one vault (or every vault with a graph); principles made."""
    done, _ = sweep(
        vaults_of(vault_id, with_graph=True),
        "principle discovery in vault",
        lambda vid: len(principles_discover(vault_id=vid)),
    )
    return sum(done.values())


def _discovering(vault_id: int | None) -> list[int]:
    """The vaults whose `discovery` switch is on: with it off, nothing footstep-driven runs."""
    ids = vaults_of(vault_id)
    return [
        v.pk for v in Vault.objects.filter(pk__in=ids).order_by("pk") if parse(v.chat_settings).switches["discovery"]
    ]


@shared_task(name="apps.insights.tasks.discovery_daily", time_limit=1800, soft_time_limit=1700)
def discovery_daily(vault_id: int | None = None) -> dict[str, int]:
    """Each discovering vault's day: collect its new footsteps, detect the day's novelty candidates, screen them
    (one scoring call) and form concepts from the survivors (one reasoning call each), within its budgets."""

    def run(vid: int) -> tuple[int, int, int]:
        footsteps_collect(vault_id=vid)
        found = novelty_detect(vault_id=vid)
        return len(found), len(candidates_screen(vault_id=vid)), len(concepts_form(vault_id=vid))

    done, _ = sweep(_discovering(vault_id), "discovery in vault", run)
    counts = list(done.values())
    return {
        "vaults": len(done),
        "candidates": sum(c[0] for c in counts),
        "screened": sum(c[1] for c in counts),
        "formed": sum(c[2] for c in counts),
    }
