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


@shared_task(name="apps.insights.tasks.insights_daily", time_limit=1800, soft_time_limit=1700)
def insights_daily(vault_id: int | None = None) -> dict[str, int]:
    """Judge each discovering vault's new collisions (budgeted), rank its cards again and narrate the new ones;
    over every vault, blends left waiting (a queue that was down) are written too."""
    from apps.insights.blends import blends_waiting
    from apps.insights.cards import cards_build, cards_write
    from apps.insights.collisions import collisions_judge

    def run(vid: int) -> int:
        collisions_judge(vault_id=vid)
        cards_build(vault_id=vid)
        return cards_write(vault_id=vid)

    done, _ = sweep(_discovering(vault_id), "collisions and insight cards in vault", run)
    if vault_id is None:  # a blend is written into its accepter's personal vault: outside one vault's binding
        sweep(blends_waiting(), "writing a blend", lambda bid: blend_write_task(bid))
    return {"vaults": len(done), "narrated": sum(done.values())}


BUILD_TIME_LIMIT = 1800


@shared_task(name="apps.insights.tasks.insights_build", time_limit=BUILD_TIME_LIMIT, soft_time_limit=1700)
def insights_build(vault_id: int) -> dict[str, int]:
    """One vault's insights built soon after its notes changed: the daily run's steps for it alone."""
    from apps.insights.building import build_running

    with build_running(vault_id=vault_id, seconds=BUILD_TIME_LIMIT):
        return insights_daily(vault_id)


@shared_task(name="apps.insights.tasks.blend_write", time_limit=600, soft_time_limit=540)
def blend_write_task(blend_id: int) -> int | None:
    """Write an accepted collision's blend; the new note's id."""
    from apps.insights.blends import blend_write

    note = blend_write(blend_id=blend_id)
    return note.pk if note else None
