"""The one gateway to language models: slot → model from settings, timeouts, retries with backoff, a usage row for
every call (local defaults too), and a clear error when a provider stays down so callers can degrade.

A slot whose model starts with `local/` runs the caller's model-free implementation instead of a provider.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings

from apps.llm.models import ModelUsage, Outcome, Slot

LOCAL_PREFIX = "local/"
Message = dict[str, str]


class ModelUnavailable(RuntimeError):
    """The provider failed after retries; the caller keeps the user's input and says so (degraded mode)."""


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    tokens_in: int
    tokens_out: int
    cost_usd: Decimal
    local: bool


def tokens_of(text: str) -> int:
    """~4 characters a token for English prose (no tokenizer download needed offline)."""
    return max(1, round(len(text) / 4))


def slot_model(slot: str) -> str:
    if slot not in Slot.values:
        raise ValueError(f"unknown model slot {slot!r}")
    return str(settings.LLM_SLOTS[slot])


def _retryable() -> tuple[type[BaseException], ...]:
    import litellm

    return (
        litellm.Timeout,
        litellm.APIConnectionError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
        litellm.RateLimitError,
        litellm.BadGatewayError,
    )


def complete(
    *,
    slot: str,
    purpose: str,
    messages: Sequence[Message],
    local: Callable[[Sequence[Message]], str] | None = None,
    user: Any = None,
    vault_id: int | None = None,
    max_tokens: int | None = None,
    model: str | None = None,
) -> Completion:
    """Run one chat completion in `slot` (or the vault's own `model` for it, from its chat settings); every
    call, failed ones included, leaves a usage row."""
    model = model or slot_model(slot)
    actor = user if getattr(user, "is_authenticated", False) else None
    started = time.perf_counter()

    def record(outcome: str, **fields: Any) -> None:
        ModelUsage.objects.create(
            vault_id=vault_id,
            user=actor,
            slot=slot,
            purpose=purpose,
            model=model,
            latency_ms=int((time.perf_counter() - started) * 1000),
            outcome=outcome,
            **fields,
        )

    if model.startswith(LOCAL_PREFIX):
        if local is None:
            raise ValueError(f"slot {slot} is set to {model} but {purpose} has no model-free implementation")
        text = local(messages)
        record(Outcome.OK)
        return Completion(text=text, model=model, tokens_in=0, tokens_out=0, cost_usd=Decimal(0), local=True)
    import litellm

    retries, attempts = int(settings.LLM_RETRIES), 0
    while True:
        attempts += 1
        try:
            response = litellm.completion(
                model=model,
                messages=list(messages),
                timeout=float(settings.LLM_TIMEOUT_SECONDS),
                api_base=settings.LLM_API_BASE,
                max_tokens=max_tokens,
                num_retries=0,
            )
            break
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:2000]
            if isinstance(exc, _retryable()) and attempts <= retries:
                time.sleep(float(settings.LLM_BACKOFF_SECONDS) * 2 ** (attempts - 1))
                continue
            record(Outcome.ERROR, attempts=attempts, error=error)
            raise ModelUnavailable(f"the {slot} model ({model}) is unavailable: {error}") from exc
    usage = getattr(response, "usage", None)
    tokens_in = int(getattr(usage, "prompt_tokens", 0) or 0)
    tokens_out = int(getattr(usage, "completion_tokens", 0) or 0)
    try:
        cost = Decimal(str(litellm.completion_cost(completion_response=response)))
    except Exception:  # noqa: BLE001 - unknown prices (local servers, new models) cost 0, recorded as such
        cost = Decimal(0)
    text = str(response.choices[0].message.content or "")
    record(Outcome.OK, tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost, attempts=attempts)
    return Completion(text=text, model=model, tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost, local=False)
