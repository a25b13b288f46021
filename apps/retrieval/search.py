"""Hybrid search: pgvector meaning search + BM25 over PostgreSQL postings, fused by score, in one statement.

The permission filter (`vault_id = ANY(%(scope)s)`, bound from the request's `Scope`) sits inside both halves of
the SQL, and so does its note-level twin: a note drawn from a vault the requester cannot read (`drawn_from`, what
the Librarian filed, summarised or published) is left out of both halves and of the final join. A search that leaves
out the Librarian's own notes (provenance `summary`: filed exchanges, daily logs, session summaries) leaves them out
there too, so the k hits it returns are all notes people wrote. For small scopes an
exact scan is faster and exact; for large ones HNSW with iterative scanning keeps returning k rows even when the
requester reads 1% of all chunks (see shared/notes/search-in-postgres.md).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction

from apps.core.validation import validate_text
from apps.llm.embeddings import current_model, embed_query, model_dimensions
from apps.notes.vectors import vector_cast
from apps.retrieval.snippets import snippet_of
from apps.vaults.scope import Scope

RRF_K = 60
# A passage's own words: an empty journal page has none ("-", or only a `title:` property naming its day).
A_WORD = re.compile(r"[^\W\d_]{2,}")
TITLE_PROPERTY = re.compile(r"^\s*title\s*:", re.I)

_SCOPE_SIZE = """
SELECT count(*) FROM (
    SELECT 1 FROM notes_chunkvector WHERE vault_id = ANY(%(scope)s) AND model = %(model)s AND tier = ANY(%(tiers)s)
    LIMIT %(limit)s
) AS scope
"""

# Exact strategy: the btree on vault_id filters and `distance + 0` keeps HNSW out (exact, fast on small scopes).
# HNSW strategy: the filters are written so no btree can serve them (`vault_id + 0`), leaving the HNSW index,
# walked iteratively, as the only path besides a sequential scan (switched off for this statement).
#
# The keyword half is BM25 over the postings (`apps/notes/postings.py`): English terms, so stop words carry no
# weight. Document frequencies, the number of chunks and their average length are summed over the requester's
# vaults only. A term matching at most `term_postings` chunks in scope is read in full; of a commoner one (low weight
# by construction) only the `term_postings` in scope with the best length-normalised frequency (`impact`) are read:
# sorted from the scope's own postings while the scope holds a small share of the term's (walking the impact index
# would pass every other vault's postings first), else along the impact index, skipping other vaults' postings. The
# best `rescore` chunks are then scored exactly on every query term, each through its own postings (primary key
# probes, never a scan of a term's postings). A chunk holding the whole query as written ('simple' config: `IT-42`,
# `task-todo:`, `127.0.0.1:6379` phrases, stop words kept) gains the weight of a match on every term, so exact tokens
# rank first.
#
# Fusion is score-aware: each half's note scores (cosine, BM25) are scaled to 0–1 over its own candidates and summed
# with weights (a note one half did not return counts 0 there); `SEARCH_FUSION = "rrf"` sums weighted reciprocal
# ranks instead. Scaling gives each half's best note 1 however little it stands out, so the weight follows the
# question: the half whose best note leads its second by more (relative to the best score) weighs more
# (`fusion_weight`, which the statement's `leads` and `weighting` compute alike).
# A note's keyword score is its best chunk's (plus `SEARCH_NOTE_MORE_CHUNKS` of its others'), and a note of more than
# `SEARCH_LONG_NOTE_CHUNKS` chunks has it multiplied by (that / its chunks) ^ `SEARCH_LONG_NOTE_DISCOUNT`: each chunk
# is one more chance to share a question's words, so a changelog of 240 chunks would otherwise have a passage close
# enough to most questions.
_OR_EN = "replace(websearch_to_tsquery('english', %(text)s)::text, ' & ', ' | ')::tsquery"
# float8 parameters: a literal such as 0.75 is numeric to PostgreSQL, and numeric arithmetic per posting is slow.
_BM25 = (
    "i.idf * p.tf * (%(k1)s::float8 + 1)"
    " / (p.tf + %(k1)s::float8 * (1 - %(b)s::float8 + %(b)s::float8 * p.length / st.avgdl))"
)
# A term's postings in scope, one (term, vault) index probe per readable vault; OFFSET 0 keeps the planner from
# turning this into a hash join over all the term's postings, every vault's.
_IN_SCOPE = """unnest(%(scope)s::int[]) AS v (id) CROSS JOIN LATERAL (
            SELECT p.chunk_id, p.note_id, p.tf, p.length, p.impact FROM notes_chunkterm p
            WHERE p.term = i.term AND p.vault_id = v.id AND p.tier = ANY(%(tiers)s) OFFSET 0
        ) AS p"""

_HALVES_CTES = f"""
WITH withheld AS MATERIALIZED (
    SELECT n.id FROM notes_note n
    WHERE n.vault_id = ANY(%(scope)s) AND NOT (n.drawn_from = '{{{{}}}}'::bigint[])  -- the partial index's predicate
      AND NOT n.drawn_from <@ %(readable)s::bigint[]
    UNION ALL
    -- the Librarian's own notes, when the search leaves them out (`provenance = 'summary'`: the partial index's)
    SELECT n.id FROM notes_note n
    WHERE NOT %(include_filed)s AND n.vault_id = ANY(%(scope)s) AND n.provenance = 'summary'
),
vec_raw AS MATERIALIZED (
    SELECT c.chunk_id AS id, c.note_id, c.embedding::{{cast}} <=> %(qvec)s::{{cast}} AS dist
    FROM notes_chunkvector c
    WHERE {{vector_filter}} AND %(use_vector)s AND c.note_id NOT IN (SELECT id FROM withheld)
    ORDER BY {{vector_order}}
    LIMIT %(candidates)s
),
vec AS (
    SELECT note_id, (array_agg(id ORDER BY dist))[1] AS chunk_id, 1 - min(dist) AS score,
           row_number() OVER (ORDER BY min(dist), note_id) AS rnk
    FROM vec_raw GROUP BY note_id
),
kw_stats AS MATERIALIZED (
    SELECT coalesce(sum(chunks), 0)::float8 AS n,
           greatest(coalesce(sum(length), 0)::float8 / greatest(coalesce(sum(chunks), 0), 1), 1) AS avgdl
    FROM notes_vaulttext WHERE vault_id = ANY(%(scope)s)
),
kw_idf AS MATERIALIZED (
    SELECT t.term, d.df, ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) AS idf,
           CASE WHEN d.df <= %(term_postings)s THEN 'all'
                -- sorting the scope's df postings vs walking about term_postings * everywhere / df index entries,
                -- a sorted posting costing a few skipped ones (every vault's count chooses the read, never a score)
                WHEN 4 * d.df::float8 * d.df <= %(term_postings)s::float8 * a.everywhere THEN 'scope'
                ELSE 'impact' END AS read
    FROM (SELECT DISTINCT lexeme AS term FROM unnest(to_tsvector('english', %(text)s))) AS t
    CROSS JOIN kw_stats st
    CROSS JOIN LATERAL (
        SELECT coalesce(sum(s.chunks), 0) AS df FROM notes_vaultterm s
        WHERE s.term = t.term AND s.vault_id = ANY(%(scope)s)
    ) AS d
    CROSS JOIN LATERAL (
        SELECT coalesce(sum(s.chunks), 0) AS everywhere FROM notes_vaultterm s
        WHERE s.term = t.term AND d.df > %(term_postings)s
    ) AS a
    -- statistics count hot chunks only: a term found only in the cold tier is as rare as can be
    WHERE (d.df > 0 OR 'cold' = ANY(%(tiers)s)) AND %(use_keyword)s
),
kw_reached AS (
    SELECT p.chunk_id, p.note_id, sum({_BM25}) AS score
    FROM kw_idf i CROSS JOIN kw_stats st
    CROSS JOIN LATERAL (
        SELECT p.chunk_id, p.note_id, p.tf, p.length FROM {_IN_SCOPE} WHERE i.read = 'all'
        UNION ALL
        (SELECT p.chunk_id, p.note_id, p.tf, p.length FROM {_IN_SCOPE} WHERE i.read = 'scope'
         ORDER BY p.impact DESC LIMIT %(term_postings)s)
        UNION ALL
        (SELECT p.chunk_id, p.note_id, p.tf, p.length FROM notes_chunkterm p
         WHERE i.read = 'impact' AND p.term = i.term AND (p.vault_id + 0) = ANY(%(scope)s)
           AND p.tier = ANY(%(tiers)s)
         ORDER BY p.impact DESC LIMIT %(term_postings)s)
    ) AS p
    WHERE p.note_id NOT IN (SELECT id FROM withheld)
    GROUP BY p.chunk_id, p.note_id
    ORDER BY score DESC, p.chunk_id
    LIMIT %(rescore)s
),
kw_chunks AS (
    SELECT r.chunk_id, r.note_id,
           exact.score + CASE WHEN c.search_simple @@ websearch_to_tsquery('simple', %(text)s)
                              THEN (SELECT sum(idf) FROM kw_idf) ELSE 0 END AS score
    FROM kw_reached r
    JOIN notes_chunk c ON c.id = r.chunk_id AND c.vault_id = ANY(%(scope)s)
    CROSS JOIN LATERAL (
        SELECT sum({_BM25}) AS score
        FROM kw_idf i CROSS JOIN kw_stats st
        JOIN notes_chunkterm p ON p.chunk_id = r.chunk_id AND p.term = i.term
    ) AS exact
),
kw_notes AS (
    SELECT g.note_id, g.chunk_id,
           g.score * least(1, power(%(long_note_chunks)s::float8 / greatest(l.chunks, 1),
                                    %(long_note_discount)s::float8)) AS score
    FROM (
        SELECT note_id, (array_agg(chunk_id ORDER BY score DESC, chunk_id))[1] AS chunk_id,
               max(score) + %(more_chunks)s * (sum(score) - max(score)) AS score
        FROM kw_chunks GROUP BY note_id
    ) AS g
    -- the note is in scope (its postings were): counted on the note_id index alone, no heap visit per chunk
    CROSS JOIN LATERAL (SELECT count(*) AS chunks FROM notes_chunk c WHERE c.note_id = g.note_id) AS l
),
kw AS (
    SELECT note_id, chunk_id, score, row_number() OVER (ORDER BY score DESC, note_id) AS rnk
    FROM kw_notes
    ORDER BY rnk LIMIT %(candidates)s
)
"""  # noqa: S608 - built from the constants above; user input travels only as parameters

# Each half's own note ranking with its unscaled scores (cosine, BM25): what the fusion below combines.
_HALVES_SELECT = """
SELECT 'vector' AS src, note_id, score, rnk FROM vec
UNION ALL
SELECT 'keyword', note_id, score, rnk FROM kw
"""
_HALVES = _HALVES_CTES + _HALVES_SELECT

_LEAD = """coalesce((SELECT CASE WHEN max(score) FILTER (WHERE rnk = 1) > 0
                THEN greatest(0, 1 - coalesce(max(score) FILTER (WHERE rnk = 2), 0) / max(score) FILTER (WHERE rnk = 1))
           END
         FROM {half} WHERE rnk <= 2), 0)"""

# The meaning half's weight for this question (`fusion_weight`); with no shift (or reciprocal ranks) it is the fixed
# weight, and each half is then read once.
_WEIGHTING_BY_LEADS = f"""leads AS (
    SELECT {_LEAD.format(half="vec")} * %(vector_lead_scale)s::float8 AS vector_lead,
           {_LEAD.format(half="kw")} AS keyword_lead
),
weighting AS (
    SELECT CASE WHEN vector_lead + keyword_lead <= 0 THEN %(vector_weight)s::float8
                ELSE least(0.95, greatest(0.05, %(vector_weight)s::float8
                     + %(lead_shift)s::float8 * (vector_lead / (vector_lead + keyword_lead) - 0.5))) END AS vector
    FROM leads
)"""  # noqa: S608 - built from the constants above; user input travels only as parameters
_WEIGHTING_FIXED = "weighting AS (SELECT %(vector_weight)s::float8 AS vector)"

_FUSION = f""",
{{weighting}},
halves AS (
    SELECT note_id, chunk_id, rnk, 'vector' AS src, (SELECT vector FROM weighting) AS weight,
           (score - min(score) OVER ()) / nullif(max(score) OVER () - min(score) OVER (), 0) AS norm
    FROM vec
    UNION ALL
    SELECT note_id, chunk_id, rnk, 'keyword', 1 - (SELECT vector FROM weighting),
           (score - min(score) OVER ()) / nullif(max(score) OVER () - min(score) OVER (), 0)
    FROM kw
),
fused AS (
    SELECT note_id,
           sum(weight * CASE WHEN %(rrf)s THEN 1.0 / (%(rrf_k)s + rnk) ELSE coalesce(norm, 1) END) AS score,
           array_agg(src ORDER BY src DESC) AS sources,
           (array_agg(chunk_id ORDER BY rnk, src))[1] AS chunk_id
    FROM halves
    GROUP BY note_id
    ORDER BY score DESC, note_id
    LIMIT %(k)s
)
SELECT f.note_id, n.vault_id, n.path, n.title, f.chunk_id, f.score, f.sources,
       -- every match in the whole chunk: apps/retrieval/snippets.py chooses the snippet out of it
       CASE WHEN 'keyword' = ANY(f.sources)
            THEN ts_headline('english', c.text, {_OR_EN}, 'HighlightAll=true, StartSel=«, StopSel=»')
            ELSE c.text END AS marked_text,
       -- a passage that is only a heading is shown with the text under it, which the note's next passage holds
       (SELECT nx.text FROM notes_chunk nx WHERE nx.note_id = c.note_id AND nx.ordinal = c.ordinal + 1
        ORDER BY nx.tier = 'hot' DESC LIMIT 1) AS following_text,
       -- the note's properties, which its first passage carries: with the text, whether it holds more than a title
       (SELECT fc.properties FROM notes_chunk fc WHERE fc.note_id = c.note_id AND fc.ordinal = 0
        ORDER BY fc.tier = 'hot' DESC LIMIT 1) AS properties
