import statistics
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.core.progress import progress_bar
from apps.graph.communities import communities_detect
from apps.graph.models import Community, Dependency, Entity, Extraction
from apps.graph.services import graph_extract_pending
from apps.vaults.models import Vault


class Command(BaseCommand):
    help = "Build a vault's graph now (extraction of new or changed notes, then Leiden communities) and report it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--vault", type=int, action="append", dest="vaults", help="vault id (default: all)")
        parser.add_argument("--force", action="store_true", help="re-extract every note, changed or not")

    def handle(self, *args: Any, **options: Any) -> None:
        vaults = Vault.objects.order_by("id")
        if options["vaults"]:
            vaults = vaults.filter(pk__in=options["vaults"])
            if vaults.count() != len(set(options["vaults"])):
                raise CommandError("no such vault")
        for vault in vaults:
            with progress_bar(desc=vault.name, unit="note") as bar:

                def tick(done: int, total: int) -> None:
                    bar.total = total
                    bar.update(1)

                levels = graph_extract_pending(vault_id=vault.pk, force=options["force"], progress=tick)
            run = communities_detect(vault_id=vault.pk)
            extracted = Extraction.objects.filter(vault=vault).exclude(level="skipped")
            per_note = list(extracted.values_list("entities", flat=True))
            mean = statistics.mean(per_note) if per_note else 0.0
            self.stdout.write(
                f"{vault.name}: extracted {levels or 'nothing new'}; {Entity.objects.filter(vault=vault).count()} "
                f"entities, {Dependency.objects.filter(vault=vault).count()} edges; entities per note mean "
                f"{mean:.1f}, max {max(per_note, default=0)}; {Community.objects.filter(run=run).count()} "
                f"communities, modularity {run.modularity:.3f}"
            )
