"""What the graph does when a lower app reports a change (subscribed in `GraphConfig.ready`)."""

from __future__ import annotations

import logging

from apps.core.queue import queue_after_commit
from apps.graph.services import graph_extract_pending
from apps.graph.tasks import detect_communities, extract_pending

logger = logging.getLogger(__name__)


def extract_imported(*, vault_id: int) -> None:
    """The last step of every import: the vault's graph material for what changed, then its communities (queued:
    the constellation shows clusters soon after an import, not an hour later). The import stands whatever happens
    here; the periodic sweeps retry."""
    try:
        changed = graph_extract_pending(vault_id=vault_id)
    except Exception:  # noqa: BLE001 - the notes are imported; the graph catches up on the next sweep
        logger.warning("graph extraction for vault %s left to the periodic sweep", vault_id, exc_info=True)
        return
    if changed:
        queue_after_commit(detect_communities, vault_id, fallback="the hourly job finds the communities")


def extract_embedded(*, vault_id: int | None) -> None:
    """Graph extraction follows an embedding sweep as a task of its own: embedding never waits for it."""
    extract_pending.delay(vault_id)