FROM fused f
JOIN notes_note n ON n.id = f.note_id AND n.vault_id = ANY(%(scope)s) AND n.drawn_from <@ %(readable)s::bigint[]
JOIN notes_chunk c ON c.id = f.chunk_id AND c.vault_id = ANY(%(scope)s)
ORDER BY f.score DESC, f.note_id
"""  # noqa: S608 - built from the constants above; user input travels only as parameters
_HYBRID = _HALVES_CTES + _FUSION


def fusion_weight(vector_scores: list[float], keyword_scores: list[float], base: float | None = None) -> float:
    """The meaning half's weight for one question, as the fused statement sets it from each half's note scores (best
    first): the base weight (`SEARCH_FUSION_VECTOR_WEIGHT` unless given) moved towards the half whose best note
    leads its second by more."""
    base = float(settings.SEARCH_FUSION_VECTOR_WEIGHT) if base is None else base
    if settings.SEARCH_FUSION == "rrf":
        return base

    def lead(scores: list[float]) -> float:  # a half's only note leads by its whole score
        if not scores or scores[0] <= 0:
            return 0.0
        return max(0.0, 1 - (scores[1] if len(scores) > 1 else 0.0) / scores[0])

    vector_lead = lead(vector_scores) * float(settings.SEARCH_FUSION_VECTOR_LEAD_SCALE)
    keyword_lead = lead(keyword_scores)
    if vector_lead + keyword_lead <= 0:
        return base
    shift = float(settings.SEARCH_FUSION_LEAD_SHIFT) * (vector_lead / (vector_lead + keyword_lead) - 0.5)
    return min(0.95, max(0.05, base + shift))


@dataclass(frozen=True)
class SearchHit:
    note: int
    vault: int
    path: str
    title: str
    chunk: int
    snippet: str
    score: float
    sources: list[str]
    only_its_title: bool = False  # the passage holds no word but its note's title (`holds_only_its_title`)


@dataclass
class SearchResult:
    hits: list[SearchHit]
    strategy: str = ""
    model: str = ""  # the embedding model whose vectors the meaning half compared
    timings_ms: dict[str, float] = field(default_factory=dict)


def holds_only_its_title(*, text: str, properties: str) -> bool:
    """Whether a passage's text and its note's properties hold no word beyond the note's title."""
    properties = "\n".join(line for line in properties.splitlines() if not TITLE_PROPERTY.match(line))
    return A_WORD.search(f"{text}\n{properties}") is None


