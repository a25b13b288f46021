"""The one gateway to language models: slot → model from settings, timeouts, retries with backoff, a usage row for
every call (local defaults too), and a clear error when a provider stays down so callers can degrade.

A slot whose model starts with `local/` runs the caller's model-free implementation instead of a provider.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User

from apps.core.local_models import is_local
from apps.llm.connections import MissingKey, connection, slot_default_model
from apps.llm.metrics import model_call_count
from apps.llm.models import ModelUsage, Outcome, Slot

# Recorded when a streamed answer's reader goes away: not the provider's failure.
READER_LEFT = "the reader left before the stream ended"
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


def json_object_in(text: str) -> dict[str, Any] | None:
    """The JSON object a model replied with (prose or code fences around it tolerated), or None."""
    match = re.search(r"\{.*\}", text, re.S)
    try:
        data = json.loads(match.group(0)) if match else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def tokens_of(text: str) -> int:
    """~4 characters a token for English prose (no tokenizer download needed offline)."""
    return max(1, round(len(text) / 4))


def slot_model(slot: str) -> str:
    if slot not in Slot.values or slot == Slot.EMBEDDING:
        raise ValueError(f"unknown completion slot {slot!r}")
    return slot_default_model(slot)


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


def _cost(response: Any) -> Decimal:
    """What a provider's reply cost, by litellm's price list."""
    import litellm

    try:
        return Decimal(str(litellm.completion_cost(completion_response=response)))
    except Exception:  # noqa: BLE001 - unknown prices (local servers, new models) cost 0, recorded as such
        return Decimal(0)


class _Call:
    """One gateway call: opens the provider request with retries and backoff, and writes its usage row."""

    def __init__(self, *, slot: str, purpose: str, model: str, user: User | None, vault_id: int | None) -> None:
        self.slot, self.purpose, self.model, self.vault_id = slot, purpose, model, vault_id
        self.user = user if getattr(user, "is_authenticated", False) else None
        self.started = time.perf_counter()
        self.attempts = 0

    def record(self, outcome: str, **fields: Any) -> None:
        ModelUsage.objects.create(
            vault_id=self.vault_id,
            user=self.user,
            slot=self.slot,
            purpose=self.purpose,
            model=self.model,
            latency_ms=int((time.perf_counter() - self.started) * 1000),
            outcome=outcome,
            attempts=max(1, self.attempts),
            **fields,
        )
        model_call_count(
            slot=self.slot,
            outcome=outcome,
            tokens_in=fields.get("tokens_in", 0),
            tokens_out=fields.get("tokens_out", 0),
            cost_usd=fields.get("cost_usd", Decimal(0)),
        )

    def fail(self, exc: BaseException) -> ModelUnavailable:
        error = f"{type(exc).__name__}: {exc}"[:2000]
        self.record(Outcome.ERROR, error=error)
        return ModelUnavailable(f"the {self.slot} model ({self.model}) is unavailable: {error}")

    def open(self, messages: Sequence[Message], max_tokens: int | None, **extra: Any) -> Any:
        import litellm

        retries = int(settings.LLM_RETRIES)
        try:
            arguments = connection(self.slot, self.model).litellm_arguments()
        except MissingKey as exc:
            raise self.fail(exc) from exc
        while True:
            self.attempts += 1
            try:
                return litellm.completion(
                    model=self.model,
                    messages=list(messages),
                    timeout=float(settings.LLM_TIMEOUT_SECONDS),
                    max_tokens=max_tokens,
                    num_retries=0,
                    **arguments,
                    **extra,
                )
            except Exception as exc:
                if isinstance(exc, _retryable()) and self.attempts <= retries:
                    time.sleep(float(settings.LLM_BACKOFF_SECONDS) * 2 ** (self.attempts - 1))
                    continue
                raise self.fail(exc) from exc

    def finish(self, response: Any) -> Completion:
        usage = getattr(response, "usage", None)
        tokens_in = int(getattr(usage, "prompt_tokens", 0) or 0)
        tokens_out = int(getattr(usage, "completion_tokens", 0) or 0)
        cost = _cost(response)
        text = str(response.choices[0].message.content or "")
        self.record(Outcome.OK, tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost)
        return Completion(
            text=text, model=self.model, tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost, local=False
        )


def complete(
    *,
    slot: str,
    purpose: str,
    messages: Sequence[Message],
    local: Callable[[Sequence[Message]], str] | None = None,
    user: User | None = None,
    vault_id: int | None = None,
    max_tokens: int | None = None,
    model: str | None = None,
) -> Completion:
    """Run one chat completion in `slot` (or the vault's own `model` for it, from its chat settings); every
    call, failed ones included, leaves a usage row."""
    call = _Call(slot=slot, purpose=purpose, model=model or slot_model(slot), user=user, vault_id=vault_id)
    if is_local(call.model):
        if local is None:
            raise ValueError(f"slot {slot} is set to {call.model} but {purpose} has no model-free implementation")
        text = local(messages)
        call.record(Outcome.OK)
        return Completion(text=text, model=call.model, tokens_in=0, tokens_out=0, cost_usd=Decimal(0), local=True)
    return call.finish(call.open(messages, max_tokens))


@dataclass(frozen=True)
class JsonReply:
    data: dict[str, Any] | None  # None: the provider stayed down (`error` says how) or replied without a JSON object
    local: bool = False
    error: str = ""


def complete_json(
    *, slot: str, purpose: str, messages: Sequence[Message], local: Callable[[], dict[str, Any]], **kwargs: Any
) -> JsonReply:
    """A call whose answer is a JSON object: a local slot answers with `local()`; a provider that stays down or
    replies with anything but a JSON object gives `data=None`, so the caller falls back to its local answer."""
    try:
        reply = complete(slot=slot, purpose=purpose, messages=messages, local=lambda _: json.dumps(local()), **kwargs)
    except ModelUnavailable as exc:
        return JsonReply(None, error=str(exc))
    return JsonReply(json_object_in(reply.text), local=reply.local)


def complete_stream(
    *,
    slot: str,
    purpose: str,
    messages: Sequence[Message],
    user: User | None = None,
    vault_id: int | None = None,
    max_tokens: int | None = None,
    model: str | None = None,
) -> Iterator[str]:
    """Like `complete` for a provider model, yielding the text as it is written; the usage row is written when
    the stream ends (a stream that breaks off raises ModelUnavailable after the text already yielded)."""
    import litellm

    call = _Call(slot=slot, purpose=purpose, model=model or slot_model(slot), user=user, vault_id=vault_id)
    if is_local(call.model):
        raise ValueError(f"slot {slot} is local ({call.model}): nothing to stream")
    stream = call.open(messages, max_tokens, stream=True, stream_options={"include_usage": True})
    chunks = []
    try:
        for chunk in stream:
            chunks.append(chunk)
            delta = chunk.choices[0].delta.content if chunk.choices else None
            if delta:
                yield delta
        built = litellm.stream_chunk_builder(chunks, messages=list(messages)) if chunks else None
    except GeneratorExit:
        call.record(Outcome.ERROR, error=READER_LEFT)
        raise
    except Exception as exc:
        raise call.fail(exc) from exc
    finally:
        getattr(stream, "close", lambda: None)()
    if built is None:  # a provider that answered with nothing
        call.record(Outcome.OK)
        return
    call.finish(built)


def embed_with_provider(
    *,
    model: str,
    texts: Sequence[str],
    batch: int,
    dimensions: int,
    purpose: str = "embedding",
    user: User | None = None,
) -> list[list[float]]:
    """Embed `texts` with a provider model, `batch` texts a call. Each call leaves a usage row, a failed one or one
    whose vectors are not `dimensions` long with the provider's words or the size it sent, so the Models page and the
    failing-slot banner see the embedding slot as they see the others. The error is raised as it came."""
    import litellm

    vectors: list[list[float]] = []
    for start in range(0, len(texts), batch):
        call = _Call(slot=Slot.EMBEDDING, purpose=purpose, model=model, user=user, vault_id=None)
        try:
            arguments = connection(Slot.EMBEDDING, model).litellm_arguments()
            response = litellm.embedding(model=model, input=list(texts[start : start + batch]), timeout=60, **arguments)
            got = [list(item["embedding"]) for item in response.data]
            if any(len(vector) != dimensions for vector in got):
                raise ValueError(
                    f"{model} returned vectors of another size than DESIREPATH_EMBEDDING_DIMENSIONS={dimensions}"
                )
        except Exception as exc:
            call.record(Outcome.ERROR, error=f"{type(exc).__name__}: {exc}"[:2000])
            raise
        usage = getattr(response, "usage", None)
        call.record(Outcome.OK, tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0), cost_usd=_cost(response))
        vectors.extend(got)
    return vectors
