"""Benchmark: each half's candidate depth, the note-level aggregation and fusion variants, chosen leaving one dev
vault out, then read on the readers' sets.

Collect (`--collect PATH`): each corpus (the sample vault, kepano-obsidian, logseq-docs, foam-docs) is ingested once
into a throwaway database (`desirepath_bench`, dropped at the end). For every dev question
(`apps/evaluation/data/vaults/`, `samples/queries.jsonl`) and every readers' question (`../shared/eval/vaults/`):
the product's statement ranks both halves at today's settings (the reference the replay must reproduce), the
meaning half's cosine of every chunk of the vault, and the keyword half deep (200 notes, every reached chunk
rescored). Written as JSON. Replay (`--replay PATH`): the variants over those scores, the rule of the fusion
calibration (best mean recall@5 + MRR of `hybrid` on the other three dev vaults, a fall below the better half by more
than 0.01 counted twice), figures on the held-out vault; the point chosen on all four dev vaults is then read on
the readers' sets, which chose nothing. The per-question grids (`mix`, `agree`, `relgap`, `share`, `cos1`,
`absolute`, `disagree`, and `adaptive`, all of them at once) replay today's halves with a weight set from each
question's own score shapes, a reciprocal-rank term added to the scores, a bonus for notes both halves rank high, or
the meaning half's cosine on a fixed scale; at their neutral settings they rank every question as the statement does.
The ceiling grids (`kwabs`, `kwconf`, both as `ceiling`) scale the keyword half against the BM25 a chunk would score
matching every query term at saturation (collected per question as `idf_sum`).
The collected scores quote the readers' questions: keep them out of the repository.
Usage: .venv/bin/python bench/fusion_depth.py --collect /tmp/halves.json [--corpora DIR]
       .venv/bin/python bench/fusion_depth.py --replay /tmp/halves.json [--grid NAME …] [--json PATH]
"""

# isort: skip_file
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.corpora import CORPORA


