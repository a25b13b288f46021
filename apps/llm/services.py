"""The Models page's test: one tiny call per slot, through the same path as real work, left on the usage ledger."""

from __future__ import annotations

import contextlib
import time
from decimal import Decimal

from django.conf import settings
from django.contrib.auth.models import User

from apps.core.local_models import is_local
from apps.llm.embeddings import current_model, embed_texts
from apps.llm.gateway import ModelUnavailable, complete, embed_with_provider
from apps.llm.metrics import model_call_count
from apps.llm.models import ModelUsage, Outcome, Slot
from apps.llm.selectors import latest_purpose

TEST_PURPOSE = "model test"
TEST_PROMPT = [{"role": "user", "content": "Reply with the single word OK."}]


def model_test(*, slot: str, user: User | None) -> ModelUsage:
    """Call `slot`'s configured model once; the usage row says how it went (latency, outcome, the provider's error)."""
    if slot == Slot.EMBEDDING:
        return _embedding_test(user)
    with contextlib.suppress(ModelUnavailable):  # the gateway recorded the failure with the provider's words
        complete(slot=slot, purpose=TEST_PURPOSE, messages=TEST_PROMPT, local=lambda _: "OK", user=user, max_tokens=5)
    test = latest_purpose(slot, TEST_PURPOSE)
    assert test is not None  # the gateway records every call, failed ones too
    return test


def _embedding_test(user: User | None) -> ModelUsage:
    model = current_model()  # the model search compares now, which a switch may have changed
    if not is_local(model):
        with contextlib.suppress(Exception):  # the gateway recorded the failure with the provider's words
            embed_with_provider(
                model=model,
                texts=["a test sentence"],
                batch=1,
                dimensions=int(settings.EMBEDDING_DIMENSIONS),
                purpose=TEST_PURPOSE,
                user=user,
            )
        test = latest_purpose(Slot.EMBEDDING, TEST_PURPOSE)
        assert test is not None  # the gateway records every provider call, failed ones too
        return test
    started = time.perf_counter()
    error = ""
    try:
        embed_texts(["a test sentence"], model=model)
    except Exception as exc:  # noqa: BLE001 - missing or tampered weights: shown as they are
        error = f"{type(exc).__name__}: {exc}"[:2000]
    model_call_count(slot=Slot.EMBEDDING, outcome=Outcome.ERROR if error else Outcome.OK, cost_usd=Decimal(0))
    return ModelUsage.objects.create(
        user=user,
        slot=Slot.EMBEDDING,
        purpose=TEST_PURPOSE,
        model=model,
        latency_ms=int((time.perf_counter() - started) * 1000),
        outcome=Outcome.ERROR if error else Outcome.OK,
        error=error,
    )
