"""Choose the keyword half's BM25 parameters and the fusion on the dev vaults: `manage.py evaluate calibrate --fusion`.

Dev data only: the sample vault with its queries and the three real vaults (`../shared/corpora/`) with the project's
dev questions (`data/vaults/`). The readers' sets in `../shared/eval/vaults/` are never read here: the figures are
reported on them.

Each vault is ingested once and every question embedded once. The meaning half is searched once per question; the
keyword half once per (k1, b, note aggregation) point. Fusion is then replayed on the two halves' note scores: the
fusions the statement runs exactly as it fuses them (each half's scores scaled to 0–1 over its candidates, weighted
and summed, the weight fixed (`score`, the statement with `SEARCH_FUSION_LEAD_SHIFT` 0) or following each half's lead
over its second (`lead`, `fusion_weight`, at the shift and scale set); or weighted reciprocal ranks), the other
query-adaptive ones (which the statement does not run) on the same scores, so the whole grid costs a few thousand
keyword searches.

Choice, leaving one vault out: the BM25 point with the best mean (recall@5 + MRR) of `keyword` over the other vaults,
then the fusion point with the best mean (recall@5 + MRR) of the fused ranking over them, counting a fused ranking
that falls below the better of its halves by more than `LOSS_TOLERANCE` on either figure as that shortfall again
(the fusion is meant never to lose to a half). The held-out vault is then scored with the points its folds chose; the
values reported for the product are chosen on all four. The fusion alone is also chosen that way with the keyword
half held at the current BM25 point, so a fusion's held-out figures are not mixed with a BM25 choice's.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.test import override_settings

from apps.evaluation import corpus
from apps.evaluation.metrics import Item, recall_at, reciprocal_rank
from apps.evaluation.runner import read_jsonl
from apps.llm.embeddings import current_model, embed_query
from apps.notes.models import Note
from apps.retrieval.search import RRF_K, fusion_weight, hybrid_statement, run_statement, vector_strategy
from apps.vaults.scope import system_scope

DATA = Path(__file__).resolve().parent / "data" / "vaults"
REAL_VAULTS = ("kepano-obsidian", "logseq-docs", "foam-docs")
DEPTH = 50
GRID_K1 = (0.9, 1.2, 1.5, 2.0)
GRID_B = (0.4, 0.6, 0.75, 0.9)
GRID_MORE_CHUNKS = (0.0, 0.1, 0.3)
BM25_POINTS = tuple(itertools.product(GRID_K1, GRID_B, GRID_MORE_CHUNKS))
FIXED_FUSION = tuple((scaling, w) for scaling in ("score", "max", "zscore", "rrf") for w in (0.3, 0.4, 0.5, 0.6, 0.7))
# Query-adaptive fusions (min-max scaling as the statement's): each question weighs its halves by how clearly each
# one's best note stands out of its own candidates (`separation`: the best score's z-score over the half's top 10 or
# all its candidates, raised to a power; `gap`: best minus second over the half's range, smoothed), or rewards the
# notes both halves rank high (`mnz`: CombMNZ, the weighted sum times the number of halves ranking the note within
# their top 10 or all candidates).
ADAPTIVE_FUSION = (
    tuple(("separation@10", power) for power in (0.5, 1.0, 2.0))
    + tuple(("separation", power) for power in (0.5, 1.0, 2.0))
    + tuple(("gap", smoothing) for smoothing in (0.05, 0.1, 0.25, 0.5))
    + tuple((mnz, w) for mnz in ("mnz@10", "mnz") for w in (0.4, 0.5, 0.6))
)
ADAPTIVE_FAMILIES = frozenset(family for family, _ in ADAPTIVE_FUSION)
LEAD_FUSION = tuple(("lead", w) for w in (0.3, 0.4, 0.5, 0.6, 0.7))
GRID_FUSION = FIXED_FUSION + LEAD_FUSION + ADAPTIVE_FUSION
ADAPTIVE_TOP = 10
LOSS_TOLERANCE = 0.01

Tick = Callable[[int], None]


@dataclass(frozen=True)
class DevVault:
    name: str
    notes: Path
    queries: Path


@dataclass
class Half:
    """One half's note ranking for one question: (path, note id, unscaled score: cosine or BM25)."""

    notes: list[tuple[str, int, float]]


