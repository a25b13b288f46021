"""Fit the model-free relevance scorer on the LoCoMo dev split (and nothing else): `manage.py evaluate calibrate`.

For every question with evidence, the gate's own candidates (hybrid top 30) and features are collected; an
L2-regularised logistic regression (Newton's method, C = 1) predicts "this candidate carries an evidence turn".
The printed weights are what `apps/retrieval/gate.py` uses; the leave-one-conversation-out figures show what
the cut for score 3 costs and saves within the budget, on conversations the fit did not see, and how the survivors'
MRR moves with how much of the search's rank their order keeps (`RANK_IN_ORDER` in the gate). With `graph`, the
candidates are those `full` sees (search, then the walk's facts) and the features add the graph's
(`apps/graph/relevance.py` uses those weights).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from apps.evaluation import corpus, locomo
from apps.evaluation.runner import Tick, eval_user
from apps.graph.context import walked_candidates
from apps.graph.relevance import graph_matrix
from apps.llm.embeddings import embed_query
from apps.llm.gateway import tokens_of
from apps.retrieval.candidates import load_candidates
from apps.retrieval.context import CANDIDATES
from apps.retrieval.gate import BUDGET_TOP, CUTS
from apps.retrieval.relevance import FEATURES, feature_matrix
from apps.retrieval.search import hybrid_search_vector
from apps.vaults.scope import scope_for


@dataclass
class Question:
    conversation: str
    features: np.ndarray
    labels: np.ndarray  # 1 where the candidate carries an evidence turn
    tokens: np.ndarray
    evidence: set[str]
    turns: list[tuple[str, ...]]


def collect(data: Path, tick: Tick | None = None, graph: bool = False) -> list[Question]:
    user = eval_user()
    out: list[Question] = []
    try:
        for conv in locomo.load(data):
            vault = corpus.ingest_conversation(user, conv, "turns")
            for q in conv.questions:
                if q.category == 5 or not q.evidence:
                    continue
                vector, scope = embed_query(q.text), scope_for(user, [vault.vault.pk])
                if graph:
                    cands = walked_candidates(text=q.text, vector=vector, scope=scope)[1]
                    cands = [c for c in cands if c.chunk in vault.items]  # summaries are no turns
                else:
                    hits = hybrid_search_vector(text=q.text, query_vector=vector, scope=scope, k=CANDIDATES)
                    cands = load_candidates(hits=hits.hits, query_vector=vector, scope=scope)
                turns = [vault.items[c.chunk].turns for c in cands]
                evidence = set(q.evidence)
                out.append(
                    Question(
                        conversation=conv.sample_id,
                        features=graph_matrix(q.text, cands, scope)[0] if graph else feature_matrix(q.text, cands),
                        labels=np.array([float(bool(set(t) & evidence)) for t in turns]),
                        tokens=np.array([tokens_of(c.text) for c in cands]),
                        evidence=evidence,
                        turns=turns,
                    )
                )
                if tick:
                    tick(1)
    finally:
        corpus.teardown(user)
    return out


def fit(questions: list[Question], c: float = 1.0, steps: int = 50) -> tuple[np.ndarray, float]:
    x = np.vstack([q.features for q in questions if len(q.features)])
    y = np.concatenate([q.labels for q in questions if len(q.features)])
    return fit_logistic(x, y, c=c, steps=steps)


def fit_logistic(x: np.ndarray, y: np.ndarray, *, c: float = 1.0, steps: int = 50) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by Newton's method: weights and bias."""
    x1 = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(x1.shape[1])
    penalty = np.eye(x1.shape[1]) / c
    penalty[-1, -1] = 0.0  # the bias is not regularised
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x1 @ w)))
        gradient = x1.T @ (p - y) + penalty @ w
        hessian = (x1 * (p * (1 - p))[:, None]).T @ x1 + penalty
        w -= np.linalg.solve(hessian, gradient)
    return w[:-1], float(w[-1])


def _kept(q: Question, p: np.ndarray, cut: float) -> tuple[list[int], int]:
    """The candidates the gate lets through at this cut (its rule: best first, within the budget), and their tokens."""
    budget, used = q.tokens[:BUDGET_TOP].sum(), 0
    kept: list[int] = []
    for i in np.argsort(-p, kind="stable"):
        if p[i] < cut or (kept and used + q.tokens[i] > budget):
            break
        kept.append(i)
        used += q.tokens[i]
    return kept, int(used)


def within_budget(questions: list[Question], probs: list[np.ndarray], cut: float) -> dict[str, float]:
    """What the gate would inject at this cut: recall, noise turns and tokens per question (the gate's rule)."""
    recall, noise, tokens = [], [], []
    for q, p in zip(questions, probs, strict=True):
        kept, used = _kept(q, p, cut)
        turns = [t for i in kept for t in q.turns[i]]
        recall.append(len(set(turns) & q.evidence) / len(q.evidence))
        noise.append(sum(t not in q.evidence for t in turns))
        tokens.append(used)
    return {"recall": float(np.mean(recall)), "noise": float(np.mean(noise)), "tokens": float(np.mean(tokens))}


def survivors_mrr(questions: list[Question], probs: list[np.ndarray], rank_weights: list[float], keep: float) -> float:
    """MRR of what passes the cut for score 3 when it is put in order with `keep` of the search's rank (the rank
    feature's share of each question's logit; `rank_weights` are the fitted rank weights, per question)."""
    rank = FEATURES.index("rank")
    ranks = []
    for q, p, w in zip(questions, probs, rank_weights, strict=True):
        kept, _ = _kept(q, p, CUTS[1])
        logit = np.log(np.clip(p, 1e-12, 1 - 1e-12) / np.clip(1 - p, 1e-12, 1))
        order = sorted(kept, key=lambda i: -(logit[i] - (1 - keep) * w * q.features[i, rank]))
        first = next((n for n, i in enumerate(order, start=1) if q.labels[i]), None)
        ranks.append(1.0 / first if first else 0.0)
    return float(np.mean(ranks)) if ranks else 0.0


def calibrate(questions: list[Question], names: tuple[str, ...] = FEATURES) -> dict[str, Any]:
    weights, bias = fit(questions)
    held_out: list[np.ndarray] = []
    rank_weights: list[float] = []
    ordered: list[Question] = []
    conversations = sorted({q.conversation for q in questions})
    for name in conversations if len(conversations) > 1 else []:
        w, b = fit([q for q in questions if q.conversation != name])
        for q in (q for q in questions if q.conversation == name):
            held_out.append(1.0 / (1.0 + np.exp(-(q.features @ w + b))) if len(q.features) else np.zeros(0))
            rank_weights.append(float(w[FEATURES.index("rank")]))
            ordered.append(q)
    return {
        "questions": len(questions),
        "weights": dict(zip(names, np.round(weights, 4).tolist(), strict=True)),
        "bias": round(bias, 4),
        "held_out": {f"p>={cut}": within_budget(ordered, held_out, cut) for cut in (0.0, *CUTS[:2])} if ordered else {},
        "survivors_mrr_by_rank_kept": {
            str(keep): round(survivors_mrr(ordered, held_out, rank_weights, keep), 4) for keep in (1.0, 0.5, 0.25, 0.0)
        }
        if ordered
        else {},
    }
