from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.core.progress import progress_bar
from apps.librarian.enrich import current_writer, stale_notes
from apps.librarian.services import reenrich
from apps.notes.models import Note, Tier
from apps.vaults.models import Vault


class Command(BaseCommand):
    help = "Re-enrich notes' collision metadata with the current reasoning model (content times never move)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--vault", type=int, action="append", dest="vaults", help="vault id (default: all)")
        parser.add_argument("--stale", action="store_true", help="only notes whose metadata is missing or stale")

    def handle(self, *args: Any, **options: Any) -> None:
        vaults = list(Vault.objects.filter(pk__in=options["vaults"]) if options["vaults"] else Vault.objects.all())
        if options["vaults"] and len(vaults) != len(set(options["vaults"])):
            raise CommandError("no such vault")
        if options["stale"]:
            total = sum(stale_notes(v.pk, current_writer(v.chat_settings)).count() for v in vaults)
        else:
            total = Note.objects.filter(vault__in=vaults, tier=Tier.HOT).count()
        with progress_bar(total=total, unit="note", desc="re-enriching") as bar:
            counts = reenrich(vaults=vaults, everything=not options["stale"], tick=bar.update)
        self.stdout.write(
            f"re-enriched {counts['enriched']} notes, {counts['failed']} failed (see the vault page); "
            f"{counts['vaults_skipped']} vaults have it off"
        )