def collect(out: Path, corpora: Path) -> None:
    from bench.search import ROOT, drop_database, fresh_database  # sets Django up

    from django.db import connection
    from django.db.models import Count
    from django.test import override_settings

    from apps.evaluation import corpus
    from apps.evaluation.fusion_fit import DATA, _halves
    from apps.evaluation.runner import eval_user
    from apps.llm.embeddings import current_model, embed_query
    from apps.notes.models import Chunk, Note
    from apps.retrieval.search import vector_literal
    from apps.notes.vectors import vector_cast

    readers = corpora.parent / "eval" / "vaults"
    sources = {"sample": (ROOT / "samples" / "vault", ROOT / "samples" / "queries.jsonl", None)}
    for name in ("kepano-obsidian", "logseq-docs", "foam-docs"):
        sources[name] = (corpora / name, DATA / f"{name}.jsonl", readers / name / "queries.jsonl")
    fresh_database()
    report: dict[str, Any] = {}
    try:
        user = eval_user()
        model = current_model()
        cast = vector_cast(model)
        for name, (notes, dev, readers_queries) in sources.items():
            rows = []
            for which, path in (("dev", dev), ("readers", readers_queries)):
                if path is None:
                    continue
                for line in path.read_text().splitlines():
                    if line.strip() and json.loads(line)["relevant"]:
                        rows.append({**json.loads(line), "set": which})
            ingested = corpus.ingest_folder(user, f"depth {name}", notes, graph=False)
            vault_id = ingested.vault.pk
            paths = dict(Note.objects.filter(vault_id=vault_id).values_list("pk", "path"))
            chunks = dict(
                Chunk.objects.filter(vault_id=vault_id, tier="hot")
                .values("note_id")
                .annotate(n=Count("id"))
                .values_list("note_id", "n")
            )
            questions = []
            for row in rows:
                vec = embed_query(row["q"])
                current_v = _halves(text=row["q"], vector=vec, vault_id=vault_id)["vector"]
                current_k = _halves(text=row["q"], vector=None, vault_id=vault_id)["keyword"]
                with override_settings(SEARCH_CANDIDATES=200, SEARCH_KEYWORD_RESCORE=5000):
                    deep_k = _halves(text=row["q"], vector=None, vault_id=vault_id)["keyword"]
                with connection.cursor() as cursor:
                    cursor.execute(
                        f"SELECT c.chunk_id, c.note_id, 1 - ((c.embedding::{cast} <=> %s::{cast}) + 0) AS score"
                        " FROM notes_chunkvector c WHERE c.vault_id = %s AND c.model = %s AND c.tier = 'hot'"
                        " ORDER BY 3 DESC, c.chunk_id",
                        [vector_literal(vec), vault_id, model],
                    )
                    all_v = [(r[1], float(r[2])) for r in cursor.fetchall()]
                    # the keyword half's ceiling for this question: every query term matched at saturation
                    cursor.execute(
                        "SELECT coalesce(sum(ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5))), 0)"
                        " FROM (SELECT DISTINCT lexeme AS term FROM unnest(to_tsvector('english', %s))) AS t"
                        " CROSS JOIN (SELECT coalesce(sum(chunks), 0)::float8 AS n FROM notes_vaulttext"
                        "             WHERE vault_id = %s) AS st"
                        " CROSS JOIN LATERAL (SELECT coalesce(sum(s.chunks), 0) AS df FROM notes_vaultterm s"
                        "                     WHERE s.term = t.term AND s.vault_id = %s) AS d WHERE d.df > 0",
                        [row["q"], vault_id, vault_id],
                    )
                    idf_sum = float(cursor.fetchone()[0])
                questions.append(
                    {
                        "q": row["q"],
                        "set": row["set"],
                        "relevant": row["relevant"],
                        "current_vector": [(n, s) for _, n, s in current_v.notes],
                        "current_keyword": [(n, s) for _, n, s in current_k.notes],
                        "deep_keyword": [(n, s) for _, n, s in deep_k.notes],
                        "vector_chunks": all_v,
                        "idf_sum": idf_sum,
                    }
                )
            report[name] = {"paths": {str(k): v for k, v in paths.items()}, "chunks": chunks, "questions": questions}
            print(name, len(rows), "questions", flush=True)
        corpus.teardown(user)
    finally:
        drop_database()
    out.write_text(json.dumps(report))


Scores = list[tuple[int, float]]
LOSS_TOLERANCE = 0.01
DEPTH = 50


def vector_notes(chunks: Scores, depth: int | None, more: float = 0.0) -> Scores:
    """The meaning half's note ranking from its best `depth` chunks: a note's best cosine (plus `more` of its next)."""
    best: dict[int, list[float]] = {}
    for note, score in chunks[:depth]:
        best.setdefault(note, []).append(score)
    scored = [(note, s[0] + more * (s[1] if len(s) > 1 else 0.0)) for note, s in best.items()]
    return sorted(scored, key=lambda n: (-n[1], n[0]))


def scaled(half: Scores, window: int | None) -> dict[int, float]:
    """Min-max over the half's best `window` notes (all of its candidates if None); below the window counts 0."""
    if not half:
        return {}
    scores = [s for _, s in half]
    high = scores[0]
    low = scores[min(window, len(scores)) - 1] if window else scores[-1]
    if high <= low:
        return {note: 1.0 if s >= high else 0.0 for note, s in half}
    return {note: max(0.0, (s - low) / (high - low)) for note, s in half}