@dataclass
class Measured:
    name: str
    vault_id: int
    relevant: list[set[str]]
    vector: list[Half]
    keyword: dict[tuple[float, float, float], list[Half]]


def dev_vaults(corpora: Path, sample_notes: Path, sample_queries: Path) -> list[DevVault]:
    vaults = [DevVault("sample", sample_notes, sample_queries)]
    return vaults + [DevVault(name, corpora / name, DATA / f"{name}.jsonl") for name in REAL_VAULTS]


def _halves(*, text: str, vector: list[float] | None, vault_id: int) -> dict[str, Half]:
    """Each half's note ranking with its unscaled scores, from the product's own statement."""
    tiers = ["hot"]
    model = current_model()
    scope = system_scope([vault_id], reason="fitting the search's fusion on a development vault")
    strategy = vector_strategy(scope=scope, tiers=tiers, model=model)
    sql, params = hybrid_statement(
        text=text,
        query_vector=vector,
        scope=scope,
        k=DEPTH,
        tiers=tiers,
        strategy=strategy,
        use_keyword=vector is None,
        model=model,
        halves=True,
    )
    rows = sorted(run_statement(sql, params, strategy), key=lambda r: (r[0], r[3]))
    paths = dict(Note.objects.filter(pk__in={r[1] for r in rows}).values_list("pk", "path"))
    found: dict[str, Half] = {"vector": Half(notes=[]), "keyword": Half(notes=[])}
    for src, note, score, _ in rows:
        found[src].notes.append((paths[note], note, float(score)))
    return found


def measure(
    user: User, dev: DevVault, tick: Tick | None = None, points: tuple[tuple[float, float, float], ...] = BM25_POINTS
) -> Measured:
    """Both halves' rankings of every dev question, the keyword half at every BM25 point of the grid."""
    rows = [row for row in read_jsonl(dev.queries) if row["relevant"]]
    ingested = corpus.ingest_folder(user, f"fusion {dev.name}", dev.notes, graph=False)
    vault_id = ingested.vault.pk
    vectors = [embed_query(row["q"]) for row in rows]
    vector = [
        _halves(text=row["q"], vector=v, vault_id=vault_id)["vector"] for row, v in zip(rows, vectors, strict=True)
    ]
    keyword: dict[tuple[float, float, float], list[Half]] = {}
    for point in points:
        k1, b, more = point
        with override_settings(SEARCH_BM25_K1=k1, SEARCH_BM25_B=b, SEARCH_NOTE_MORE_CHUNKS=more):
            keyword[point] = [_halves(text=r["q"], vector=None, vault_id=vault_id)["keyword"] for r in rows]
        if tick:
            tick(1)
    return Measured(
        name=dev.name, vault_id=vault_id, relevant=[set(r["relevant"]) for r in rows], vector=vector, keyword=keyword
    )


def _scaled(half: Half, scaling: str) -> tuple[dict[int, float], float]:
    """A half's note scores on a common scale, and what a note the half did not return counts there."""
    scores = [score for _, _, score in half.notes]
    if not scores:
        return {}, 0.0
    if scaling == "rrf":
        return {note: 1.0 / (RRF_K + rank) for rank, (_, note, _) in enumerate(half.notes, start=1)}, 0.0
    if scaling == "max":
        top = max(scores) or 1.0
        return {note: score / top for _, note, score in half.notes}, 0.0
    if scaling == "zscore":
        mean = sum(scores) / len(scores)
        spread = (sum((s - mean) ** 2 for s in scores) / len(scores)) ** 0.5 or 1.0
        scaled = {note: (score - mean) / spread for _, note, score in half.notes}
        return scaled, min(scaled.values())
    low, high = min(scores), max(scores)  # "score": min-max over the half's candidates, as the statement does
    return {note: (score - low) / (high - low) if high > low else 1.0 for _, note, score in half.notes}, 0.0


