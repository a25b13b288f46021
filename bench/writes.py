"""Benchmark: how long a note write takes in a vault that also holds one note with 20,000 wikilinks, against the
same writes in an empty vault, through the real service (`note_update`, in its own transaction as the API runs it).

Two writes are timed on a small note of each vault: an edit of its body (its names unchanged) and a rename (its
path and title change, so links naming it move). The large note's links name 20,000 different notes, none of which
exists. Works in the throwaway database `desirepath_bench` (dropped before and after).
Usage: .venv/bin/python bench/writes.py [--links 20000] [--writes 20]
"""

# isort: skip_file
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.search import drop_database, fresh_database  # sets Django up

from apps.notes.models import Note
from apps.notes.services.notes import note_create, note_update
from tests.factories import make_user, make_vault


def timed_writes(note: Note, writes: int, *, rename: bool) -> list[float]:
    owner = note.vault.owner
    times = []
    for i in range(writes):
        body = f"# Work {i if rename else 0}\nedit {i}: see [[Work]] and [[Elsewhere]].\n"
        path = f"Work {i}.md" if rename else None
        started = time.perf_counter()
        note = note_update(actor=owner, note=note, body=body, path=path)
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--links", type=int, default=20_000)
    parser.add_argument("--writes", type=int, default=20)
    args = parser.parse_args()
    fresh_database()
    try:
        owner = make_user()
        rows = []
        for label, links in (("empty vault", 0), (f"vault with a {args.links}-link note", args.links)):
            vault = make_vault(owner, label)
            if links:
                hub = " ".join(f"[[Topic {i}]]" for i in range(links))
                note_create(actor=owner, vault=vault, path="Hub.md", body=f"# Hub\n{hub}\n")
            work = note_create(actor=owner, vault=vault, path="Work.md", body="# Work\nfirst\n")
            for kind, rename in (("body edit", False), ("rename", True)):
                times = timed_writes(work, args.writes, rename=rename)
                work = Note.objects.get(pk=work.pk)
                rows.append((label, kind, statistics.median(times), max(times)))
        print(f"{'vault':<32} {'write':<10} {'median ms':>10} {'max ms':>8}")
        for label, kind, median, worst in rows:
            print(f"{label:<32} {kind:<10} {median:>10.1f} {worst:>8.1f}")
    finally:
        drop_database()


if __name__ == "__main__":
    main()
