"""Benchmark: the full context path (search, walk, gate, and everything learning reads: desire paths from the
question's doors, past rated questions near it and its twins, the facts that helped them as candidates) with a
vault's learned state against the same path on the same vault before anything was learned, in one process.

Per LoCoMo conversation (the dev split, one note per turn) in a throwaway database (`desirepath_bench`, dropped at
the end): every question is timed through `context_for` with nothing learned; then, inside a transaction, the
questions at even positions are asked and rated as the learning replay rates them (`apps.evaluation.learning`,
with the asker pointing to the answer), `--rated` more past questions are stored as rated (every dev question's
text, numbered, embedded: the scan over a busy vault's rated questions), and every question is timed again; the
transaction is rolled back and the unlearned run is timed once more, so drift on a shared machine falls on both
sides. Each question is embedded before it is timed (neither path pays for embedding).
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
from apps.graph.models import RatedQuestion
from apps.graph.questions import question_stems_record
from apps.llm.embeddings import current_model, embed_texts
from apps.retrieval.context import asked
from apps.vaults.scope import Scope

DEV = ROOT.parent / "shared" / "eval" / "locomo" / "dev.json"
WARMUP = 10

Asked = tuple[str, Scope, list[float]]


def timed_pass(user: User, questions: list[Asked]) -> list[float]:
    """Milliseconds `context_for` takes for each question."""
    times = []
    for text, scope, vector in questions:
        started = time.perf_counter()
        context_for(text=text, vector=vector, scope=scope, user=user)
        times.append((time.perf_counter() - started) * 1000)
    return times


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
) -> tuple[dict[str, Any], list[float], list[float]]:
    """The conversation's figures, and every timing unlearned and learned."""
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
            without = timed_pass(user, questions)
            with transaction.atomic():
                votes = replay_rated(user, vault_id, conv.questions[0::2], vault.items, pick=True)
                store_rated(vault_id, every_question, rated)
                timed_pass(user, questions[:WARMUP])
                learned = timed_pass(user, questions)
                transaction.set_rollback(True)
            without += timed_pass(user, questions)
    finally:
        corpus.teardown(user)
    row = {
        "conversation": conv.sample_id,
        "questions": len(questions),
        "votes": dict(votes),
        "rated_questions": rated + len(conv.questions[0::2]),
        "without_ms": summary(without),
        "learned_ms": summary(learned),
    }
    return row, without, learned


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
    runs, without, learned = [], [], []
    try:
        for conv in conversations:
            row, unlearned_ms, learned_ms = bench_conversation(conv, every_question, args.rated)
            runs.append(row)
            without += unlearned_ms
            learned += learned_ms
    finally:
        drop_database()
    pooled = {"without_ms": summary(without), "learned_ms": summary(learned)}
    pooled["ratio_p95"] = pooled["learned_ms"]["p95"] / pooled["without_ms"]["p95"]
    report = {
        "meta": {"cpus": os.cpu_count(), "loadavg_start": load, "total_s": time.perf_counter() - started},
        "runs": runs,
        "pooled": pooled,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    print("| conversation | questions | rated questions | unlearned p50 / p95 ms | learned p50 / p95 ms | p95 ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in runs:
        w, lw = r["without_ms"], r["learned_ms"]
        print(
            f"| {r['conversation']} | {r['questions']} | {r['rated_questions']:,} | {w['p50']:.1f} / {w['p95']:.1f} | "
            f"{lw['p50']:.1f} / {lw['p95']:.1f} | {lw['p95'] / w['p95']:.2f} |"
        )
    w, lw = pooled["without_ms"], pooled["learned_ms"]
    print(
        f"| all | {len(learned)} | | {w['p50']:.1f} / {w['p95']:.1f} | {lw['p50']:.1f} / {lw['p95']:.1f} | "
        f"{pooled['ratio_p95']:.2f} |"
    )
    print(f"Figures written to {args.json}")


if __name__ == "__main__":
    main()
