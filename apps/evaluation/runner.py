"""Run pipelines over ingested data and collect every figure the harness reports."""

from __future__ import annotations

import json
import secrets
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User

from apps.accounts.services import user_create
from apps.chat.services.answering import Source
from apps.evaluation import corpus, locomo
from apps.evaluation.answer_scores import AnswerTally, VaultAnswerTally
from apps.evaluation.answerer import Answerer
from apps.evaluation.metrics import (
    Item,
    hit_at,
    injected_figures,
    mean_of,
    percentiles,
    question_scores,
    recall_at,
    reciprocal_rank,
)
from apps.evaluation.pipelines import FLAT_INJECT, PIPELINES, Retrieved
from apps.evaluation.reference import REFERENCES, FlatReference
from apps.graph.conversation import speakers_in
from apps.graph.models import Extraction
from apps.llm.embeddings import embed_query
from apps.llm.models import ModelUsage
from apps.vaults.scope import Scope, scope_for

Tick = Callable[[int], None]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def eval_user() -> User:
    return user_create(actor=None, username=f"evaluator-{secrets.token_hex(4)}", password=secrets.token_urlsafe(24))


def _timed(pipeline: str, user: User, vault_id: int, query: str) -> tuple[Retrieved, float]:
    started = time.perf_counter()
    result = PIPELINES[pipeline](user, vault_id, query)
    return result, (time.perf_counter() - started) * 1000


def _references(reference: FlatReference, query: str) -> tuple[dict[str, Retrieved], float]:
    """The flat reference's three rankings for one question, and the time all three took."""
    started = time.perf_counter()
    rankings = reference.rankings(query)
    ms = (time.perf_counter() - started) * 1000
    return {name: Retrieved(ranking=r, injected=r[:FLAT_INJECT]) for name, r in rankings.items()}, ms


def _warm(queries: list[str]) -> None:
    """Embed every question before timing: otherwise the first pipeline that embeds pays for all the others."""
    for query in queries:
        embed_query(query)


def _calls(user: User) -> int:
    return ModelUsage.objects.filter(user=user).count()


def _items(ids: list[int], items: dict[int, Item]) -> list[Item]:
    return [items[i] for i in ids if i in items]


def recorded_sources(row: dict[str, Any]) -> list[Source]:
    """The sources an answer row of `--answers` records, as chat's answerer is given them (the benchmarks'
    replays)."""
    return [
        Source(
            number=s["n"],
            path=s["path"],
            text=s["text"],
            provenance="authored",
            heading=s.get("heading", ""),
            title=s.get("title", ""),
            byline=s.get("byline", ""),
            decision=s.get("decision", ""),
            properties=s.get("properties", ""),
        )
        for s in row["sources"]
    ]


def recording(sources: Sequence[Source]) -> list[dict[str, Any]]:
    """The sources an answer was given, as an answer row records them (read back by `recorded_sources`)."""
    return [
        {"n": s.number, "path": s.path, "text": s.text, "heading": s.heading, "title": s.title}
        | ({"byline": s.byline} if s.byline else {})
        | ({"decision": s.decision} if s.decision else {})
        | ({"properties": s.properties} if s.properties else {})
        for s in sources
    ]


class _Tally:
    """Per-pipeline accumulation of question scores, injected context, silence and latency."""

    def __init__(self, answerer: Answerer | None = None) -> None:
        self.answerer = answerer
        self.scores: dict[str, list[dict[str, float]]] = defaultdict(list)  # category → rows
        self.injected: list[dict[str, float]] = []
        self.injected_cat5: list[dict[str, float]] = []
        self.silent = {"chatter": [], "category5": [], "real": []}  # type: dict[str, list[float]]
        self.latency: list[float] = []
        self.calls: list[int] = []  # model calls (usage rows, local ones included) per question
        self.answers = AnswerTally()
        self.answering = False

    def answer(
        self, question: locomo.Question, result: Retrieved, speakers: list[str], scope: Scope
    ) -> dict[str, Any] | None:
        """Chat's offline answer from what the pipeline injected (no context is an abstention: the fallback), and
        the row that shows it beside the gold answer; None when the pipeline does not answer."""
        if result.sources is None or self.answerer is None:
            return None
        self.answering = True
        answered = self.answerer.answer(question.text, result.sources, speakers, scope)
        answer = answered.text
        self.answers.answered_by = self.answerer.name
        self.answers.model_failures += int(answered.failed)
        f1 = self.answers.add(category=question.category, gold=question.answer, answer=answer)
        verdict = None
        if self.answerer.judging and question.category != 5:
            verdict = False if answer is None else self.answerer.judge(question.text, question.answer, answer)
            self.answers.add_verdict(category=question.category, correct=verdict)
        return {
            "question": question.text,
            "category": question.category,
            "gold": question.answer,
            "answer": answer,
            "f1": f1,
            "judged_correct": verdict,
            "sources": recording(result.sources),
            "found": [{"path": w.path, "text": w.text} for w in answered.found],
        }

    def report(self) -> dict[str, Any]:
        real = [row for cat in ("1", "2", "3", "4") for row in self.scores.get(cat, [])]
        injected = mean_of(self.injected)
        return {
            "overall": mean_of(real),
            "by_category": {cat: mean_of(rows) for cat, rows in sorted(self.scores.items())}
            | {"5": {"injected": _injected_keys(mean_of(self.injected_cat5))}},
            "latency_ms": percentiles(self.latency),
            "injected": _injected_keys(injected),
            "silence": {k: round(sum(v) / len(v), 4) if v else None for k, v in self.silent.items()},
            "questions_scored": len(real),
            "model_calls_per_question": {
                "mean": round(sum(self.calls) / len(self.calls), 2) if self.calls else 0.0,
                "max": max(self.calls, default=0),
            },
        } | ({"answers": self.answers.report()} if self.answering else {})