def separation(half: Half, top: int | None) -> float | None:
    """How far the half's best score stands above its `top` best (all candidates if None), in standard deviations."""
    scores = [score for _, _, score in half.notes][:top]
    if len(scores) < 2:
        return None
    mean = sum(scores) / len(scores)
    spread = (sum((s - mean) ** 2 for s in scores) / len(scores)) ** 0.5
    return (scores[0] - mean) / spread if spread > 0 else None


def top_gap(half: Half) -> float | None:
    """The half's best score minus its second, over the range of its candidates' scores."""
    scores = [score for _, _, score in half.notes]
    if len(scores) < 2 or scores[0] == scores[-1]:
        return None
    return (scores[0] - scores[1]) / (scores[0] - scores[-1])


def current_fusion() -> tuple[str, float]:
    """The product's fusion as a point of the replay: "lead" when the statement moves the weight per question (its
    base weight, the shift and scale as set), else the fixed-weight fusion."""
    family = str(settings.SEARCH_FUSION)
    if family == "score" and float(settings.SEARCH_FUSION_LEAD_SHIFT) != 0:
        family = "lead"
    return family, float(settings.SEARCH_FUSION_VECTOR_WEIGHT)


def vector_weight(vector: Half, keyword: Half, fusion: tuple[str, float]) -> float:
    """The meaning half's weight for this question; the fixed weight when a half's signal is undefined."""
    family, parameter = fusion
    fixed = 0.5
    if family == "lead":  # the statement's own per-question weight, its base weight `parameter`
        return fusion_weight([s for _, _, s in vector.notes], [s for _, _, s in keyword.notes], base=parameter)
    if family.startswith("separation"):
        top = ADAPTIVE_TOP if family.endswith("@10") else None
        v, k = separation(vector, top), separation(keyword, top)
        if v is None or k is None or v + k <= 0:
            return fixed
        return v**parameter / (v**parameter + k**parameter)
    if family == "gap":
        gv, gk = top_gap(vector), top_gap(keyword)
        if gv is None or gk is None:
            return fixed
        return (gv + parameter) / (gv + gk + 2 * parameter)
    return parameter


def fuse(vector: Half, keyword: Half, fusion: tuple[str, float]) -> list[str]:
    """A fused note ranking: each half's scaled scores, weighted and summed (ties by note id, as the statement)."""
    family, _ = fusion
    scaling = "score" if family in ADAPTIVE_FAMILIES or family == "lead" else family
    weight = vector_weight(vector, keyword, fusion)
    paths = {note: path for half in (vector, keyword) for path, note, _ in half.notes}
    total: dict[int, float] = dict.fromkeys(paths, 0.0)
    for half, w in ((vector, weight), (keyword, 1 - weight)):
        scaled, absent = _scaled(half, scaling)
        for note in total:
            total[note] += w * scaled.get(note, absent)
    if family.startswith("mnz"):
        top = ADAPTIVE_TOP if family.endswith("@10") else None
        ranked = [{note for _, note, _ in half.notes[:top]} for half in (vector, keyword)]
        for note in total:
            total[note] *= max(1, sum(note in notes for notes in ranked))
    return [paths[note] for note in sorted(total, key=lambda note: (-total[note], note))]


def figures(rankings: list[list[str]], relevant: list[set[str]]) -> dict[str, float]:
    """recall@5 and MRR at note level, scored by the harness's own metrics."""
    items = [[Item(turns=(path,), tokens=0) for path in ranking] for ranking in rankings]
    scored = zip(items, relevant, strict=True)
    rows = [{"recall@5": recall_at(r, wanted, 5), "mrr": reciprocal_rank(r, wanted, DEPTH)} for r, wanted in scored]
    return {name: round(sum(row[name] for row in rows) / max(len(rows), 1), 4) for name in ("recall@5", "mrr")}


