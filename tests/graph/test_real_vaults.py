"""Real public vaults nobody on this project wrote (outliner pages, namespaces, front matter full of links, code
samples full of `[[`) go through the real import and become a graph: no note fails extraction, and each vault
has communities on its constellation."""

from __future__ import annotations

import time

import pytest

from apps.graph.communities import communities_detect
from apps.graph.models import Entity, EntityKind, Extraction
from apps.graph.services import graph_extract_pending
from apps.notes.models import Note, NoteStepFailure, Tier
from tests.corpora import CORPORA, VAULTS
from tests.factories import import_folder, make_user, make_vault

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("corpus", VAULTS)
def test_a_real_vault_imports_into_a_graph_with_communities(corpus):
    assert (CORPORA / corpus).is_dir(), f"the real vaults are not at {CORPORA} (set DESIREPATH_CORPORA)"
    vault = make_vault(make_user(), corpus)
    started = time.monotonic()
    job = import_folder(vault, CORPORA / corpus)  # its last step extracts the graph, as after any import
    imported = time.monotonic() - started
    assert job.status == "succeeded"

    graph_extract_pending(vault_id=vault.pk)  # the sweep: whatever the import's own pass left
    run = communities_detect(vault_id=vault.pk)
    notes = Note.objects.filter(vault=vault, tier=Tier.HOT).count()
    communities = Entity.objects.filter(vault=vault, kind=EntityKind.COMMUNITY).count()
    print(
        f"{corpus}: {notes} notes, {job.counts}, import {imported:.1f}s; {run.entities} entities on "
        f"{run.edges} edges, {communities} communities"
    )
    assert list(NoteStepFailure.objects.filter(vault=vault).values_list("note__path", "reason")) == []
    assert Extraction.objects.filter(vault=vault).count() == notes
    assert communities >= 1