def validate_query(text: str) -> str:
    limit = int(settings.SEARCH_MAX_QUERY_CHARS)
    return validate_text(text, field="q", limit=limit, empty="the query is empty: type what you are looking for")


def vector_strategy(*, scope: Scope, tiers: list[str], model: str) -> str:
    """'exact' while the requester's scope is small (faster and exact), else 'hnsw'."""
    limit = int(settings.SEARCH_EXACT_SCAN_MAX_CHUNKS)
    with connection.cursor() as cursor:
        cursor.execute(_SCOPE_SIZE, {**scope.params(), "tiers": tiers, "model": model, "limit": limit + 1})
        size = int(cursor.fetchone()[0])
    return "exact" if size <= limit else "hnsw"


def hybrid_search_vector(
    *,
    text: str,
    query_vector: list[float] | None,
    scope: Scope,
    k: int,
    include_cold: bool = False,
    strategy: str | None = None,
    use_keyword: bool = True,
    model: str | None = None,
    include_filed: bool = True,
) -> SearchResult:
    """Run the fused SQL for an already-embedded query within `scope`: a note drawn from a vault outside the
    scope's `readable` is never returned, nor with `include_filed=False` a note the Librarian wrote.
    Without a query vector only the keyword half runs; with `use_keyword=False` only the vector half. `model` is the
    model that embedded the query (the active one by default); a vector of another size (the active model changed
    since it was embedded) is embedded again with the active model."""
    tiers = ["hot", "cold"] if include_cold else ["hot"]
    model = model or current_model()
    if query_vector is not None and len(query_vector) != model_dimensions(model):
        query_vector = embed_query(text, model=model)
    started = time.perf_counter()
    if not scope:
        return SearchResult(hits=[], strategy="empty")
    strategy = strategy or vector_strategy(scope=scope, tiers=tiers, model=model)

    def rows_by(strategy: str) -> list[tuple[Any, ...]]:
        sql, params = hybrid_statement(
            text=text,
            query_vector=query_vector,
            scope=scope,
            k=k,
            tiers=tiers,
            strategy=strategy,
            use_keyword=use_keyword,
            model=model,
            include_filed=include_filed,
        )
        return run_statement(sql, params, strategy)

    rows = rows_by(strategy)
    if strategy == "hnsw" and query_vector is not None and len(rows) < k:
        # An index walk gives up after a bounded number of entries, other vaults' rows and deleted rows' entries
        # included, so a small share of a large index can come back short; the exact scan cannot.
        strategy = "exact"
        rows = rows_by(strategy)
    hits = [
        SearchHit(
            note=r[0],
            vault=r[1],
            path=r[2],
            title=r[3],
            chunk=r[4],
            score=float(r[5]),
            sources=list(r[6]),
            snippet=snippet_of(r[7] or "", following=r[8] or ""),
            only_its_title=holds_only_its_title(text=r[7] or "", properties=r[9] or ""),
        )
        for r in rows
    ]
    timings = {"sql": (time.perf_counter() - started) * 1000}
    return SearchResult(hits=hits, strategy=strategy, model=model, timings_ms=timings)


