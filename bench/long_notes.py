"""Benchmark: the keyword half's discount of long notes, chosen leaving one dev vault out, then read on the readers'.

Each corpus (the sample vault, kepano-obsidian, logseq-docs, foam-docs) is ingested once into a throwaway database
(`desirepath_bench`, dropped at the end); both halves of the product's own statement rank every dev question (the
project's, `apps/evaluation/data/vaults/`) and every readers' question (`../shared/eval/vaults/`), the keyword half
with no discount. The discount, a note's keyword score × min(1, (T / its chunks) ^ γ), is then replayed on those
rankings over a grid of T and γ, and fused as the statement fuses (`apps/evaluation/fusion_fit.py`). Rule: the
point with the best mean of recall@5 + MRR of `hybrid` on the other three dev vaults (a fall below the better half
by more than 0.01 counted twice), figures on the held-out one; then the point chosen on all four dev vaults, read on
the readers' sets, which chose nothing.
Usage: .venv/bin/python bench/long_notes.py [--corpora DIR] [--json bench/results/long-notes.json]
"""

# isort: skip_file
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.search import ROOT, drop_database, fresh_database  # sets Django up

from django.conf import settings
from django.db.models import Count
from django.test import override_settings

from apps.evaluation import corpus
from apps.evaluation.fusion_fit import DATA, DevVault, Half, _fusion_value, current_fusion, figures, fuse, measure
from apps.evaluation.runner import eval_user
from apps.notes.models import Chunk
from tests.corpora import CORPORA

GRID = [(1.0, 0.0)] + [(t, g) for t in (5.0, 10.0, 20.0, 40.0) for g in (0.1, 0.2, 0.3, 0.5, 1.0)]
SETS = ("dev", "readers")


def _questions(dev: Path, readers: Path) -> list[dict[str, Any]]:
    rows = []
    for which, path in zip(SETS, (dev, readers), strict=True):
        for line in path.read_text().splitlines():
            if line.strip() and json.loads(line)["relevant"]:
                rows.append({**json.loads(line), "set": which})
    return rows


def _discounted(half: Half, chunks: dict[int, int], point: tuple[float, float]) -> Half:
    t, gamma = point
    notes = [
        (path, note, score * min(1.0, (t / max(chunks.get(note, 1), 1)) ** gamma)) for path, note, score in half.notes
    ]
    return Half(notes=sorted(notes, key=lambda n: (-n[2], n[1])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--json", type=Path, dest="json_out")
    options = parser.parse_args()
    readers = options.corpora.parent / "eval" / "vaults"
    sources = {
        "sample": (ROOT / "samples" / "vault", ROOT / "samples" / "queries.jsonl", ROOT / "samples" / "queries.jsonl")
    }
    for name in ("kepano-obsidian", "logseq-docs", "foam-docs"):
        sources[name] = (options.corpora / name, DATA / f"{name}.jsonl", readers / name / "queries.jsonl")
    fusion = current_fusion()
    bm25 = (float(settings.SEARCH_BM25_K1), float(settings.SEARCH_BM25_B), float(settings.SEARCH_NOTE_MORE_CHUNKS))
    fresh_database()
    table: dict[tuple[float, float], dict[str, Any]] = {p: {} for p in GRID}
    scratch = tempfile.TemporaryDirectory()
    try:
        user = eval_user()
        for name, (notes, dev, readers_queries) in sources.items():
            rows = _questions(dev, readers_queries)
            asked = Path(scratch.name) / f"{name}.jsonl"
            asked.write_text("".join(json.dumps(r) + "\n" for r in rows))
            with override_settings(SEARCH_LONG_NOTE_DISCOUNT=0.0):
                measured = measure(user, DevVault(name, notes, asked), points=(bm25,))
            chunks = dict(
                Chunk.objects.filter(vault_id=measured.vault_id, tier="hot")
                .values("note_id")
                .annotate(n=Count("id"))
                .values_list("note_id", "n")
            )
            for point in GRID:
                table[point][name] = {}
                for which in SETS:
                    picked = [i for i, row in enumerate(rows) if row["set"] == which]
                    keyword = [_discounted(measured.keyword[bm25][i], chunks, point) for i in picked]
                    vector = [measured.vector[i] for i in picked]
                    relevant = [measured.relevant[i] for i in picked]
                    table[point][name][which] = {
                        "keyword": figures([[p for p, _, _ in h.notes] for h in keyword], relevant),
                        "vector": figures([[p for p, _, _ in h.notes] for h in vector], relevant),
                        "hybrid": figures([fuse(v, k, fusion) for v, k in zip(vector, keyword, strict=True)], relevant),
                    }
            print(name, len(rows), "questions", flush=True)
        corpus.teardown(user)
    finally:
        scratch.cleanup()
        drop_database()
    names = list(sources)

    def best(on: list[str]) -> tuple[float, float]:
        return max(GRID, key=lambda p: sum(_fusion_value(table[p][n]["dev"]) for n in on))

    folds: list[dict[str, Any]] = []
    for held in names:
        point = best([n for n in names if n != held])
        folds.append(
            {
                "measured_on": held,
                "chosen": {"chunks": point[0], "discount": point[1]},
                "chosen_figures": table[point][held]["dev"],
                "without_figures": table[GRID[0]][held]["dev"],
            }
        )
    chosen = best(names)
    report: dict[str, Any] = {
        "folds": folds,
        "chosen_on_all_dev": {"chunks": chosen[0], "discount": chosen[1]},
        "readers": {n: {"chosen": table[chosen][n]["readers"], "without": table[GRID[0]][n]["readers"]} for n in names},
        "grid": {f"T {t:g}, discount {g:g}": table[(t, g)] for t, g in GRID},
    }
    for fold in folds:
        print(
            fold["measured_on"],
            fold["chosen"],
            fold["chosen_figures"]["hybrid"],
            "without",
            fold["without_figures"]["hybrid"],
        )
    print("chosen on all dev", report["chosen_on_all_dev"])
    for n, figs in report["readers"].items():
        print("readers", n, figs["chosen"]["hybrid"], "without", figs["without"]["hybrid"])
    if options.json_out:
        options.json_out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
