"""The keyword index (postings and per-vault statistics) follows every write: edits, the cold tier, re-imports,
purges, vault deletion. Each check compares what the triggers kept with the index built afresh from the chunks."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection

from apps.notes.models import Chunk, Note, Tier
from apps.notes.services.notes import note_delete, note_purge, note_restore, note_update
from apps.retrieval.search import hybrid_search
from apps.vaults.scope import scope_for
from tests.factories import import_folder, make_note, make_vault

pytestmark = pytest.mark.django_db

# The index as it should be, computed from scratch from the chunks and notes (the definition, not the triggers).
_FRESH_POSTINGS = """
SELECT c.id, t.lexeme, array_length(t.positions, 1)
FROM notes_chunk c JOIN notes_note n ON n.id = c.note_id
CROSS JOIN LATERAL unnest(
    setweight(to_tsvector('english', n.title), 'A') || coalesce(c.search_vector, ''::tsvector)
) AS t
WHERE c.vault_id = %(vault)s
"""


def _rows(sql: str, vault_id: int) -> set[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, {"vault": vault_id})
        return {tuple(row) for row in cursor.fetchall()}


def assert_index_matches_chunks(vault_id: int) -> None:
    fresh = _rows(_FRESH_POSTINGS, vault_id)
    kept = _rows("SELECT chunk_id, term, tf FROM notes_chunkterm WHERE vault_id = %(vault)s", vault_id)
    assert kept == fresh
    hot = _rows(
        f"SELECT p.term, count(*) FROM ({_FRESH_POSTINGS}) AS p (chunk, term, tf)"
        " JOIN notes_chunk c ON c.id = p.chunk WHERE c.tier = 'hot' GROUP BY p.term",
        vault_id,
    )
    assert _rows("SELECT term, chunks FROM notes_vaultterm WHERE vault_id = %(vault)s", vault_id) == hot
    totals = _rows(
        f"SELECT count(DISTINCT p.chunk), coalesce(sum(p.tf), 0) FROM ({_FRESH_POSTINGS}) AS p (chunk, term, tf)"
        " JOIN notes_chunk c ON c.id = p.chunk WHERE c.tier = 'hot'",
        vault_id,
    )
    kept_totals = _rows(
        "SELECT coalesce(sum(chunks), 0), coalesce(sum(length), 0) FROM notes_vaulttext WHERE vault_id = %(vault)s",
        vault_id,
    )
    assert kept_totals == totals


def chunks_with(vault_id: int, term: str) -> int:
    """The vault's document frequency of an English term (as stemmed: 'granite' is 'granit')."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(chunks), 0) FROM notes_vaultterm WHERE vault_id = %s AND term = %s", [vault_id, term]
        )
        return int(cursor.fetchone()[0])


def keyword_paths(owner, query: str, vault_ids: list[int] | None = None, **kwargs) -> list[str]:
    scope = scope_for(owner, vault_ids)
    return [hit.path for hit in hybrid_search(scope=scope, query=query, mode="keyword", k=10, **kwargs).hits]


def test_an_edit_replaces_the_old_words_with_the_new(vault):
    note = make_note(vault, "Birds.md", "# Birds\nThe kestrel hovers over the meadow.", embed=False)
    make_note(vault, "Fish.md", "# Fish\nThe trout rests under the bank.", embed=False)
    assert chunks_with(vault.pk, "kestrel") == 1
    note_update(actor=vault.owner, note=note, body="# Birds\nThe osprey dives for fish.")
    assert chunks_with(vault.pk, "kestrel") == 0
    assert chunks_with(vault.pk, "osprey") == 1
    assert keyword_paths(vault.owner, "kestrel") == []
    assert keyword_paths(vault.owner, "osprey") == ["Birds.md"]
    assert_index_matches_chunks(vault.pk)


def test_a_deleted_note_leaves_the_statistics_and_the_search_and_comes_back_when_restored(vault):
    note = make_note(vault, "Lichen.md", "# Lichen\nLichen grows on the north side of granite.", embed=False)
    make_note(vault, "Moss.md", "# Moss\nMoss likes shade and granite too.", embed=False)
    note_delete(actor=vault.owner, note=note)
    assert chunks_with(vault.pk, "lichen") == 0
    assert chunks_with(vault.pk, "granit") == 1
    assert keyword_paths(vault.owner, "lichen granite") == ["Moss.md"]
    assert keyword_paths(vault.owner, "lichen", include_cold=True) == ["Lichen.md"]  # kept, found when asked
    assert_index_matches_chunks(vault.pk)
    note_restore(actor=vault.owner, note=Note.objects.get(pk=note.pk))
    assert chunks_with(vault.pk, "granit") == 2
    assert keyword_paths(vault.owner, "lichen") == ["Lichen.md"]
    assert_index_matches_chunks(vault.pk)