def graph_figures(extractions: list[tuple[str, int]]) -> dict[str, Any]:
    """Entities per extracted note (chatter skipped) and how often each escalation level was needed."""
    counts = [n for level, n in extractions if level != "skipped"]
    levels: dict[str, int] = defaultdict(int)
    for level, _ in extractions:
        levels[level] += 1
    mean = round(sum(counts) / len(counts), 2) if counts else 0.0
    return {"entities_per_note": {"mean": mean, "max": max(counts, default=0)}, "levels": dict(levels)}


def _injected_keys(means: dict[str, float]) -> dict[str, float]:
    return {
        "items_per_question": means.get("items", 0.0),
        "source_turns_per_question": means.get("source_turns", 0.0),
        "tokens_per_question": means.get("tokens", 0.0),
        "noise_items_per_question": means.get("noise", 0.0),
    }


def run_locomo(
    *,
    data: Path,
    unit: str,
    pipelines: list[str],
    chatter: Path | None,
    tick: Tick | None = None,
    answers_out: Path | None = None,
    judge: bool = False,
) -> dict[str, Any]:
    """Every pipeline's figures on a LoCoMo split; with `answers_out`, each answer beside its gold one as JSONL. The
    chat slot's model answers when one is configured, else the offline answerer; `judge` grades the answers."""
    conversations = locomo.load(data)
    answer_rows: list[dict[str, Any]] = []
    chatter_queries = [row["q"] for row in read_jsonl(chatter)] if chatter else []
    user = eval_user()
    try:
        answerer = Answerer(user, judge=judge)
    except BaseException:
        corpus.teardown(user)
        raise
    tallies = {name: _Tally(answerer if name in pipelines else None) for name in [*pipelines, *REFERENCES]}
    ingested_notes = ingested_chunks = 0
    extractions: list[tuple[str, int]] = []
    try:
        for conv in conversations:
            vault = corpus.ingest_conversation(user, conv, unit)
            ingested_notes, ingested_chunks = ingested_notes + vault.notes, ingested_chunks + vault.chunks
            extractions += list(Extraction.objects.filter(vault=vault.vault).values_list("level", "entities"))
            reference = FlatReference.of(vault.vault)
            speakers = speakers_in([vault.vault.pk])  # who speaks in the conversation, as chat reads it
            scope = scope_for(user, [vault.vault.pk])
            _warm([question.text for question in conv.questions])
            for question in conv.questions:
                evidence = set(question.evidence)
                runs: dict[str, tuple[Retrieved, float, int]] = {}
                for name in pipelines:
                    before = _calls(user)
                    result, ms = _timed(name, user, vault.vault.pk, question.text)
                    runs[name] = (result, ms, _calls(user) - before)
                references, ms = _references(reference, question.text)
                runs |= {name: (result, ms / len(references), 0) for name, result in references.items()}
                for name, (result, ms, calls) in runs.items():
                    tally = tallies[name]
                    tally.latency.append(ms)
                    tally.calls.append(calls)
                    injected = _items(result.injected, vault.items)
                    row = tally.answer(question, result, speakers, scope)
                    if row is not None and answers_out:
                        answer_rows.append({"conversation": conv.sample_id, "pipeline": name, **row})
                    if question.category == 5:
                        tally.silent["category5"].append(float(not injected))
                        tally.injected_cat5.append(injected_figures(injected, evidence))
                        continue
                    tally.silent["real"].append(float(not injected))
                    if evidence:  # category-3 questions without evidence are left out of recall figures
                        ranking = _items(result.ranking, vault.items)
                        tally.scores[str(question.category)].append(question_scores(ranking, evidence))
                        tally.injected.append(injected_figures(injected, evidence))
                if tick:
                    tick(1)
            for query in chatter_queries if conv is conversations[0] else []:
                for name in pipelines:
                    result, _ = _timed(name, user, vault.vault.pk, query)
                    tallies[name].silent["chatter"].append(float(not result.injected))
                for name, result in _references(reference, query)[0].items():
                    tallies[name].silent["chatter"].append(float(not result.injected))
    finally:
        corpus.teardown(user)
    if answers_out:
        answers_out.parent.mkdir(parents=True, exist_ok=True)
        answers_out.write_text("".join(json.dumps(row) + "\n" for row in answer_rows), encoding="utf-8")
    return {
        "dataset": f"locomo:{Path(data).name}",
        "unit": unit,
        "conversations": len(conversations),
        "questions": sum(len(c.questions) for c in conversations),
        "ingested": {"notes": ingested_notes, "chunks": ingested_chunks},
        "graph": graph_figures(extractions),
        "pipelines": {name: tally.report() for name, tally in tallies.items()},
    }


