"""Per-vault settings for answering, and how a chat over several vaults combines them: the strictest wins
(highest gate threshold, any switch that is off stays off, the most reserved fallback)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError

from apps.core.local_models import is_local

FALLBACKS = ("explicit", "silent", "refuse")  # from least to most reserved
SWITCHES = ("discovery", "deep_research", "librarian")
SLOTS = ("chat", "reasoning", "scoring")
DISCOVERY_TIERS = ("screening", "formation", "collisions", "cards")  # the tiers of discovery that call a model


@dataclass(frozen=True)
class ChatSettings:
    gate_threshold: int = 3
    fallback: str = "explicit"
    switches: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(SWITCHES, True))
    models: dict[str, str] = field(default_factory=dict)  # slot → litellm model string (per-vault override)
    discovery_budgets: dict[str, int] = field(default_factory=dict)  # tier → model calls a day (per-vault override)

    def model_for(self, slot: str) -> str:
        return self.models.get(slot) or str(settings.LLM_SLOTS[slot])


def parse(raw: dict[str, Any] | None) -> ChatSettings:
    """Validate a vault's stored settings; unknown keys and bad values are refused with a reason."""
    raw = dict(raw or {})
    errors: dict[str, list[str]] = {}
    threshold = raw.pop("gate_threshold", 3)
    if not isinstance(threshold, int) or not 1 <= threshold <= 5:
        errors["gate_threshold"] = ["a whole number from 1 to 5"]
    fallback = raw.pop("fallback", "explicit")
    if fallback not in FALLBACKS:
        errors["fallback"] = [f"one of {', '.join(FALLBACKS)}"]
    nested = raw.pop("switches", {})  # the shape the settings are read back in, accepted as written
    if not isinstance(nested, dict) or set(nested) - set(SWITCHES):
        errors["switches"] = [f"a mapping of {', '.join(SWITCHES)} to true or false"]
        nested = {}
    switches = {name: raw.pop(name, nested.get(name, True)) for name in SWITCHES}
    for name, value in switches.items():
        if not isinstance(value, bool):
            errors[name] = ["true or false"]
    models = raw.pop("models", {}) or {}
    if not isinstance(models, dict) or any(k not in SLOTS or not isinstance(v, str) for k, v in models.items()):
        errors["models"] = [f"a mapping of {', '.join(SLOTS)} to litellm model strings"]
    budgets = raw.pop("discovery_budgets", {}) or {}
    if not isinstance(budgets, dict) or any(
        k not in DISCOVERY_TIERS or isinstance(v, bool) or not isinstance(v, int) or v < 0 for k, v in budgets.items()
    ):
        errors["discovery_budgets"] = [f"a mapping of {', '.join(DISCOVERY_TIERS)} to whole numbers from 0"]
    if raw:
        errors["settings"] = [f"unknown settings: {', '.join(sorted(raw))}"]
    if errors:
        raise ValidationError(errors)
    return ChatSettings(
        gate_threshold=threshold,
        fallback=fallback,
        switches=switches,
        models=dict(models),
        discovery_budgets=dict(budgets),
    )


def strictest(all_settings: Iterable[ChatSettings]) -> ChatSettings:
    """Combine the settings of every vault a chat reads."""
    items = list(all_settings)
    if not items:
        return ChatSettings()
    models: dict[str, str] = {}
    for slot in SLOTS:  # vaults that disagree on a model fall back to the deployment's own choice
        chosen = {s.models.get(slot) for s in items}
        if len(chosen) == 1 and None not in chosen:
            models[slot] = str(chosen.pop())
    return ChatSettings(
        gate_threshold=max(s.gate_threshold for s in items),
        fallback=max((s.fallback for s in items), key=FALLBACKS.index),
        switches={name: all(s.switches[name] for s in items) for name in SWITCHES},
        models=models,
    )


def model_options(slot: str, current: ChatSettings) -> list[str]:
    """The models a vault may pick for `slot`: the models the deployment configured for any slot (each is called
    with its slot's server and key), the slot's own model-free implementation (a model-free one of another slot does
    different work), and the model the vault already has."""
    configured = {str(model) for model in settings.LLM_SLOTS.values() if not is_local(str(model))}
    options = [*sorted(configured), settings.LLM_LOCAL[slot]]
    chosen = current.models.get(slot, "")
    return options + ([chosen] if chosen and chosen not in options else [])
