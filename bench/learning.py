"""Benchmark: the full context path (search, walk, gate) with the learned priors read (the desire paths from the
question's doors joining the gate's estimate and bringing candidates, past rated questions near it and its twins
passing on what they taught) against the same path with those reads off, on the same learned vault, in one process;
and the same path on the vault before anything was learned.

Per LoCoMo conversation (the dev split, one note per turn) in a throwaway database (`desirepath_bench`, dropped at
the end): every question is timed through `context_for` with nothing learned; then, inside a transaction rolled
back afterwards, the questions at even positions are asked and rated as the learning replay rates them
(`apps.evaluation.learning`, with the asker pointing to the answer), `--rated` more past questions are stored as
rated (every dev question's text, numbered, embedded: the scan over a busy vault's rated questions), and every
question is timed twice, with the priors read and without, the order alternating from question to question so that
drift on a shared machine falls on both. Each question is embedded before it is timed (no path pays for
embedding).
Usage: .venv/bin/python bench/learning.py [--conversations 4] [--rated 2000]
"""

# isort: skip_file
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.search import ROOT, drop_database, fresh_database, summary  # sets Django up

from django.contrib.auth.models import User
from django.db import transaction

from apps.evaluation import corpus, locomo
from apps.evaluation.learning import replay_moment, replay_rated
from apps.evaluation.runner import eval_user
from apps.graph.context import context_for
from apps.graph.learning import Rates, rates_applied
from apps.graph.models import RatedQuestion
from apps.graph.questions import question_stems_record
from apps.llm.embeddings import current_model, embed_texts
from apps.retrieval.context import asked
from apps.vaults.scope import Scope

DEV = ROOT.parent / "shared" / "eval" / "locomo" / "dev.json"
WARMUP = 10
# The learned reads the priors make: off, the learned vault is read as the product read it before them.
PRIORS_OFF = Rates(question_prior=0.0, question_twin_doors=0, door_prior=0.0, door_candidates=0)

Asked = tuple[str, Scope, list[float]]


def timed_pass(user: User, questions: list[Asked]) -> list[float]:
    """Milliseconds `context_for` takes for each question."""
    times = []
    for text, scope, vector in questions:
        started = time.perf_counter()
        context_for(text=text, vector=vector, scope=scope, user=user)
        times.append((time.perf_counter() - started) * 1000)
    return times


def paired_pass(user: User, questions: list[Asked]) -> tuple[list[float], list[float]]:
    """Each question timed with the priors read and without, which first alternating."""
    read: list[float] = []
    off: list[float] = []
    for i, question in enumerate(questions):
        for priors in (True, False) if i % 2 == 0 else (False, True):
            if priors:
                read += timed_pass(user, [question])
            else:
                with rates_applied(PRIORS_OFF):
                    off += timed_pass(user, [question])
    return read, off


def store_rated(vault_id: int, texts: list[str], count: int) -> None:
    """`count` more rated questions in the vault, as a vault asked for months would hold."""
    model = current_model()
    chosen = [f"{texts[i % len(texts)]} ({i})" for i in range(count)]
    vectors = embed_texts(chosen)
    stored = RatedQuestion.objects.bulk_create(
        RatedQuestion(
            vault_id=vault_id,
            model=model,
            text=text,
            text_hash=hashlib.sha256(text.encode()).hexdigest(),
            embedding=vector,
        )
        for text, vector in zip(chosen, vectors, strict=True)
    )
    question_stems_record(question_ids=[q.pk for q in stored])


def bench_conversation(
    conv: locomo.Conversation, every_question: list[str], rated: int
) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """The conversation's figures, and every timing by how it was read."""
    user = eval_user()
    try:
        vault = corpus.ingest_conversation(user, conv, "turns")
        vault_id = vault.vault.pk
        questions: list[Asked] = []
        for q in conv.questions:
            clean, scope, vector = asked(user=user, question=q.text, vault_ids=[vault_id])
            questions.append((clean, scope, list(vector)))
        with replay_moment():
            timed_pass(user, questions[:WARMUP])
            unlearned = timed_pass(user, questions)
            with transaction.atomic():
                votes = replay_rated(user, vault_id, conv.questions[0::2], vault.items, pick=True)
                store_rated(vault_id, every_question, rated)
                paired_pass(user, questions[:WARMUP])
                read, off = paired_pass(user, questions)
                transaction.set_rollback(True)
    finally:
        corpus.teardown(user)
    times = {"unlearned_ms": unlearned, "priors_ms": read, "priors_off_ms": off}
    row: dict[str, Any] = {
        "conversation": conv.sample_id,
        "questions": len(questions),
        "votes": dict(votes),
        "rated_questions": rated + len(conv.questions[0::2]),
        **{name: summary(values) for name, values in times.items()},
        "ratio_p95": summary(read)["p95"] / summary(off)["p95"],
    }
    return row, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEV)
    parser.add_argument("--conversations", type=int, default=4, help="the first N conversations of the split")
    parser.add_argument("--rated", type=int, default=2000, help="more rated questions stored beside the replay's")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "learning-latency.json")
    args = parser.parse_args()
    conversations = locomo.load(args.data)[: args.conversations]
    every_question = [q.text for c in locomo.load(args.data) for q in c.questions]
    started, load = time.perf_counter(), os.getloadavg()
    fresh_database()
    runs: list[dict[str, Any]] = []
    pooled_times: dict[str, list[float]] = {"unlearned_ms": [], "priors_ms": [], "priors_off_ms": []}
    try:
        for conv in conversations:
            row, times = bench_conversation(conv, every_question, args.rated)
            runs.append(row)
            for name, values in times.items():
                pooled_times[name] += values
    finally:
        drop_database()
    pooled: dict[str, Any] = {
        "conversation": "all",
        "questions": len(pooled_times["priors_ms"]),
        "rated_questions": sum(r["rated_questions"] for r in runs),
    }
    pooled |= {name: summary(values) for name, values in pooled_times.items()}
    pooled["ratio_p95"] = pooled["priors_ms"]["p95"] / pooled["priors_off_ms"]["p95"]
    report = {
        "meta": {"cpus": os.cpu_count(), "loadavg_start": load, "total_s": time.perf_counter() - started},
        "runs": runs,
        "pooled": pooled,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    print(
        "| conversation | questions | rated questions | unlearned p50 / p95 ms | priors off p50 / p95 ms "
        "| priors read p50 / p95 ms | p95 ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in [*runs, pooled]:
        u, o, p = r["unlearned_ms"], r["priors_off_ms"], r["priors_ms"]
        print(
            f"| {r['conversation']} | {r['questions']} | {r['rated_questions']:,} | {u['p50']:.1f} / {u['p95']:.1f} "
            f"| {o['p50']:.1f} / {o['p95']:.1f} | {p['p50']:.1f} / {p['p95']:.1f} | {r['ratio_p95']:.2f} |"
        )
    print(f"Figures written to {args.json}")


if __name__ == "__main__":
    main()
