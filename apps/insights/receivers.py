"""What insights do when a lower app reports a change (subscribed in `InsightsConfig.ready`)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction

from apps.insights.building import build_claim, build_release
from apps.insights.tasks import insights_build
from apps.vaults.chat_settings import parse
from apps.vaults.models import Vault

logger = logging.getLogger(__name__)


def build_after_writes(*, vault_id: int | None) -> None:
    """Notes of a vault were imported, or embedded after a write: its insights are built after a short delay (the
    Librarian's metadata, queued at the same moment, is then mostly written), one build however many writes. The
    sweep over every vault (`None`) and a vault whose discovery is off leave it to the daily run."""
    if vault_id is None:
        return
    vault = Vault.objects.filter(pk=vault_id).only("chat_settings").first()
    if vault is None or not parse(vault.chat_settings).switches["discovery"]:
        return

    def send() -> None:
        try:
            if build_claim(vault_id=vault_id):
                try:
                    insights_build.apply_async((vault_id,), countdown=float(settings.INSIGHTS_BUILD_DELAY_SECONDS))
                except Exception:
                    build_release(vault_id=vault_id)
                    raise
        except Exception:  # noqa: BLE001 - the notes are saved; the daily run builds the insights
            logger.warning("could not queue vault %s's insights; the daily run builds them", vault_id, exc_info=True)

    transaction.on_commit(send)
