"""Doors and the desire paths from them (DESIGN, answer path step 5: "learned = how often this kind of path helped
this kind of question before").

A door is a specific term of the question, as its English stem ("offer" and "offering" open the same door): one
that at most a tenth of the passages in scope carry, and at most 200 (a speaker's name or a word every note uses
opens everything, so it says nothing about which fact helps).
Feedback on a context unit teaches the path from each of the question's doors straight to the unit's fact
(`DoorValue`), for the kind of answer the question asks for (its question word: the turn that said when they went
camping is the way for the next "when … camping", not for "what did they do while camping"); a later question of
that kind through the same doors finds the facts that helped first. Both reads filter by the requester's vaults in
SQL."""

from __future__ import annotations

from django.db import connection, transaction

from apps.graph.learning import rates
from apps.vaults.scope import Scope

DOOR_SHARE = 0.10  # a term more than this share of the passages carry is no door (a common word opens every fact)
DOOR_MAX_CARRIERS = 200  # in a big vault a term 200 passages carry is no door either
MAX_DOORS = 8
_COUNTS = """
WITH doors AS (
    SELECT DISTINCT (ts_lexize('english_stem', w))[1] AS term FROM unnest(%(words)s::text[]) AS w
)
SELECT t.term, sum(t.passages) FROM graph_termcount t
WHERE t.vault_id = ANY(%(scope)s) AND (t.term = '' OR t.term IN (SELECT term FROM doors))
GROUP BY t.term
"""

# ts_stat reads every live passage of the vault once (in the worker): the stems few enough carry to be doors.
_REFRESH = """
INSERT INTO graph_termcount (vault_id, term, passages)
SELECT %(vault)s, word, ndoc FROM ts_stat(%(passages)s) WHERE ndoc <= %(most)s AND length(word) <= 100
UNION ALL
SELECT %(vault)s, '', count(*) FROM notes_chunk WHERE vault_id = %(vault)s AND tier = 'hot'
"""

_LEARNED = """
SELECT c.id, sum(v.helped), sum(v.failed) FROM notes_chunk c
JOIN graph_doorvalue v ON v.note_id = c.note_id AND v.content_hash = c.content_hash AND v.vault_id = c.vault_id
WHERE c.id = ANY(%(chunks)s) AND c.vault_id = ANY(%(scope)s)
  AND v.vault_id = ANY(%(scope)s) AND v.intent = %(intent)s AND v.door = ANY(%(doors)s)
GROUP BY c.id
"""


_HELPED = """
SELECT c.id, sum(v.helped), sum(v.failed) FROM graph_doorvalue v
JOIN notes_chunk c ON c.note_id = v.note_id AND c.content_hash = v.content_hash AND c.vault_id = v.vault_id
     AND c.vault_id = ANY(%(scope)s) AND c.tier = 'hot'
WHERE v.vault_id = ANY(%(scope)s) AND v.intent = %(intent)s AND v.door = ANY(%(doors)s)
GROUP BY c.id
HAVING sum(v.helped) > sum(v.failed)
"""


def doors_of(words: list[str], scope: Scope) -> list[str]:
    """The stems of the question's content words that some but at most DOOR_SHARE (and at most DOOR_MAX_CARRIERS)
    of the scope's live passages carry, from the counts the worker keeps (`term_counts_refresh`)."""
    unique = sorted({w for w in words if 2 < len(w) <= 100})[:32]
    if not unique or not scope:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_COUNTS, {**scope.params(), "words": unique})
        counts = {term: int(n) for term, n in cursor.fetchall()}
    cap = min(int(counts.pop("", 0) * DOOR_SHARE), DOOR_MAX_CARRIERS)
    return sorted(term for term, n in counts.items() if 0 < n <= cap)[:MAX_DOORS]


def term_counts_refresh(*, vault_id: int) -> int:
    """Recount which terms the vault's live passages carry (after extraction runs); returns the terms kept."""
    passages = f"SELECT search_vector FROM notes_chunk WHERE vault_id = {int(vault_id)} AND tier = 'hot'"  # noqa: S608 - an int
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext('graph_termcount'), %s)", [vault_id])  # one at a time
        cursor.execute("DELETE FROM graph_termcount WHERE vault_id = %s", [vault_id])
        cursor.execute(_REFRESH, {"vault": vault_id, "passages": passages, "most": DOOR_MAX_CARRIERS})
        return max(cursor.rowcount - 1, 0)


def door_lifts(doors: list[str], asks: str, chunks: list[int], scope: Scope) -> dict[int, float]:
    """chunk → what the desire paths from these doors learned about it for questions that ask for `asks`, as odds
    against an unlearned fact (1.0): the Beta(1, 1) mean of the outcomes through any of the doors, v / (1 − v), at
    most `Rates.most_lift` (`apps.graph.learning`)."""
    if not doors or not chunks:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_LEARNED, {**scope.params(), "intent": asks, "doors": doors, "chunks": chunks})
        rows = cursor.fetchall()
    lifts = {}
    most = rates().most_lift
    for chunk, helped, failed in rows:
        value = (1 + float(helped)) / (2 + float(helped) + float(failed))
        lifts[int(chunk)] = min(value / (1 - value), most)
    return lifts


def door_helped(doors: list[str], asks: str, known: set[int], scope: Scope) -> list[int]:
    """At most `Rates.door_candidates` facts that helped through these doors, for questions that ask for `asks`
    (more hits than misses), that are not among `known` yet: most helped first. None while that is 0."""
    most = rates().door_candidates
    if not doors or most <= 0 or not scope:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_HELPED, {**scope.params(), "intent": asks, "doors": doors})
        rows = cursor.fetchall()
    odds = {int(chunk): (1 + float(helped)) / (1 + float(failed)) for chunk, helped, failed in rows}
    fresh = sorted((c for c in odds if c not in known), key=lambda c: (-odds[c], c))
    return fresh[:most]
