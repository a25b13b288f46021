"""Where each model slot's calls go: its model, provider, server and key, from settings (docs/models.md).

A vault may choose its own model for a slot among those the deployment is configured with; such a model is called
through the connection of the slot configured with it, so one server and one key always travel with one model.
Keys are read from the environment when a call is made and never stored or shown: pages show the variable's name
and whether it is set.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from django.conf import settings

SLOTS = ("chat", "reasoning", "scoring", "embedding")


class MissingKey(RuntimeError):
    """The slot names a key variable that is not set: calling would only fail at the provider."""


@dataclass(frozen=True)
class Connection:
    slot: str  # the slot configured with this server and key
    model: str
    provider: str | None
    api_base: str | None
    api_key_env: str | None

    @property
    def key_is_set(self) -> bool:
        return bool(self.api_key_env and os.environ.get(self.api_key_env))

    def litellm_arguments(self) -> dict[str, Any]:
        """What litellm needs besides the model and the messages (raises MissingKey)."""
        arguments: dict[str, Any] = {"api_base": self.api_base}
        if self.provider:
            arguments["custom_llm_provider"] = self.provider
        if self.api_key_env:
            if not self.key_is_set:
                raise MissingKey(f"the environment variable {self.api_key_env} (the {self.slot} slot's key) is not set")
            arguments["api_key"] = os.environ[self.api_key_env]
        return arguments


def slot_default_model(slot: str) -> str:
    if slot == "embedding":
        return str(settings.EMBEDDING_MODEL)
    return str(settings.LLM_SLOTS[slot])


def _configured(slot: str, model: str) -> Connection:
    fields = settings.LLM_SLOT_CONNECTIONS.get(slot, {})
    fallback_base = settings.EMBEDDING_API_BASE if slot == "embedding" else settings.LLM_API_BASE
    return Connection(
        slot=slot,
        model=model,
        provider=fields.get("provider"),
        api_base=fields.get("api_base") or fallback_base,
        api_key_env=fields.get("api_key_env"),
    )


def connection(slot: str, model: str | None = None) -> Connection:
    """The connection for a call in `slot`; `model` (a vault's choice) borrows the connection of the slot whose
    configured model it is, this slot's own first. A model no slot is configured with (a vault's choice from before
    the deployment changed its models) gets the deployment-wide server and the provider's usual key only: a slot's
    own key never goes to a model it was not configured for. Every embedding model (the one being switched to too)
    uses the embedding slot's connection: only the deployment chooses those."""
    if slot not in SLOTS:
        raise ValueError(f"unknown model slot {slot!r}")
    if model is None or model == slot_default_model(slot) or slot == "embedding":
        return _configured(slot, model or slot_default_model(slot))
    owner = next((other for other in SLOTS if other != "embedding" and slot_default_model(other) == model), None)
    if owner is not None:
        return _configured(owner, model)
    return Connection(slot=slot, model=model, provider=None, api_base=settings.LLM_API_BASE, api_key_env=None)


def connections(embedding_model: str | None = None) -> list[Connection]:
    """Every slot's configured connection, in slot order (the Models page); `embedding_model`: the active one."""
    return [connection(slot, embedding_model if slot == "embedding" else None) for slot in SLOTS]