def test_a_purged_note_leaves_no_postings(vault):
    note = make_note(vault, "Comet.md", "# Comet\nThe comet's tail points away from the sun.", embed=False)
    chunk_ids = list(Chunk.objects.filter(note=note).values_list("pk", flat=True))
    note_delete(actor=vault.owner, note=note)
    note_purge(actor=vault.owner, note=Note.objects.get(pk=note.pk))
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM notes_chunkterm WHERE chunk_id = ANY(%s)", [chunk_ids])
        assert cursor.fetchone()[0] == 0
    assert_index_matches_chunks(vault.pk)


def test_a_reimport_indexes_changed_notes_and_moves_missing_ones_out(vault, tmp_path: Path):
    (tmp_path / "Tea.md").write_text("---\nbrew-time: 3 minutes\n---\n# Tea\nSencha steeps at 70 degrees.\n")
    (tmp_path / "Coffee.md").write_text("# Coffee\nEspresso needs a fine grind.\n")
    import_folder(vault, tmp_path, source="kitchen")
    assert keyword_paths(vault.owner, "brew-time") == ["Tea.md"]  # properties are searchable
    assert_index_matches_chunks(vault.pk)
    (tmp_path / "Tea.md").write_text("# Tea\nGyokuro steeps at 60 degrees.\n")
    (tmp_path / "Coffee.md").unlink()
    import_folder(vault, tmp_path, source="kitchen")
    assert Note.objects.get(vault=vault, path="Coffee.md").tier == Tier.COLD
    assert keyword_paths(vault.owner, "sencha") == []
    assert keyword_paths(vault.owner, "gyokuro") == ["Tea.md"]
    assert keyword_paths(vault.owner, "espresso") == []
    assert chunks_with(vault.pk, "espresso") == 0
    assert_index_matches_chunks(vault.pk)


def test_deleting_a_vault_removes_its_index(owner):
    vault = make_vault(owner, "Doomed")
    make_note(vault, "Volcano.md", "# Volcano\nMagma rises through the vent.", embed=False)
    vault_id = vault.pk
    vault.delete()
    for table in ("notes_chunkterm", "notes_vaultterm", "notes_vaulttext"):
        assert _rows(f"SELECT 1 FROM {table} WHERE vault_id = %(vault)s", vault_id) == set()


def test_a_common_term_read_best_first_still_ranks_the_best_matches(vault, settings):
    """With fewer postings read per common term than chunks carrying it, the top of the ranking is unchanged."""
    for i in range(12):
        make_note(vault, f"Plain {i}.md", f"# Plain {i}\nA river passes the town number {i}.", embed=False)
    make_note(vault, "Delta.md", "# Delta\nThe river splits, river after river, into a delta river.", embed=False)
    make_note(vault, "Ferry.md", "# Ferry\nThe ferry crosses the river at dawn.", embed=False)
    everything = keyword_paths(vault.owner, "river ferry")
    settings.SEARCH_KEYWORD_TERM_POSTINGS = 3
    pruned = keyword_paths(vault.owner, "river ferry")
    assert pruned[:2] == everything[:2] == ["Ferry.md", "Delta.md"]


@pytest.mark.parametrize("elsewhere", [0, 60], ids=["scope holds the term", "other vaults hold most of it"])
def test_a_common_term_in_a_small_scope_reads_its_best_postings_in_scope(owner, settings, elsewhere):
    """However the term's postings spread over vaults, the pruned read keeps the scope's best matches and only
    those: most of them in other vaults (the scope's own postings are sorted) or not (the impact order is walked)."""
    scope = make_vault(owner, "Scope")
    for i in range(4):
        make_note(scope, f"Plain {i}.md", f"# Plain {i}\nA river passes the town number {i}.", embed=False)
    make_note(scope, "Delta.md", "# Delta\nThe river splits, river after river, into a delta river.", embed=False)
    make_note(scope, "Ferry.md", "# Ferry\nThe ferry crosses the river at dawn.", embed=False)
    other = make_vault(owner, "Other")
    for i in range(elsewhere):
        make_note(other, f"Rivers {i}.md", f"# River {i}\nRiver, river, river: a river delta, ferry {i}.", embed=False)
    settings.SEARCH_KEYWORD_TERM_POSTINGS = 3
    pruned = keyword_paths(owner, "river ferry", vault_ids=[scope.pk])
    assert pruned[:2] == ["Ferry.md", "Delta.md"]
    assert set(pruned) <= {n.path for n in Note.objects.filter(vault=scope)}


def test_stop_words_alone_decide_nothing_and_exact_tokens_rank_first(sample):
    assert keyword_paths(sample.owner, "the and of it was") == []
    assert keyword_paths(sample.owner, "IT-42")[0] == "ops/Laptop and VPN Setup.md"
    assert keyword_paths(sample.owner, "ECONNREFUSED 127.0.0.1:6379")[0] == "ops/Redis Outage Postmortem.md"
    assert keyword_paths(sample.owner, "task-todo:")[0] in {"engineering/Task Tracking Convention.md", "Inbox.md"}
