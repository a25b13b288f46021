"""Doors and the desire paths from them (DESIGN, answer path step 5: "learned = how often this kind of path helped
this kind of question before").

A door is a specific term of the question: one that at most a tenth of the passages in scope carry, and at most
200 (a speaker's name or a word every note uses opens everything, so it says nothing about which fact helps).
Feedback on a context unit teaches the path from each of the question's doors straight to the unit's fact
(`DoorValue`); a later question through the same doors finds the facts that helped first. Both reads filter by
the requester's vaults in SQL."""

from __future__ import annotations

from django.db import connection

from apps.graph.learning import ANY_INTENT

DOOR_SHARE = 0.10  # LoCoMo dev, simulated replay: 0.05 → MRR +0.026, 0.10 → +0.028, 0.20 → +0.028, all → +0.018
DOOR_MAX_CARRIERS = 200  # in a big vault a term 200 passages carry is no door either (and counting stops there)
MAX_DOORS = 8

_SCOPE_SIZE = """
SELECT count(*) FROM (
    SELECT 1 FROM notes_chunk WHERE vault_id = ANY(%(scope)s) AND tier = 'hot' LIMIT %(enough)s) AS x
"""

_CARRIERS = """
SELECT w, (SELECT count(*) FROM (
    SELECT 1 FROM notes_chunk c
    WHERE c.vault_id = ANY(%(scope)s) AND c.tier = 'hot' AND c.search_simple @@ plainto_tsquery('simple', w)
    LIMIT %(cap)s + 1) AS x)
FROM unnest(%(words)s::text[]) AS w
"""

_LEARNED = """
SELECT chunk_id, sum(helped), sum(failed) FROM graph_doorvalue
WHERE vault_id = ANY(%(scope)s) AND intent = %(intent)s AND door = ANY(%(doors)s) AND chunk_id = ANY(%(chunks)s)
GROUP BY chunk_id
"""


def doors_of(words: list[str], scope: list[int]) -> list[str]:
    """The question's content words that some but at most DOOR_SHARE of the scope's live passages carry."""
    unique = sorted({w for w in words if 2 < len(w) <= 100})[:32]
    if not unique or not scope:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_SCOPE_SIZE, {"scope": scope, "enough": int(DOOR_MAX_CARRIERS / DOOR_SHARE)})
        cap = min(int(cursor.fetchone()[0] * DOOR_SHARE), DOOR_MAX_CARRIERS)
        cursor.execute(_CARRIERS, {"scope": scope, "words": unique, "cap": cap})
        carried = dict(cursor.fetchall())
    return [w for w in unique if 0 < carried.get(w, 0) <= cap][:MAX_DOORS]


def door_lifts(doors: list[str], chunks: list[int], scope: list[int]) -> dict[int, float]:
    """chunk → what the desire paths from these doors learned about it, as odds against an unlearned fact (1.0):
    the Beta(1, 1) mean of the outcomes through any of the doors, v / (1 − v)."""
    if not doors or not chunks:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_LEARNED, {"scope": scope, "intent": ANY_INTENT, "doors": doors, "chunks": chunks})
        rows = cursor.fetchall()
    lifts = {}
    for chunk, helped, failed in rows:
        value = (1 + float(helped)) / (2 + float(helped) + float(failed))
        lifts[int(chunk)] = value / (1 - value)
    return lifts
