"""A deep-research run: judge, sub-questions dispatched one at a time to model-free searchers (meaning, keyword,
and recency for questions about time), stopping after two dispatches in a row find nothing new or when the user
presses Skip; one verification call (the relevance gate over everything found, with a larger budget) filters
what was found."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from django.contrib.auth.models import User

from apps.core.text import RECENCY, terms
from apps.graph.context import graph_context
from apps.llm.embeddings import embed_query
from apps.notes.models import Note
from apps.research.planning import compared, judge, sub_questions
from apps.retrieval.candidates import load_candidates
from apps.retrieval.context import CANDIDATES
from apps.retrieval.gate import GateResult, Rated, gate
from apps.retrieval.search import SearchHit, hybrid_search_vector, validate_query
from apps.vaults.scope import Scope

SEARCHERS = ("meaning", "keyword", "recency")
PER_DISPATCH = 10
EMPTY_DISPATCHES_TO_STOP = 2
BUDGET_TOP = 10  # verification may inject what a flat top 10 would: research is asked for breadth


@dataclass
class Research:
    ran: bool
    reason: str
    sub_questions: list[str] = field(default_factory=list)
    dispatches: int = 0
    hidden: int = 0  # dispatches left out of `sub_questions`: rewordings of the question that found nothing new
    cancelled: bool = False
    found: int = 0
    result: GateResult | None = None


@dataclass(frozen=True)
class Dispatched:
    """What one sub-question's searchers found."""

    meaning: list[SearchHit]
    keyword: list[SearchHit]
    recent: list[SearchHit]

    @property
    def hits(self) -> list[SearchHit]:
        return [*self.meaning, *self.keyword, *self.recent]

    def best_first(self) -> list[int]:
        """The passages as the meaning and keyword searches rank them together: each note's scores summed (each
        search scales its own, its best note scoring most), with the passage of the search that ranked the note
        higher. Meaning alone puts a thing's timeline before the line that says how long it lasted."""
        score: dict[int, float] = {}
        passage: dict[int, tuple[int, int]] = {}
        for hits in (self.keyword, self.meaning):  # on equal ranks the keyword passage, as the fused search keeps
            for rank, hit in enumerate(hits):
                score[hit.note] = score.get(hit.note, 0.0) + hit.score
                if hit.note not in passage or rank < passage[hit.note][0]:
                    passage[hit.note] = (rank, hit.chunk)
        return [passage[note][1] for note in sorted(score, key=lambda note: (-score[note], note))]


def _dispatch(text: str, vector: list[float], scope: Scope) -> Dispatched:
    """Meaning, then keyword; the recency searcher joins when the sub-question is about time."""
    meaning = hybrid_search_vector(text=text, query_vector=vector, scope=scope, k=PER_DISPATCH, use_keyword=False)
    keyword = hybrid_search_vector(text=text, query_vector=None, scope=scope, k=PER_DISPATCH)
    recent = _recency(text, vector, scope) if RECENCY.search(text) else []
    return Dispatched(meaning.hits, keyword.hits, recent)


def _recency(text: str, vector: list[float], scope: Scope) -> list[SearchHit]:
    """The fused search's wider net, newest content first."""
    hits = hybrid_search_vector(text=text, query_vector=vector, scope=scope, k=3 * PER_DISPATCH).hits
    modified = dict(
        scope.filter(Note.objects.filter(pk__in=[h.note for h in hits])).values_list("pk", "content_modified_at")
    )
    oldest = datetime.min.replace(tzinfo=UTC)
    return sorted(hits, key=lambda h: modified.get(h.note) or oldest, reverse=True)[:PER_DISPATCH]


Step = tuple[str, dict[str, Any]]  # what a step did, and its figures, for a progress display
R = TypeVar("R")
OFF = "Deep research is switched off for these vaults."


class Stepped(Generic[R]):
    """Steps to iterate for their progress; once iterated to the end, `result` is what they returned."""

    def __init__(self, steps: Generator[Step, None, R]) -> None:
        self._steps = steps

    def __iter__(self) -> Iterator[Step]:
        self.result: R = yield from self._steps

    def run(self) -> R:
        """To the end, progress dropped."""
        for _ in self:
            pass
        return self.result


def research(**kwargs: Any) -> Research:
    """Judge and dig to the end: see `research_steps`."""
    return Stepped(research_steps(**kwargs)).run()


def context_for(**kwargs: Any) -> tuple[GateResult, Research]:
    """The context for a question to the end: see `context_steps`."""
    return Stepped(context_steps(**kwargs)).run()


