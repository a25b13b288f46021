import os
import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand

from apps.notes.management.progress import ImportBar
from apps.notes.models import ImportJob, ImportStatus
from apps.notes.services.ingest import import_job_create, import_job_run
from apps.vaults.models import Vault
from apps.vaults.services import personal_vault_ensure, vault_create

SAMPLE_SOURCE = "sample-vault"


class Command(BaseCommand):
    help = "First-run set-up: the admin account and, once, the sample vault."

    def handle(self, *args: Any, **options: Any) -> None:
        admin = self._admin()
        personal_vault_ensure(user=admin)
        if ImportJob.objects.filter(source=f"{admin.username}/{SAMPLE_SOURCE}", status=ImportStatus.SUCCEEDED).exists():
            return
        folder = Path(settings.BASE_DIR) / "samples" / "vault"
        vault = Vault.objects.filter(name="Sample vault", owner=admin).first() or vault_create(
            owner=admin, name="Sample vault"
        )
        job = import_job_create(actor=admin, vault=vault, folder=str(folder), source=SAMPLE_SOURCE)
        bar = ImportBar("importing the sample vault")
        try:
            job = import_job_run(job_id=job.pk, progress=bar)
        finally:
            bar.close()
        self.stdout.write(f"sample vault imported: {job.counts}")

    def _admin(self) -> User:
        users = get_user_model().objects
        admin = users.filter(username="admin").first()
        if admin is not None:
            return admin
        password = os.environ.get("DESIREPATH_ADMIN_PASSWORD")
        saved = Path(settings.DATA_DIR) / "admin_password"
        if not password:
            password = secrets.token_urlsafe(12)
            saved.parent.mkdir(parents=True, exist_ok=True)
            saved.write_text(password + "\n")
            saved.chmod(0o600)
            self.stdout.write(self.style.WARNING(f"admin password (saved in {saved}): {password}"))
        return users.create_superuser(username="admin", password=password, email="")
