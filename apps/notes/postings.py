"""The keyword index's postings and statistics, kept by statement triggers on `notes_chunk`.

Each chunk has one posting per English lexeme (stemmed, stop words dropped) of its note's title, its heading and its
text, and for a note's first chunk also of the properties no chunk's text holds (a note with a body; a note made only
of properties, or a Logseq page's `key:: value` lines, says them in its text: counted once): the term's frequency
there and the chunk's length in such terms. Per vault, `VaultTerm` counts the hot chunks carrying each term and
`VaultText` the hot chunks and their total length, so BM25's document frequencies and average length can be combined
over exactly the vaults a requester reads. Cold chunks keep postings (a search that asks for the cold tier still
ranks them) but count in no statistics.

Statement-level triggers with transition tables write a whole import batch in three statements instead of one per
chunk; the upserts go in (vault, term) order so concurrent writers to one vault lock rows in the same order.
"""

from __future__ import annotations

# Pruning only: postings of a term are also kept in the order of this length-normalised frequency (BM25's term part
# with k1 = 1.2, b = 0.75 and a fixed average of 60 terms), so a term that matches more chunks than the search reads
# is read best first. The ranking itself uses the requester's own statistics (apps/retrieval/search.py).
IMPACT = "tf::real / (tf + 1.2 * (0.25 + 0.75 * length / 60.0))"

# A namespaced Logseq page's title (`Whiteboard/Object/Youtube`) is its words: PostgreSQL's parser would read it as one
# file path, and the page would lose its title's words from every passage's postings.
_ADD = f"""
WITH fresh AS (
    SELECT r.id AS chunk_id, r.note_id, r.vault_id, r.tier, t.lexeme AS term,
           coalesce(array_length(t.positions, 1), 1) AS tf
    FROM {{rows}} r
    JOIN notes_note n ON n.id = r.note_id
    CROSS JOIN LATERAL unnest(
        setweight(to_tsvector('english', replace(n.title, '/', ' ')), 'A') || coalesce(r.search_vector, ''::tsvector)
    ) AS t
    WHERE {{changed}}
),
sized AS (
    SELECT f.*, sum(f.tf) OVER (PARTITION BY f.chunk_id) AS length FROM fresh f
),
added AS (
    INSERT INTO notes_chunkterm (chunk_id, note_id, vault_id, tier, term, tf, length, impact)
    SELECT chunk_id, note_id, vault_id, tier, term, tf, length, {IMPACT} FROM sized
    RETURNING vault_id, chunk_id, tier, term, tf
),
terms AS (
    INSERT INTO notes_vaultterm AS s (vault_id, term, chunks)
    SELECT vault_id, term, count(*) FROM added WHERE tier = 'hot' GROUP BY vault_id, term ORDER BY vault_id, term
    ON CONFLICT (term, vault_id) DO UPDATE SET chunks = s.chunks + excluded.chunks
)
INSERT INTO notes_vaulttext AS v (vault_id, chunks, length)
SELECT vault_id, count(DISTINCT chunk_id), sum(tf) FROM added WHERE tier = 'hot' GROUP BY vault_id ORDER BY vault_id
ON CONFLICT (vault_id) DO UPDATE SET chunks = v.chunks + excluded.chunks, length = v.length + excluded.length;
"""  # noqa: S608 - built from constants; trigger bodies take no input

_REMOVE = """
WITH gone AS (
    DELETE FROM notes_chunkterm p USING {rows} r
    WHERE p.chunk_id = r.id AND {changed}
    RETURNING p.vault_id, p.chunk_id, p.tier, p.term, p.tf
),
terms AS (
    UPDATE notes_vaultterm s SET chunks = s.chunks - d.chunks
    FROM (SELECT vault_id, term, count(*) AS chunks FROM gone WHERE tier = 'hot' GROUP BY vault_id, term) AS d
    WHERE s.vault_id = d.vault_id AND s.term = d.term
)
UPDATE notes_vaulttext v SET chunks = v.chunks - d.chunks, length = v.length - d.length
FROM (
    SELECT vault_id, count(DISTINCT chunk_id) AS chunks, sum(tf) AS length FROM gone WHERE tier = 'hot'
    GROUP BY vault_id
) AS d
WHERE v.vault_id = d.vault_id;
"""

# Terms no hot chunk carries any more (a partial index holds exactly these rows, so this costs nothing).
_FORGET = "DELETE FROM notes_vaultterm WHERE chunks <= 0;\n"

_CHANGED = (
    "EXISTS (SELECT 1 FROM {other} o WHERE o.id = r.id"
    " AND (o.tier IS DISTINCT FROM r.tier OR o.search_vector IS DISTINCT FROM r.search_vector))"
)

POSTINGS_ON_INSERT = _ADD.format(rows="new_chunks", changed="true") + "RETURN NULL;"
POSTINGS_ON_DELETE = _REMOVE.format(rows="old_chunks", changed="true") + _FORGET + "RETURN NULL;"
# Only a change of tier or of the words moves postings; embedding updates (most updates) leave them alone.
POSTINGS_ON_UPDATE = (
    _REMOVE.format(rows="old_chunks", changed=_CHANGED.format(other="new_chunks"))
    + _ADD.format(rows="new_chunks", changed=_CHANGED.format(other="old_chunks"))
    + _FORGET
    + "RETURN NULL;"
)

BACKFILL = _ADD.format(rows="notes_chunk", changed="true")
# The postings of the chunks in the table `refreshed_chunks` posted again from what they hold now.
POSTINGS_REFRESH = (
    _REMOVE.format(rows="refreshed_chunks", changed="true")
    + _ADD.format(rows="refreshed_chunks", changed="true")
    + _FORGET
)