def fuse(
    vector: Scores, keyword: Scores, weight: float, windows: tuple[int | None, int | None], keep: int = 0
) -> list[int]:
    """The statement's fusion (min-max, weighted sum, a note a half did not return counting 0 there), optionally over
    each half's best `window` notes only, and optionally keeping each half's best `keep` notes within the first
    2 × `keep` places (moved up in fused order, replacing the lowest fused notes no half reserved)."""
    total: dict[int, float] = {}
    for half, w, window in ((vector, weight, windows[0]), (keyword, 1 - weight, windows[1])):
        for note, s in scaled(half, window).items():
            total[note] = total.get(note, 0.0) + w * s
    fused = sorted(total, key=lambda n: (-total[n], n))
    if keep:  # each half's best `keep` notes within the fused ranking's first 2 * keep
        reserved = {n for n, _ in vector[:keep]} | {n for n, _ in keyword[:keep]}
        head = fused[: 2 * keep]
        missing = [n for n in fused if n in reserved and n not in head]
        for n in missing:
            drop = next(h for h in reversed(head) if h not in reserved)
            head.remove(drop)
            head.append(n)
        head.sort(key=fused.index)
        fused = head + [n for n in fused if n not in head]
    return fused[:DEPTH]


def top_drop(half: Scores, n: int) -> float:
    """How far the half's n-th note (its last, if fewer) falls below its best, relative to the best: 0 flat, 1 steep."""
    if len(half) < 2 or half[0][1] <= 0:
        return 0.0
    return max(0.0, 1 - half[min(n, len(half)) - 1][1] / half[0][1])


def top_share(half: Scores, n: int) -> float:
    """The best note's share of the half's top-n score mass, from 0 (n equal scores) to 1 (the best holds it all)."""
    top = [max(s, 0.0) for _, s in half[:n]]
    if len(top) < 2 or sum(top) <= 0:
        return 0.0
    return (top[0] / sum(top) - 1 / len(top)) / (1 - 1 / len(top))


def adaptive_weight(vector: Scores, keyword: Scores, weight: float, mode: tuple[Any, ...]) -> float:
    """The meaning half's weight for this question, from the halves' own score shapes (no label)."""
    family = mode[0]
    if family == "relgap":  # each half's relative drop from its best to its n-th note; the steeper half weighs more
        _, n, scale, slope = mode
        conf_v, conf_k = scale * top_drop(vector, n), top_drop(keyword, n)
    elif family == "share":  # the meaning half's cosine gap best to n-th; the keyword half's best share of its top n
        _, n, scale, slope = mode
        gap = vector[0][1] - vector[min(n, len(vector)) - 1][1] if vector else 0.0
        conf_v, conf_k = scale * gap, top_share(keyword, n)
    elif family == "cos1":  # the meaning half's best cosine against a fixed level
        _, level, slope = mode
        return min(0.95, max(0.05, weight + slope * ((vector[0][1] if vector else level) - level)))
    elif family == "disagree":  # the halves' best notes differ: the meaning half weighs `other` instead
        agree = bool(vector and keyword and vector[0][0] == keyword[0][0])
        return weight if agree else mode[1]
    else:
        return weight
    share = conf_v / (conf_v + conf_k) if conf_v + conf_k > 0 else 0.5
    return min(0.95, max(0.05, weight + slope * (share - 0.5)))


def fuse_adaptive(
    vector: Scores, keyword: Scores, weight: float, mode: tuple[Any, ...], ceiling: float = 0.0
) -> list[int]:
    """The statement's min-max fusion with a per-question weight, an absolute scale for the meaning half, a rank term
    or an agreement bonus added."""
    family = mode[0]
    w = adaptive_weight(vector, keyword, weight, mode)
    scaled_v = scaled(vector, None)
    if family == "absolute":  # cosine on a fixed scale: a question whose best note is far from every chunk stays low
        _, low, high = mode
        scaled_v = {note: min(1.0, max(0.0, (s - low) / (high - low))) for note, s in vector}
    scaled_k = scaled(keyword, None)
    if family in ("kwabs", "kwconf"):  # the keyword half against its ceiling: every query term matched at saturation
        _, share, extra = mode
        reach = share * ceiling
        if family == "kwabs":  # each note on that fixed scale; `extra` an absolute window for the meaning half
            scaled_k = {note: min(1.0, s / reach) if reach > 0 else 0.0 for note, s in keyword}
            if extra:
                low, high = extra
                scaled_v = {note: min(1.0, max(0.0, (s - low) / (high - low))) for note, s in vector}
        else:  # min-max as today, the half's weight shrunk by how little of the ceiling its best note reaches
            confidence = min(1.0, keyword[0][1] / reach) if keyword and reach > 0 else 0.0
            scaled_k = {note: v * confidence**extra for note, v in scaled_k.items()}
    total: dict[int, float] = {}
    for half, hw, sc in ((vector, w, scaled_v), (keyword, 1 - w, scaled_k)):
        for rank, (note, _) in enumerate(half, start=1):
            total[note] = total.get(note, 0.0) + hw * sc[note]
            if family == "mix":  # plus reciprocal ranks, 1 at a half's best note
                _, amount, k0 = mode
                total[note] += amount * hw * (k0 + 1) / (k0 + rank)
    if family == "agree":  # a note both halves rank within their top n
        _, n, bonus = mode
        for note in {m for m, _ in vector[:n]} & {m for m, _ in keyword[:n]}:
            total[note] += bonus
    return sorted(total, key=lambda n: (-total[n], n))[:DEPTH]