def hybrid_statement(
    *,
    text: str,
    query_vector: list[float] | None,
    scope: Scope,
    k: int,
    tiers: list[str],
    strategy: str,
    use_keyword: bool = True,
    model: str | None = None,
    halves: bool = False,
    include_filed: bool = True,
) -> tuple[str, dict[str, Any]]:
    """The fused statement and its parameters ('hnsw' lets the index serve the distance order); with `halves`, the
    statement that returns each half's note ranking and unscaled scores instead of fusing them."""
    model = model or current_model()
    cast = vector_cast(model)
    # the model literal and the cast select that model's partial HNSW index (apps/notes/vectors.py)
    if strategy == "hnsw":
        order = f"c.embedding::{cast} <=> %(qvec)s::{cast}"
        vector_filter = (
            "(c.model || '') = %(model)s AND (c.vault_id + 0) = ANY(%(scope)s) AND (c.tier || '') = ANY(%(tiers)s)"
        )
    else:
        order = f"(c.embedding::{cast} <=> %(qvec)s::{cast}) + 0"
        vector_filter = "c.model = %(model)s AND c.vault_id = ANY(%(scope)s) AND c.tier = ANY(%(tiers)s)"
    params: dict[str, Any] = {
        "text": text,
        "qvec": vector_literal(query_vector) if query_vector is not None else None,
        "use_vector": query_vector is not None,
        "use_keyword": use_keyword,
        "include_filed": include_filed,
        **scope.params(),
        "tiers": tiers,
        "model": model,
        "candidates": int(settings.SEARCH_CANDIDATES),
        "k1": float(settings.SEARCH_BM25_K1),
        "b": float(settings.SEARCH_BM25_B),
        "term_postings": int(settings.SEARCH_KEYWORD_TERM_POSTINGS),
        "rescore": int(settings.SEARCH_KEYWORD_RESCORE),
        "more_chunks": float(settings.SEARCH_NOTE_MORE_CHUNKS),
        "long_note_chunks": float(settings.SEARCH_LONG_NOTE_CHUNKS),
        "long_note_discount": float(settings.SEARCH_LONG_NOTE_DISCOUNT),
        "vector_weight": float(settings.SEARCH_FUSION_VECTOR_WEIGHT),
        "lead_shift": float(settings.SEARCH_FUSION_LEAD_SHIFT),
        "vector_lead_scale": float(settings.SEARCH_FUSION_VECTOR_LEAD_SCALE),
        "rrf": settings.SEARCH_FUSION == "rrf",
        "rrf_k": RRF_K,
        "k": k,
    }
    template = _HALVES if halves else _HYBRID
    by_leads = params["lead_shift"] != 0 and not params["rrf"]
    weighting = _WEIGHTING_BY_LEADS if by_leads else _WEIGHTING_FIXED
    return template.format(vector_order=order, vector_filter=vector_filter, cast=cast, weighting=weighting), params


