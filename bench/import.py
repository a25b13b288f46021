"""Benchmark: importing the three real vaults together through the real import service, against bare embedding of
the same chunk texts in the same process; and how the job's progress moves while it runs.

The three corpora (`tests/corpora.py` finds them, or `--corpora DIR`) are copied side by side into a temporary
folder and imported as one job into a fresh vault of a throwaway database (`desirepath_bench`, dropped at the end).
The follow-up steps an import hands to the worker (graph extraction, metadata) are left out: the `imported` hook is
muted, so nothing is queued and the figures are the import's own.
A second thread polls the job's row every 250 ms on its own connection, as the job page does: the time to the first
visible progress and the largest gap between two visible changes are what a person watching the page would see.
Usage: .venv/bin/python bench/import.py [--corpora DIR] [--runs 2] [--json bench/results/import.json]
"""

# isort: skip_file
from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.search import ROOT, drop_database, fresh_database, seconds  # sets Django up

from django.conf import settings
from django.db import connection

import apps.notes.services.chunks as chunk_service
import apps.notes.services.ingest as ingest_service
from apps.llm.embeddings import embed_texts
from apps.notes.markdown import embed_input
from apps.notes.models import Chunk, ImportJob
from apps.notes.hooks import imported
from apps.notes.services.ingest import import_job_create, import_job_run
from tests.corpora import CORPORA, VAULTS
from tests.factories import make_user, make_vault

POLL_SECONDS = 0.25  # 8 times the page's own polling rate; a faster poll takes CPU from the import it measures
TARGET_RATIO = 0.7


class Watcher(threading.Thread):
    """What the job page would see: every change of the job's progress fields, timed from the job's start."""

    def __init__(self, job_id: int) -> None:
        super().__init__(daemon=True)
        self.job_id = job_id
        self.fields = [f for f in ("status", "processed", "phase", "embed_done") if _has_field(f)]
        self.changes: list[tuple[float, dict[str, Any]]] = []
        self.started = time.perf_counter()
        self.done = threading.Event()

    def run(self) -> None:
        last: dict[str, Any] | None = None
        try:
            while not self.done.is_set():
                row = ImportJob.objects.filter(pk=self.job_id).values(*self.fields).first()
                if row != last:
                    self.changes.append((seconds(self.started), dict(row or {})))
                    last = row
                time.sleep(POLL_SECONDS)
        finally:
            connection.close()

    def figures(self) -> dict[str, float]:
        moving = [t for t, row in self.changes if row.get("status") == "running" and _moved(row)]
        finished = next(t for t, row in self.changes if row.get("status") in ("succeeded", "failed"))
        marks = [*moving, finished]
        gaps = [b - a for a, b in itertools.pairwise(marks)]
        return {
            "first_progress_s": moving[0] if moving else finished,
            "largest_gap_s": max(gaps, default=finished),
            "visible_updates": len(moving),
            "succeeded_s": finished,
        }


def _has_field(name: str) -> bool:
    return any(f.name == name for f in ImportJob._meta.get_fields())


def _moved(row: dict[str, Any]) -> bool:
    return bool(row.get("processed") or row.get("embed_done"))


def corpora_folder(source: Path, into: Path) -> Path:
    for name in VAULTS:
        assert (source / name).is_dir(), f"the real vaults are not at {source} (set DESIREPATH_CORPORA or --corpora)"
        shutil.copytree(source / name, into / name, ignore=shutil.ignore_patterns(".git"))
    return into


def bench_run(owner: Any, folder: Path, run: int) -> dict[str, Any]:
    inside: list[float] = []  # time spent inside the embedding model during the import

    def timed_embed(texts: list[str], **kwargs: Any) -> list[list[float]]:
        started = time.perf_counter()
        vectors = embed_texts(texts, **kwargs)
        inside.append(seconds(started))
        return vectors

    vault = make_vault(owner, f"corpora {run}")
    job = import_job_create(actor=owner, vault=vault, folder=str(folder), source="corpora")
    ticks: list[float] = []
    watcher = Watcher(job.pk)
    chunk_service.embed_texts = ingest_service.embed_texts = timed_embed  # type: ignore[assignment]
    try:
        watcher.start()
        started = time.perf_counter()
        with imported.muted():
            job = import_job_run(job_id=job.pk, progress=lambda _job: ticks.append(seconds(started)))
        import_s = seconds(started)
    finally:
        chunk_service.embed_texts = ingest_service.embed_texts = embed_texts
        time.sleep(5 * POLL_SECONDS)
        watcher.done.set()
        watcher.join()
    assert job.status == "succeeded", job.error
    # The same texts, each distinct one once (as the import embeds them), in one call.
    chunks = Chunk.objects.filter(vault=vault).select_related("note").order_by("note_id", "ordinal")
    texts = list(dict.fromkeys(embed_input(c.note.title, c.heading, c.text) for c in chunks))
    started = time.perf_counter()
    embed_texts(texts)
    bare_s = seconds(started)
    callback_gaps = [b - a for a, b in itertools.pairwise([0.0, *ticks])]
    return {
        "files": job.total,
        "notes": job.counts.get("created", 0),
        "chunks_embedded": job.counts.get("chunks_embedded", 0),
        "bare_texts": len(texts),
        "import_s": import_s,
        "bare_embed_s": bare_s,
        "embed_in_import_s": sum(inside),
        "page": watcher.figures(),
        "callback": {"first_progress_s": ticks[0] if ticks else import_s, "largest_gap_s": max(callback_gaps)},
    }