def figures(rankings: list[list[int]], relevant: list[set[int]]) -> dict[str, float]:
    """recall@5 and MRR (50 deep) at note level, as the harness scores them."""
    r5 = mrr = 0.0
    for ranking, wanted in zip(rankings, relevant, strict=True):
        r5 += len(set(ranking[:5]) & wanted) / len(wanted)
        mrr += next((1 / i for i, n in enumerate(ranking[:DEPTH], start=1) if n in wanted), 0.0)
    n = max(len(rankings), 1)
    return {"recall@5": round(r5 / n, 4), "mrr": round(mrr / n, 4)}


def value(figs: dict[str, dict[str, float]]) -> float:
    """recall@5 + MRR of the fused ranking, a fall below the better half by more than the tolerance counted twice."""
    best = {m: max(figs["keyword"][m], figs["vector"][m]) for m in ("recall@5", "mrr")}
    short = sum(max(0.0, best[m] - figs["hybrid"][m] - LOSS_TOLERANCE) for m in best)
    return figs["hybrid"]["recall@5"] + figs["hybrid"]["mrr"] - short


VECTOR_DEPTHS = (25, 50, 100, 200, None)
KEYWORD_SOURCES = ("current", "deep")
WINDOWS = (None, 5, 10, 20, 30)
WEIGHTS = (0.4, 0.45, 0.5, 0.55, 0.6)
# (meaning half's chunks, keyword half, meaning window, keyword window, vector weight, share of the next chunk, keep,
#  a per-question fusion in place of the fixed weight: (family, its parameters …), empty for the statement's)
Point = tuple[int | None, str, int | None, int | None, float, float, int, tuple[Any, ...]]
CURRENT: Point = (50, "current", None, None, 0.5, 0.0, 0, ())
GRIDS: dict[str, list[Point]] = {
    # each half's candidate depth alone
    "depth": [(dv, ks, None, None, w, 0.0, 0, ()) for dv in VECTOR_DEPTHS for ks in KEYWORD_SOURCES for w in WEIGHTS],
    # one scaling window for both halves, the meaning half deep enough to fill it
    "windows": [
        (dv, "current", n, n, w, 0.0, 0, ())
        for dv in (50, 100, 200)
        for n in (None, 5, 10, 15, 20, 30)
        for w in WEIGHTS
    ],
    # everything at once: depths, separate windows, weight, a note's second chunk in the meaning half
    "all": [
        (dv, ks, wv, wk, w, more, 0, ())
        for dv in VECTOR_DEPTHS
        for ks in KEYWORD_SOURCES
        for wv in WINDOWS
        for wk in WINDOWS
        for w in WEIGHTS
        for more in (0.0, 0.1)
    ],
    # each half's best `keep` notes within the fused ranking's first 2 × keep
    "keep-only": [(50, "current", None, None, 0.5, 0.0, keep, ()) for keep in (0, 1, 2, 3)],
    "keep-depth": [(dv, "current", None, None, 0.5, 0.0, keep, ()) for dv in (50, 100, 200) for keep in (0, 1, 2, 3)],
    "keep": [
        (dv, "current", n, n, w, 0.0, keep, ())
        for dv in (50, 100)
        for n in (None, 10, 20)
        for w in WEIGHTS
        for keep in (0, 1, 2)
    ],
}
# Per-question fusions over today's halves (50 chunks, the keyword half as today, min-max over all candidates)
ADAPTIVE: dict[str, list[tuple[Any, ...]]] = {
    "mix": [("mix", a, k0) for a in (0.1, 0.25, 0.5, 1.0) for k0 in (0, 2, 5, 10, 30)],
    "agree": [("agree", n, bonus) for n in (1, 3, 5, 10) for bonus in (0.05, 0.1, 0.2, 0.3)],
    "relgap": [("relgap", n, scale, slope) for n in (2, 5, 10) for scale in (1, 3, 10) for slope in (0.2, 0.4, 0.8)],
    "share": [("share", n, scale, slope) for n in (5, 10) for scale in (2, 5, 10, 20) for slope in (0.2, 0.4, 0.8)],
    "cos1": [("cos1", level, slope) for level in (0.4, 0.5, 0.6) for slope in (0.5, 1.0, 2.0)],
    "absolute": [("absolute", low, high) for low in (0.0, 0.1, 0.2, 0.3) for high in (0.6, 0.7, 0.8, 1.0)],
    "disagree": [("disagree", other) for other in (0.3, 0.4, 0.45, 0.55, 0.6, 0.7)],
    "kwabs": [
        ("kwabs", share, window)
        for share in (0.25, 0.4, 0.6, 0.8, 1.0)
        for window in (None, (0.1, 0.7), (0.2, 0.7), (0.3, 0.7), (0.2, 0.8))
    ],
    "kwconf": [("kwconf", share, power) for share in (0.25, 0.4, 0.6, 0.8, 1.0) for power in (0.5, 1.0, 2.0)],
}
BM25_K1 = 1.2  # the product's SEARCH_BM25_K1, which the collected keyword scores were computed with
for family, modes in ADAPTIVE.items():
    GRIDS[family] = [(50, "current", None, None, w, 0.0, 0, m) for m in modes for w in (0.4, 0.5, 0.6)]
