"""The temporal walk (answer path step 3, "what changed about X walks by recency"): the summaries that mention the
question's subject, oldest to newest, join the candidates the gate rates, so the answer can read the change off
the sequence. Recent conversations come in detail; older history comes through the week and month nodes that
condense it, when there is more than a handful.

One SQL statement reads the nodes, their notes and their chunks, each filtered to the requester's scope (a personal
vault is readable by its owner only), so nobody's summaries reach anyone else."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.db import connection

from apps.core.text import STOP
from apps.graph.intent import CHANGED
from apps.librarian.models import SummaryLink
from apps.retrieval.candidates import Candidate, load_chunks
from apps.retrieval.trace import Trace
from apps.vaults.scope import Scope

DETAIL = 5  # the newest conversation summaries, one by one
LIMIT = 8  # summary units at most

_MATCHING = """
WITH subject AS (  -- one query per term; words the dictionary drops (stop words) count for nothing
    SELECT plainto_tsquery('english', t.term) AS query FROM unnest(%(terms)s::text[]) AS t(term)
    WHERE numnode(plainto_tsquery('english', t.term)) > 0
)
SELECT s.id, s.level, s.period_start, s.period_end,
       (SELECT c.id FROM notes_chunk c
        WHERE c.note_id = n.id AND c.vault_id = ANY(%(scope)s) AND c.tier = 'hot'
        ORDER BY ts_rank_cd(c.search_vector, to_tsquery('english', %(any)s)) DESC, c.id LIMIT 1) AS chunk
FROM librarian_summarynode s
JOIN notes_note n ON n.id = s.note_id AND n.vault_id = ANY(%(scope)s) AND n.tier = 'hot'
    AND n.drawn_from <@ %(scope)s::bigint[]  -- a summary carrying a vault outside the scope stays out of the walk
WHERE s.vault_id = ANY(%(scope)s) AND EXISTS (SELECT 1 FROM subject)
  AND (SELECT count(*) FROM subject WHERE to_tsvector('english', n.body) @@ subject.query)
      >= (SELECT ceil(count(*) / 2.0) FROM subject)
ORDER BY s.period_start, s.level DESC, s.id
"""


@dataclass(frozen=True)
class Node:
    id: int
    level: int
    start: datetime
    end: datetime
    chunk: int | None


def subject_terms(question: str) -> list[str]:
    """The question's content words, less those that only ask about change ("changed", "since", "now")."""
    words = re.findall(r"[a-z0-9][a-z0-9-]+", question.lower())
    return list(dict.fromkeys(w for w in words if w not in STOP and not CHANGED.fullmatch(w)))


def matching(terms: list[str], scope: Scope) -> list[Node]:
    """Summary nodes in `scope` whose text mentions at least half the subject's terms, oldest first."""
    if not terms or not scope:
        return []
    params: dict[str, Any] = {
        **scope.params(),
        "terms": terms,
        "any": " | ".join(re.sub(r"[^a-z0-9]", "", t) or "x" for t in terms),
    }
    with connection.cursor() as cursor:
        cursor.execute(_MATCHING, params)
        return [Node(*row) for row in cursor.fetchall()]


def _descendants(roots: list[int], scope: Scope) -> set[int]:
    found: set[int] = set()
    frontier = set(roots)
    while frontier:
        below = set(scope.filter(SummaryLink.objects.filter(parent_id__in=frontier)).values_list("child_id", flat=True))
        frontier = below - found
        found |= below
    return found


def walk(nodes: list[Node], scope: Scope) -> list[Node]:
    """The units to read, oldest to newest: every matching conversation summary when they are few; else the
    newest DETAIL in detail and, before them, the coarsest summaries of the older history (each once)."""
    conversations = [n for n in nodes if n.level == 0]
    if len(conversations) <= LIMIT:
        return conversations
    detailed = conversations[-DETAIL:]
    chosen, covered = list(detailed), {n.id for n in detailed}
    for node in sorted(nodes, key=lambda n: (-n.level, -n.start.timestamp(), -n.id)):  # coarse, then recent
        if len(chosen) >= LIMIT:
            break
        if node.id in covered or node.end >= detailed[0].start:
            continue
        chosen.append(node)
        covered |= {node.id, *_descendants([node.id], scope)}
    return sorted(chosen, key=lambda n: (n.start, -n.level, n.id))


def summary_candidates(
    candidates: list[Candidate], *, intent: str, question: str, vector: list[float] | None, scope: Scope
) -> list[Candidate]:
    """`candidates` with the temporal walk's summary chunks joined (for a `changed` question; others as they
    were). A summary chunk the search already found keeps its place and gains the walk's trace."""
    if intent != "changed":
        return candidates
    units = [n for n in walk(matching(subject_terms(question), scope), scope) if n.chunk is not None]
    if not units:
        return candidates
    order = [n.id for n in units]
    node_of = {n.chunk: n.id for n in units if n.chunk is not None}
    loaded = {c.chunk: c for c in load_chunks(chunks=list(node_of), query_vector=vector, scope=scope.strict())}

    def traced(c: Candidate) -> Candidate:
        trace = replace(c.trace or Trace(), intent="changed", summaries=tuple(order), summary=node_of[c.chunk])
        return replace(c, trace=trace)

    out = [traced(c) if c.chunk in node_of else c for c in candidates]
    present = {c.chunk for c in candidates}
    added = [loaded[n.chunk] for n in units if n.chunk in loaded and n.chunk not in present]
    return out + [replace(traced(c), rank=len(out) + i) for i, c in enumerate(added)]