def measure(model: str, corpora: Path, runs_wanted: int) -> dict[str, Any]:
    """The import benchmark with `model` as the deployment's embedding model."""
    settings.EMBEDDING_MODEL = model
    load = os.getloadavg()
    try:
        fresh_database()
        embed_texts(["warm-up: the model loads and runs one full batch " * 20] * 128, model=model)
        owner = make_user("bench-importer")
        with tempfile.TemporaryDirectory(prefix="desirepath-bench-") as tmp:
            folder = corpora_folder(corpora, Path(tmp))
            runs = [bench_run(owner, folder, run) for run in range(runs_wanted)]
    finally:
        drop_database()
    import_s = sum(r["import_s"] for r in runs)
    chunks_per_s = sum(r["chunks_embedded"] for r in runs) / import_s
    bare_per_s = sum(r["bare_texts"] for r in runs) / sum(r["bare_embed_s"] for r in runs)
    return {
        "meta": {
            "cpus": os.cpu_count(),
            "loadavg_start": load,
            "loadavg_end": os.getloadavg(),
            "runs": runs_wanted,
            "model": model,
        },
        "runs": runs,
        "import_s": import_s / len(runs),
        "notes_per_s": sum(r["notes"] for r in runs) / import_s,
        "chunks_per_s": chunks_per_s,
        "bare_chunks_per_s": bare_per_s,
        "ratio": chunks_per_s / bare_per_s,
        "embedding_share_of_import": sum(r["embed_in_import_s"] for r in runs) / import_s,
        "first_progress_s": max(r["page"]["first_progress_s"] for r in runs),
        "largest_gap_s": max(r["page"]["largest_gap_s"] for r in runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument(
        "--model",
        action="append",
        dest="models",
        help="embedding model (repeat to compare models in one process; the first is the reference)",
    )
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "import.json")
    args = parser.parse_args()
    models = args.models or [settings.EMBEDDING_MODEL]
    reports = {model: measure(model, args.corpora, args.runs) for model in models}
    for report in reports.values():
        print_report(report)
    if len(models) == 1:
        report = reports[models[0]]
    else:
        reference = reports[models[0]]["import_s"]
        report = {"models": reports, "import_time_vs_first": {m: r["import_s"] / reference for m, r in reports.items()}}
        for model, ratio in report["import_time_vs_first"].items():
            print(f"  {model}: import takes {ratio:.2f}x as long as with {models[0]}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    print(f"Figures written to {args.json}")


def print_report(report: dict[str, Any]) -> None:
    first = report["runs"][0]
    print(
        f"\nImport of the three corpora together ({first['files']} files, {first['notes']} notes, "
        f"{first['chunks_embedded']} chunk texts embedded), {report['meta']['runs']} runs, "
        f"model {report['meta'].get('model', '')}, "
        f"load {report['meta']['loadavg_start'][0]:.2f}"
    )
    print(f"  notes/s            {report['notes_per_s']:8.1f}")
    print(f"  chunks/s (import)  {report['chunks_per_s']:8.1f}")
    print(f"  chunks/s (bare)    {report['bare_chunks_per_s']:8.1f}")
    verdict = "meets" if report["ratio"] >= TARGET_RATIO else "below"
    print(f"  ratio              {report['ratio']:8.2f}   ({verdict} the {TARGET_RATIO} target)")
    print(f"  embedding share    {report['embedding_share_of_import']:8.2f}")
    print(f"  first progress     {report['first_progress_s']:8.2f} s (job page, worst run)")
    print(f"  largest gap        {report['largest_gap_s']:8.2f} s (job page, worst run)")
    for r in report["runs"]:
        page, callback = r["page"], r["callback"]
        print(
            f"  run: import {r['import_s']:.1f}s, bare embed {r['bare_embed_s']:.1f}s; page: first "
            f"{page['first_progress_s']:.2f}s, gap {page['largest_gap_s']:.2f}s, {page['visible_updates']} updates; "
            f"callback: first {callback['first_progress_s']:.2f}s, gap {callback['largest_gap_s']:.2f}s"
        )


if __name__ == "__main__":
    main()