CEILING = ("kwabs", "kwconf")
GRIDS["adaptive"] = [p for family in ADAPTIVE if family not in CEILING for p in GRIDS[family]]
GRIDS["ceiling"] = [p for family in CEILING for p in GRIDS[family]]


def label(point: Point) -> dict[str, Any]:
    dv, ks, wv, wk, w, more, keep, mode = point
    return {
        "vector_chunks": dv,
        "keyword": ks,
        "vector_window": wv,
        "keyword_window": wk,
        "vector_weight": w,
        "vector_next_chunk": more,
        "keep": keep,
        "adaptive": list(mode),
    }


def replay(data: dict[str, Any], which_grid: str) -> dict[str, Any]:
    names = list(data)
    points = list(GRIDS[which_grid])
    if CURRENT not in points:
        points.append(CURRENT)
    table: dict[Point, dict[str, dict[str, Any]]] = {p: {} for p in points}
    for name in names:
        ids = {v: int(k) for k, v in data[name]["paths"].items()}
        qs = data[name]["questions"]
        sets = {"dev": [q for q in qs if q["set"] == "dev"]}
        sets["readers"] = [q for q in qs if q["set"] == "readers"] or sets["dev"]  # the sample vault is both
        for which, rows in sets.items():
            relevant = [{ids[p] for p in q["relevant"] if p in ids} for q in rows]
            for q in rows:  # the replay reproduces the statement's meaning half
                assert [n for n, _ in vector_notes(q["vector_chunks"], 50)] == [n for n, _ in q["current_vector"]]
            halves = {
                "keyword": figures([[n for n, _ in q["current_keyword"]] for q in rows], relevant),
                "vector": figures([[n for n, _ in q["current_vector"]] for q in rows], relevant),
            }
            cache: dict[tuple[Any, ...], list[Scores]] = {}
            for point in points:
                dv, ks, wv, wk, w, more, keep, mode = point
                if (dv, more) not in cache:
                    cache[(dv, more)] = [vector_notes(q["vector_chunks"], dv, more) for q in rows]
                kw = [q["current_keyword"] if ks == "current" else q["deep_keyword"] for q in rows]
                if mode:
                    fused = [
                        fuse_adaptive(v, k, w, mode, q.get("idf_sum", 0.0) * (BM25_K1 + 1))
                        for v, k, q in zip(cache[(dv, more)], kw, rows, strict=True)
                    ]
                else:
                    fused = [fuse(v, k, w, (wv, wk), keep) for v, k in zip(cache[(dv, more)], kw, strict=True)]
                table[point].setdefault(name, {})[which] = {**halves, "hybrid": figures(fused, relevant)}

    def total(p: Point, on: list[str]) -> float:
        return sum(value(table[p][n]["dev"]) for n in on)

    def best(on: list[str]) -> Point:
        return max(points, key=lambda p: (round(total(p, on), 6), p == CURRENT))

    folds = []
    pooled = {"chosen": 0.0, "current": 0.0}
    for held in names:
        point = best([n for n in names if n != held])
        chosen, current = table[point][held]["dev"], table[CURRENT][held]["dev"]
        pooled["chosen"] += chosen["hybrid"]["recall@5"] + chosen["hybrid"]["mrr"]
        pooled["current"] += current["hybrid"]["recall@5"] + current["hybrid"]["mrr"]
        folds.append(
            {"measured_on": held, "chosen": label(point), "chosen_figures": chosen, "current_figures": current}
        )
    on_all = best(names)
    ranked = sorted(points, key=lambda p: -total(p, names))[:15]
    return {
        "folds": folds,
        "pooled_held_out": {k: round(v, 4) for k, v in pooled.items()},
        "chosen_on_all_dev": label(on_all),
        "dev_at_chosen": {n: table[on_all][n]["dev"] for n in names},
        "readers_at_chosen": {n: table[on_all][n]["readers"] for n in names},
        "readers_current": {n: table[CURRENT][n]["readers"] for n in names},
        "best_on_all_dev": [
            {**label(p), "value": round(total(p, names), 4), "hybrid": {n: table[p][n]["dev"]["hybrid"] for n in names}}
            for p in ranked
        ],
        "current_value": round(total(CURRENT, names), 4),
    }


