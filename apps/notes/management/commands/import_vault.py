from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.notes.followup import import_job_follow_up
from apps.notes.management.progress import ImportBar
from apps.notes.services.ingest import import_job_create, import_job_enqueue, import_job_run
from apps.vaults.models import Vault
from apps.vaults.permissions import vaults_for
from apps.vaults.services import vault_create


class Command(BaseCommand):
    help = "Import an Obsidian vault (a folder or a .zip) into a vault, with a progress bar."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source", help="folder or .zip of Markdown notes")
        parser.add_argument("--vault", required=True, help="vault id, or the name of a vault (created if missing)")
        parser.add_argument("--user", default="admin", help="the importing user (needs contributor role)")
        parser.add_argument("--label", default="", help="import source label (defaults to the folder name)")
        parser.add_argument("--queue", action="store_true", help="run in the Celery worker instead of here")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"no user named {options['user']!r}")
        vault = self._vault(options["vault"], user)
        source = Path(options["source"]).expanduser().resolve()
        if source.is_file() and source.suffix.lower() == ".zip":
            job = import_job_create(
                actor=user,
                vault=vault,
                archive=source.read_bytes(),
                source=options["label"] or source.stem,
                file_name=source.name,
            )
        elif source.is_dir():
            job = import_job_create(actor=user, vault=vault, folder=str(source), source=options["label"])
        else:
            raise CommandError(f"{source} is neither a folder nor a .zip file")
        if options["queue"]:
            import_job_enqueue(job)
            self.stdout.write(f"queued import job {job.pk}; follow it at /api/jobs/{job.pk}/")
            return
        bar = ImportBar(f"importing {job.source}")
        try:
            job = import_job_run(job_id=job.pk, progress=bar)
        finally:
            bar.close()
        counts = ", ".join(f"{k} {v}" for k, v in sorted(job.counts.items()))
        self.stdout.write(self.style.SUCCESS(f"import job {job.pk} into '{vault.name}': {counts}"))
        for result in job.outcomes().filter(outcome="skipped"):
            self.stdout.write(f"  skipped {result.path}: {result.reason}")
        follow_up = import_job_follow_up(job)
        for step in follow_up.steps:
            if step.waiting or step.failures:
                failed = f", {len(step.failures)} failed" if step.failures else ""
                self.stdout.write(f"  {step.label}: {step.waiting} notes waiting for the worker{failed}")
        self.stdout.write(f"status: {follow_up.label}; follow it at /api/jobs/{job.pk}/")

    def _vault(self, ref: str, user: User) -> Vault:
        if ref.isdigit():
            vault = Vault.objects.filter(pk=int(ref)).first()
            if vault is None:
                raise CommandError(f"no vault with id {ref}")
            return vault
        # a person's managed vaults have distinct names, letter case aside: the one so named is theirs
        managed = vaults_for(user, "manage").filter(name__iexact=ref.strip()).first()
        return managed or vault_create(owner=user, name=ref)
