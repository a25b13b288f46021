"""Switching the embedding model: the new model's vectors are built beside the active one's while search keeps
answering from the active model, then one swap; an interrupted build continues where it stopped."""

from __future__ import annotations

import itertools
import threading

import pytest
from django.db import connection

from apps.llm.embeddings import current_model
from apps.notes.models import Chunk, ChunkVector
from apps.notes.services.embedding_switch import (
    embedding_model_remove,
    embedding_switch_build,
    embedding_switch_progress,
    embedding_switch_start,
)
from apps.retrieval.search import hybrid_search
from apps.vaults.scope import scope_for
from tests.factories import api, make_note, make_user, make_vault

MINILM, MPNET = "local/all-MiniLM-L6-v2", "local/all-mpnet-base-v2"
NOTES = {
    "kitchen/focaccia.md": "# Focaccia\nRosemary flatbread: a hot oven, olive oil and coarse salt.",
    "kitchen/ramen.md": "# Ramen\nA broth simmered for hours with bones, kombu and dried mushrooms.",
    "garden/tomatoes.md": "# Tomatoes\nStake the plants and water them at the roots every morning.",
    "garden/compost.md": "# Compost\nGreens and browns in layers; turn the heap every second week.",
    "ops/backups.md": "# Backups\nThe database is dumped nightly and the dump is copied to another machine.",
    "ops/alerts.md": "# Alerts\nPage the on-call engineer when the queue is older than ten minutes.",
}


def _vault_with_notes():
    owner = make_user("switch-owner")
    vault = make_vault(owner, "Switch vault")
    for path, body in NOTES.items():
        make_note(vault, path, body)
    return owner, vault


@pytest.mark.django_db(transaction=True)
def test_search_keeps_answering_while_the_model_switches_and_swaps_once():
    owner, vault = _vault_with_notes()
    searches: list[tuple[str, list[str], list[str]]] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def search_continuously() -> None:
        try:
            while not stop.is_set():
                result = hybrid_search(query="bread baked in a hot oven", scope=scope_for(owner, [vault.pk]), k=3)
                sources = sorted({s for hit in result.hits for s in hit.sources})
                searches.append((result.model, [hit.path for hit in result.hits], sources))
        except BaseException as error:  # noqa: BLE001 - reported by the test below
            errors.append(error)
        finally:
            connection.close()

    searcher = threading.Thread(target=search_continuously)
    searcher.start()
    try:
        embedding_switch_start(model=MPNET, background=False)  # the test is the worker
        while embedding_switch_progress(model=MPNET).state == "building":
            embedding_switch_build(model=MPNET, batch=2, batches=1)
        after_swap = len(searches)
        while len(searches) < after_swap + 3:
            stop.wait(0.05)
    finally:
        stop.set()
        searcher.join(timeout=60)

    assert errors == []
    models = [model for model, _, _ in searches]
    assert models[0] == MINILM and models[-1] == MPNET
    assert sum(1 for a, b in itertools.pairwise(models) if a != b) == 1  # one swap
    assert all(paths and paths[0] == "kitchen/focaccia.md" for _, paths, _ in searches)
    assert all("vector" in sources for _, _, sources in searches)
    assert current_model() == MPNET

    # Afterwards only the new model's vectors are searched: without the old ones the answer is the same.
    before_removal = api(owner).get("/api/search/", {"q": "bread baked in a hot oven", "vault": vault.pk}).json()
    embedding_model_remove(model=MINILM)
    assert set(ChunkVector.objects.filter(vault=vault).values_list("model", flat=True)) == {MPNET}
    after_removal = api(owner).get("/api/search/", {"q": "bread baked in a hot oven", "vault": vault.pk}).json()
    assert after_removal["results"] == before_removal["results"]


@pytest.mark.django_db(transaction=True)
def test_a_build_cut_short_continues_with_the_chunks_still_lacking_a_vector():
    _, vault = _vault_with_notes()
    embedding_switch_start(model=MPNET, background=False)  # the test is the worker
    embedding_switch_build(model=MPNET, batch=2, batches=1)  # the worker dies after its first batch
    # The build covers the deployment: another vault's chunks (the sample vault, when a worker stole a test using
    # it after a flush) count too.
    first = embedding_switch_progress(model=MPNET)
    assert (first.state, first.embedded, first.total) == ("building", 2, Chunk.objects.count())
    assert first.total >= len(NOTES)
    assert current_model() == MINILM
    kept = set(ChunkVector.objects.filter(model=MPNET).values_list("pk", flat=True))

    embedding_switch_build(model=MPNET, batch=2)  # the task, delivered again
    done = embedding_switch_progress(model=MPNET, vault_id=vault.pk)
    assert (done.state, done.embedded) == ("active", len(NOTES))
    assert kept <= set(ChunkVector.objects.filter(model=MPNET).values_list("pk", flat=True))
    assert current_model() == MPNET


@pytest.mark.django_db
def test_staff_start_a_switch_over_the_api_and_others_cannot():
    _, vault = _vault_with_notes()
    staff = make_user("operator")
    staff.is_staff = True
    staff.save()
    client = api(staff)

    unknown = client.post("/api/embedding-models/", {"model": "local/no-such-model"}, format="json")
    assert unknown.status_code == 400 and "no local embedding model" in str(unknown.json())
    assert current_model() == MINILM

    refused = api(vault.owner).post("/api/embedding-models/", {"model": MPNET}, format="json")
    assert refused.status_code == 403
    assert api(vault.owner).get("/api/embedding-models/").status_code == 403

    started = client.post("/api/embedding-models/", {"model": MPNET}, format="json")
    assert started.status_code == 202
    assert started.json()["model"] == MPNET and started.json()["state"] == "building"
    listed = {row["model"]: row for row in client.get("/api/embedding-models/").json()}
    assert listed[MINILM]["state"] == "active" and listed[MINILM]["embedded"] == listed[MINILM]["total"] > 0
    assert listed[MPNET]["state"] == "building"
    assert current_model() == MINILM  # searched only once built