def show(name: str, report: dict[str, Any]) -> None:
    print(f"== {name}: held out, pooled {report['pooled_held_out']}")
    for fold in report["folds"]:
        print(
            " ",
            fold["measured_on"],
            fold["chosen"],
            fold["chosen_figures"]["hybrid"],
            "current",
            fold["current_figures"]["hybrid"],
        )
    print(
        "  chosen on all dev",
        report["chosen_on_all_dev"],
        "value",
        report["best_on_all_dev"][0]["value"],
        "current",
        report["current_value"],
    )
    for n, figs in report["readers_at_chosen"].items():
        print(
            "  readers",
            n,
            figs["hybrid"],
            "current",
            report["readers_current"][n]["hybrid"],
            "halves",
            figs["keyword"],
            figs["vector"],
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collect", type=Path)
    parser.add_argument("--replay", type=Path)
    parser.add_argument("--json", type=Path, dest="json_out")
    parser.add_argument("--grid", action="append", choices=sorted(GRIDS), dest="grids")
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    options = parser.parse_args()
    if options.collect:
        collect(options.collect, options.corpora)
    if options.replay:
        data = json.loads(options.replay.read_text())
        reports = {}
        for name in options.grids or list(GRIDS):
            reports[name] = replay(data, name)
            show(name, reports[name])
        if options.json_out:
            options.json_out.write_text(json.dumps(reports, indent=1))


if __name__ == "__main__":
    main()