def _paths(half: Half) -> list[str]:
    return [path for path, _, _ in half.notes]


def pipelines(m: Measured, bm25: tuple[float, float, float], fusion: tuple[str, float]) -> dict[str, dict[str, float]]:
    keyword = m.keyword[bm25]
    return {
        "keyword": figures([_paths(h) for h in keyword], m.relevant),
        "vector": figures([_paths(h) for h in m.vector], m.relevant),
        "hybrid": figures([fuse(v, k, fusion) for v, k in zip(m.vector, keyword, strict=True)], m.relevant),
    }


def _sum(f: dict[str, float]) -> float:
    return f["recall@5"] + f["mrr"]


def _fusion_value(figs: dict[str, dict[str, float]]) -> float:
    best_half = {m: max(figs["keyword"][m], figs["vector"][m]) for m in ("recall@5", "mrr")}
    shortfall = sum(max(0.0, best_half[m] - figs["hybrid"][m] - LOSS_TOLERANCE) for m in best_half)
    return _sum(figs["hybrid"]) - shortfall


def choose(measured: list[Measured]) -> tuple[tuple[float, float, float], tuple[str, float]]:
    """The BM25 point, then the fusion point, with the best mean over `measured` (ties: the grid's order)."""
    bm25 = max(
        measured[0].keyword,
        key=lambda p: sum(_sum(figures([_paths(h) for h in m.keyword[p]], m.relevant)) for m in measured),
    )
    fusion = max(GRID_FUSION, key=lambda f: sum(_fusion_value(pipelines(m, bm25, f)) for m in measured))
    return bm25, fusion


def _point(bm25: tuple[float, float, float], fusion: tuple[str, float]) -> dict[str, Any]:
    k1, b, more = bm25
    family, parameter = fusion
    key = "parameter" if family in ADAPTIVE_FAMILIES else "vector_weight"
    point = {"k1": k1, "b": b, "more_chunks": more, "fusion": family, key: parameter}
    if family in ("score", "lead"):  # the statement's settings that give this fusion
        shift = float(settings.SEARCH_FUSION_LEAD_SHIFT) if family == "lead" else 0.0
        point |= {"fusion": "score", "lead_shift": shift}
        if family == "lead":
            point["vector_lead_scale"] = float(settings.SEARCH_FUSION_VECTOR_LEAD_SCALE)
    return point


def calibrate_fusion(
    measured: list[Measured], current: tuple[tuple[float, float, float], tuple[str, float]]
) -> dict[str, Any]:
    """Leave-one-vault-out figures at the chosen points beside the current settings, and the points chosen on all."""
    folds = []
    for held_out in measured:
        others = [m for m in measured if m is not held_out]
        bm25, fusion = choose(others)
        folds.append(
            {
                "measured_on": held_out.name,
                "chosen": _point(bm25, fusion),
                "chosen_figures": pipelines(held_out, bm25, fusion),
                "current_figures": pipelines(held_out, *current),
            }
        )
    # the fusion alone, chosen leaving one vault out with the keyword half at the current BM25 point
    fusion_folds = []
    for held_out in measured:
        others = [m for m in measured if m is not held_out]
        fusion = max(GRID_FUSION, key=lambda f: sum(_fusion_value(pipelines(m, current[0], f)) for m in others))
        fusion_folds.append(
            {
                "measured_on": held_out.name,
                "chosen": _point(current[0], fusion),
                "chosen_figures": pipelines(held_out, current[0], fusion),
            }
        )
    bm25, fusion = choose(measured)
    grid = {
        f"{scaling} {weight}": {m.name: pipelines(m, current[0], (scaling, weight))["hybrid"] for m in measured}
        for scaling, weight in GRID_FUSION
    }
    return {
        "folds": folds,
        "fusion_folds_at_current_bm25": fusion_folds,
        "current": _point(*current),
        "chosen_on_all": _point(bm25, fusion),
        "fusion_at_current_bm25": grid,
    }
