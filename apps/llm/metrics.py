"""What the gateway counts for /metrics, by slot: calls (by outcome), tokens and cost. The usage rows hold the
same per call; these are the running totals Prometheus reads without a query over the ledger."""

from __future__ import annotations

from decimal import Decimal

from prometheus_client import Counter

MODEL_CALLS = Counter("desirepath_model_calls", "Model calls through the gateway", ["slot", "outcome"])
MODEL_TOKENS = Counter("desirepath_model_tokens", "Tokens sent to and received from models", ["slot", "direction"])
MODEL_COST = Counter("desirepath_model_cost_usd", "What model calls cost, in US dollars (litellm's prices)", ["slot"])


def model_call_count(*, slot: str, outcome: str, tokens_in: int = 0, tokens_out: int = 0, cost_usd: Decimal) -> None:
    MODEL_CALLS.labels(slot, outcome).inc()
    MODEL_TOKENS.labels(slot, "in").inc(tokens_in)
    MODEL_TOKENS.labels(slot, "out").inc(tokens_out)
    MODEL_COST.labels(slot).inc(float(cost_usd))