def context_steps(
    *,
    user: User,
    question: str,
    scope: Scope,
    threshold: int = 3,
    models: dict[str, str] | None = None,
    deep_research: bool = True,
    cancelled: Callable[[], bool] = lambda: False,
) -> Generator[tuple[str, dict[str, Any]], None, tuple[GateResult, Research]]:
    """The context for a question, as chat and the harness both get it: deep research when allowed and judged
    useful, otherwise (or when skipped) the graph walk and the gate. Yields research progress."""
    models = models or {}
    run = Research(ran=False, reason=OFF)
    if deep_research:
        run = yield from research_steps(
            user=user,
            question=question,
            scope=scope,
            threshold=threshold,
            models=models,
            cancelled=cancelled,
        )
    result = run.result or graph_context(
        user=user, question=question, scope=scope, threshold=threshold, model=models.get("scoring")
    )
    return result, run


def research_steps(
    *,
    user: User,
    question: str,
    scope: Scope,
    threshold: int = 3,
    models: dict[str, str] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    force: bool = False,
) -> Generator[tuple[str, dict[str, Any]], None, Research]:
    """Judge, then dig, yielding progress (judged, planned, dispatch or hidden); `force` skips the judge."""
    text = validate_query(question)
    models = models or {}
    usage: dict[str, Any] = {"user": user, "vault_id": scope.vault_ids[0] if len(scope.vault_ids) == 1 else None}
    verdict = judge(text, model=models.get("scoring"), **usage)
    yield "judged", {"research": verdict.research or force, "reason": verdict.reason}
    if not (verdict.research or force):
        return Research(ran=False, reason=verdict.reason)
    run = Research(ran=True, reason=verdict.reason)
    run.sub_questions = sub_questions(text, model=models.get("reasoning"), **usage)
    yield "planned", {"sub_questions": run.sub_questions}
    vector = embed_query(text)
    pool = list(hybrid_search_vector(text=text, query_vector=vector, scope=scope, k=CANDIDATES).hits)
    seen, empty, shown = {h.chunk for h in pool}, 0, []
    comparison = bool(compared(text))
    found_by: list[list[int]] = []  # in a comparison, each thing's passages, its best first
    for sub in run.sub_questions:
        if cancelled():
            run.cancelled = True
            break
        dispatched = _dispatch(sub, embed_query(sub), scope)  # one embedding for the sub-question's searches
        if comparison:
            found_by.append(dispatched.best_first())
        new = list({h.chunk: h for h in dispatched.hits if h.chunk not in seen}.values())
        seen |= {h.chunk for h in new}
        pool += new
        run.dispatches += 1
        if new or not rewords(sub, text):
            shown.append(sub)
            yield "dispatch", {"sub_question": sub, "new": len(new), "n": len(shown)}
        else:
            run.hidden += 1
            yield "hidden", {"hidden": run.hidden}
        empty = 0 if new else empty + 1
        if empty >= EMPTY_DISPATCHES_TO_STOP:
            break
    # The plan as shown: the steps searched, then those a stop or Skip left unsearched.
    run.sub_questions = shown + run.sub_questions[run.dispatches :]
    run.found = len(pool)
    run.cancelled = run.cancelled or cancelled()  # Skip is honoured with no sub-question to stop too
    if run.cancelled:  # Skip: nothing is verified or injected; the next message is judged afresh
        return run
    candidates = load_candidates(hits=pool, query_vector=vector, scope=scope)
    result = gate(text, candidates, threshold=threshold, model=models.get("scoring"), budget_top=BUDGET_TOP, **usage)
    run.result = each_thing_leads(result, found_by) if comparison else result
    return run


def rewords(sub_question: str, question: str) -> bool:
    """Whether a sub-question says nothing the question does not: its words are some of the question's, in any
    order. Its search is the question's own, so one that found nothing new is no step of the plan."""
    return set(terms(sub_question)) <= set(terms(question))


def each_thing_leads(result: GateResult, found_by: list[list[int]]) -> GateResult:
    """A comparison's answer reads its first passages: the best passage each thing's sub-question found, of those
    the gate passed, goes first, in the order the things were named; the gate still decides what passes."""
    passed = {r.candidate.chunk: r for r in result.survivors}
    leads: dict[int, Rated] = {}
    for chunks in found_by:
        best = next((c for c in chunks if c in passed and c not in leads), None)
        if best is not None:
            leads[best] = passed[best]
    survivors = [*leads.values(), *(r for r in result.survivors if r.candidate.chunk not in leads)]
    kept = {id(r) for r in survivors}
    return replace(result, survivors=survivors, rated=survivors + [r for r in result.rated if id(r) not in kept])