def run_statement(sql: str, params: dict[str, Any], strategy: str) -> list[tuple[Any, ...]]:
    """Run a statement from `hybrid_statement` with the session settings its strategy needs."""
    with transaction.atomic(), connection.cursor() as cursor:
        apply_session_settings(cursor, strategy)
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def apply_session_settings(cursor: Any, strategy: str) -> None:
    """Iterative HNSW scanning keeps filtered searches returning k rows (call inside a transaction)."""
    cursor.execute(f"SET LOCAL hnsw.iterative_scan = {settings.SEARCH_HNSW_ITERATIVE_SCAN}")
    cursor.execute(f"SET LOCAL hnsw.ef_search = {int(settings.SEARCH_HNSW_EF_SEARCH)}")
    if strategy == "hnsw":
        # pgvector prices a filtered HNSW walk by selectivity and may fall back to a full scan; the scope size
        # already told us the index is the faster path here.
        cursor.execute("SET LOCAL enable_seqscan = off")


def vector_literal(vector: list[float]) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


SEARCH_MODES = ("hybrid", "keyword", "vector")


def hybrid_search(
    *,
    scope: Scope,
    query: str,
    k: int = 10,
    include_cold: bool = False,
    mode: str = "hybrid",
    include_filed: bool = True,
) -> SearchResult:
    """Search the vaults of `scope` (the policy resolved them: 404 for an unreadable vault asked for). 400 on bad
    queries. `mode` keeps one half only (the evaluation's flat baselines); `include_filed=False` leaves out the
    notes the Librarian wrote from conversations. A passage with no text but its note's title (an empty journal
    page) is a hit only when the keyword half finds it, by its title: the meaning half returns its nearest passages
    however far, and such a passage sits near every query."""
    if mode not in SEARCH_MODES:
        raise ValidationError({"mode": [f"mode must be one of {', '.join(SEARCH_MODES)}"]})
    text = validate_query(query)
    if not 1 <= k <= int(settings.SEARCH_MAX_K):
        raise ValidationError({"k": [f"k must be between 1 and {settings.SEARCH_MAX_K}"]})
    if not scope:
        return SearchResult(hits=[], strategy="empty")
    started = time.perf_counter()
    model = current_model()  # once: a model switch completing mid-search must not mix two models
    vector = embed_query(text, model=model) if mode != "keyword" else None
    embed_ms = (time.perf_counter() - started) * 1000
    result = hybrid_search_vector(
        text=text,
        query_vector=vector,
        scope=scope,
        k=k,
        include_cold=include_cold,
        use_keyword=mode != "vector",
        model=model,
        include_filed=include_filed,
    )
    result.timings_ms["embed"] = embed_ms
    result.hits = [hit for hit in result.hits if not hit.only_its_title or "keyword" in hit.sources]
    return result
