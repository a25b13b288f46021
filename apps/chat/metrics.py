"""What answering counts for /metrics: how long a question waited for its finished answer, and what the relevance
gate let through, per candidate and per question."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

ANSWER_LATENCY = Histogram(
    "desirepath_answer_latency_seconds",
    "From the question stored to its answer finished (outcome: complete or failed)",
    ["outcome"],
    buckets=(0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200),
)
GATE_CANDIDATES = Counter(
    "desirepath_gate_candidates", "Candidates the relevance gate weighed for a chat answer", ["outcome"]
)
GATE_QUESTIONS = Counter(
    "desirepath_gate_questions", "Chat questions by whether anything passed the relevance gate", ["outcome"]
)


def answer_latency_observe(*, seconds: float, outcome: str) -> None:
    ANSWER_LATENCY.labels(outcome).observe(max(0.0, seconds))


def gate_count(*, weighed: int, passed: int) -> None:
    """One question's gate: `passed` of `weighed` candidates went on to the answer."""
    GATE_CANDIDATES.labels("passed").inc(passed)
    GATE_CANDIDATES.labels("cut").inc(weighed - passed)
    GATE_QUESTIONS.labels("passed" if passed else "nothing_passed").inc()