def run_vault(
    *,
    notes: Path,
    queries: Path,
    pipelines: list[str],
    chatter: Path | None,
    tick: Tick | None = None,
    answers_out: Path | None = None,
) -> dict[str, Any]:
    """Unanswerable questions (no relevant note) have no ranking to score: they count by staying silent. The
    pipelines that answer are measured on their answers too (`VaultAnswerTally`); with `answers_out`, each answer is
    written beside the notes that answer its question, as JSONL."""
    rows = read_jsonl(queries)
    chatter_queries = [row["q"] for row in read_jsonl(chatter)] if chatter else []
    user = eval_user()
    answer_rows: list[dict[str, Any]] = []
    answerable = sum(1 for row in rows if row["relevant"])
    report: dict[str, Any] = {
        "dataset": f"vault:{Path(notes).name}",
        "questions": answerable,
        "unanswerable": len(rows) - answerable,
        "pipelines": {},
    }
    try:
        answerer = Answerer(user)
        vault = corpus.ingest_folder(user, f"eval {Path(notes).name}", Path(notes))
        speakers, scope = speakers_in([vault.vault.pk]), scope_for(user, [vault.vault.pk])
        _warm([row["q"] for row in rows])
        reference = FlatReference.of(vault.vault)
        runs: dict[str, list[tuple[Retrieved, float]]] = defaultdict(list)
        silent: dict[str, list[float]] = defaultdict(list)
        for name in pipelines:
            for row in rows:
                runs[name].append(_timed(name, user, vault.vault.pk, row["q"]))
                if tick:
                    tick(1)
            silent[name] = [float(not _timed(name, user, vault.vault.pk, q)[0].injected) for q in chatter_queries]
        for row in rows:
            references, ms = _references(reference, row["q"])
            for name, result in references.items():
                runs[name].append((result, ms / len(references)))
        for query in chatter_queries:
            for name, result in _references(reference, query)[0].items():
                silent[name].append(float(not result.injected))
        for name, results in runs.items():
            by_kind: dict[str, list[dict[str, float]]] = defaultdict(list)
            unanswerable_silent: list[float] = []
            # the first relevant note's rank per answerable question (0: not within 50), to see which questions moved
            first_ranks: list[int] = []
            injected: list[dict[str, float]] = []
            for row, (result, _) in zip(rows, results, strict=True):
                ranking = _items(result.ranking, vault.items)
                relevant = set(row["relevant"])
                if not relevant:  # nothing to recall: an unanswerable question scores by staying silent
                    unanswerable_silent.append(float(not result.injected))
                    continue
                injected.append(injected_figures(_items(result.injected, vault.items), relevant))
                scores = {
                    "recall@5": recall_at(ranking, relevant, 5),
                    "hit@5": hit_at(ranking, relevant, 5),
                    "mrr": reciprocal_rank(ranking, relevant),
                }
                by_kind[str(row.get("kind", "all"))].append(scores)
                first_ranks.append(round(1 / scores["mrr"]) if scores["mrr"] else 0)
            answers = VaultAnswerTally()
            for row, (result, _) in zip(rows, results, strict=True):
                if result.sources is None:
                    continue  # a flat ranking is never handed to the answerer
                answered = answerer.answer(row["q"], result.sources, speakers, scope)
                cited = next((s.path for s in result.sources if s.number == answered.first_cited), None)
                answers.answered_by = answerer.name
                answers.model_failures += int(answered.failed)
                answers.add(relevant=set(row["relevant"]), answer=answered.text, led=answered.led, cited=cited)
                answer_rows.append(
                    {"pipeline": name, "question": row["q"], "kind": row.get("kind"), "relevant": row["relevant"]}
                    | {"answer": answered.text, "led": answered.led, "cited": cited}
                    | {"sources": recording(result.sources)}
                )
            report["pipelines"][name] = {
                "overall": mean_of(r for rs in by_kind.values() for r in rs),
                "by_kind": {kind: mean_of(rs) for kind, rs in sorted(by_kind.items())},
                "latency_ms": percentiles([ms for _, ms in results]),
                "first_relevant_rank": first_ranks,
                "injected": _injected_keys(mean_of(injected)),
                "silence": {
                    "chatter": round(sum(silent[name]) / len(silent[name]), 4) if silent[name] else None,
                    "unanswerable": (
                        round(sum(unanswerable_silent) / len(unanswerable_silent), 4) if unanswerable_silent else None
                    ),
                },
            } | ({"answers": answers.report()} if answers.counted else {})
    finally:
        corpus.teardown(user)
    if answers_out:
        answers_out.parent.mkdir(parents=True, exist_ok=True)
        answers_out.write_text("".join(json.dumps(row) + "\n" for row in answer_rows), encoding="utf-8")
    return report
