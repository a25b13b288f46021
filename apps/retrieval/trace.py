"""The trace of a context unit: the graph path that brought it and how it was walked, so that feedback on the unit
lands on the path (`apps.feedback.learners`).

Built by the walk, the explorer, the constraints and the summary walk; stored as JSON on `ContextItem.trace` and
in pre-warmed contexts; read back through `Trace.parse`, which takes whatever an old row or bad data holds and
keeps only what has the right type (a missing or malformed key reads as its empty default)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

_PATH = ("intent", "entities", "edges")  # every stored trace has these


@dataclass(frozen=True)
class Trace:
    intent: str = ""  # the question's intent (`apps.graph.intent`): paths learn per intent
    entities: tuple[int, ...] = ()  # the path's entities, from the entry to the last hop
    edges: tuple[int, ...] = ()  # the dependencies walked
    prior: float | None = None  # the path's prior, learned value and rhythm when it was scored
    learned: float | None = None
    rhythm: float | None = None
    mention: int | None = None  # the last hop: the mention through which the walk reached this fact
    doors: tuple[str, ...] = ()  # the question's specific terms (`apps.graph.doors`)
    asks: str = ""  # the kind of answer the question asks for ("when", "who", …)
    walk_ms: float | None = None
    constraint: bool = False  # a rule of the question's entities, shown as its rule
    speculative: bool = False  # the explorer's unit: graph-distant, near in meaning
    summaries: tuple[int, ...] = ()  # the summary nodes the temporal walk chose, in order
    summary: int | None = None  # the one this unit is
    prewarmed: bool = False  # prepared before the question was asked

    @classmethod
    def parse(cls, raw: object) -> Trace:
        """The trace in `raw` (a stored JSON object); anything else, or a key of the wrong type, reads as empty."""
        if not isinstance(raw, dict):
            return cls()
        return cls(
            intent=_text(raw.get("intent")),
            entities=_ids(raw.get("entities")),
            edges=_ids(raw.get("edges")),
            prior=_number(raw.get("prior")),
            learned=_number(raw.get("learned")),
            rhythm=_number(raw.get("rhythm")),
            mention=_id(raw.get("mention")),
            doors=tuple(d for d in _items(raw.get("doors")) if isinstance(d, str)),
            asks=_text(raw.get("asks")),
            walk_ms=_number(raw.get("walk_ms")),
            constraint=bool(raw.get("constraint")),
            speculative=bool(raw.get("speculative")),
            summaries=_ids(raw.get("summaries")),
            summary=_id(raw.get("summary")),
            prewarmed=bool(raw.get("prewarmed")),
        )

    def to_json(self) -> dict[str, Any]:
        """For storage: the path (intent, entities, edges) always, every other key only when it is set."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _PATH or value != f.default:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


def stored(trace: Trace | None) -> dict[str, Any]:
    """A unit's trace as stored: an empty object for a unit no path brought."""
    return trace.to_json() if trace is not None else {}


def _items(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _id(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _ids(value: object) -> tuple[int, ...]:
    return tuple(i for i in _items(value) if isinstance(i, int) and not isinstance(i, bool))


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
