"""Fit the significance classifier for the embedding model in use: `manage.py evaluate calibrate --significance`.

Informative messages are real questions: the LoCoMo dev questions, the sample vault's and the project's dev
questions for the three real vaults (`data/vaults/`), and lookups typed as a few keywords (`data/lookups/`). Casual
ones are small talk: LoCoMo's dev chatter and the project's own (`data/chatter/`: general team chat and, per real
vault, what its users would say in passing). The readers' question and chatter sets in `../shared/eval/vaults/` are
never read here: they are what the figures are reported on.

Every (C, cut) of a small grid is scored leaving one group out (`groups`); the chosen pair silences the most
held-out small talk among those that silence no larger share of the held-out questions than the prototype check it
replaces does on the same messages (a real question that gets nothing costs the answer). The weights written are
fitted on every group.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from apps.evaluation import locomo
from apps.evaluation.calibration import fit_logistic
from apps.llm.embeddings import current_model, embed_texts
from apps.retrieval.gate import probabilities
from apps.retrieval.significance import CLASSIFIERS, by_rule, prototype_casual, read_classifiers

DATA = Path(__file__).resolve().parent / "data"
VAULTS = ("kepano-obsidian", "logseq-docs", "foam-docs")
GRID_C = (1.0, 3.0, 10.0)
GRID_CUT = (0.4, 0.5, 0.6, 0.7)


@dataclass
class Group:
    name: str
    informative: list[str]
    casual: list[str]


def _messages(path: Path) -> list[str]:
    return [json.loads(line)["q"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def groups(locomo_data: Path, chatter_dev: Path, sample_queries: Path) -> list[Group]:
    """Four groups for the folds: LoCoMo with the sample vault, and each real vault. The general lookups and chatter
    are a style of message, not a corpus: they are dealt round the groups so that every fit has seen some."""
    all_groups = [
        Group(
            "locomo and sample vault",
            [q.text for conv in locomo.load(locomo_data) for q in conv.questions] + _messages(sample_queries),
            _messages(chatter_dev),
        )
    ] + [
        Group(name, _messages(DATA / "vaults" / f"{name}.jsonl"), _messages(DATA / "chatter" / f"{name}.jsonl"))
        for name in VAULTS
    ]
    for n, text in enumerate(_messages(DATA / "lookups" / "general.jsonl")):
        all_groups[n % len(all_groups)].informative.append(text)
    for n, text in enumerate(_messages(DATA / "chatter" / "general.jsonl")):
        all_groups[n % len(all_groups)].casual.append(text)
    return all_groups


def _ruled(texts: list[str]) -> np.ndarray:
    """Per message: 1 let through by a rule, 0 stopped by one, NaN left to the classifier."""
    decisions = [by_rule(t) for t in texts]
    return np.array([np.nan if d is None else float(d.significant) for d in decisions])


def _unit(texts: list[str]) -> np.ndarray:
    vectors = np.array(embed_texts(texts), dtype=np.float64)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def calibrate_significance(all_groups: list[Group]) -> dict[str, Any]:
    vectors = {g.name: (_unit(g.informative), _unit(g.casual)) for g in all_groups}
    ruled = {g.name: (_ruled(g.informative), _ruled(g.casual)) for g in all_groups}

    def fitted(names: list[str], c: float) -> tuple[np.ndarray, float]:
        x = np.vstack([np.vstack(vectors[n]) for n in names])
        y = np.concatenate([np.r_[np.zeros(len(vectors[n][0])), np.ones(len(vectors[n][1]))] for n in names])
        return fit_logistic(x, y, c=c, steps=30)

    def silenced(weights: np.ndarray, bias: float, x: np.ndarray, ruled: np.ndarray, cut: float) -> np.ndarray:
        by_classifier = probabilities(x, weights, bias) >= cut
        return np.where(np.isnan(ruled), by_classifier, ruled == 0.0)

    def figures(silence_of: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, dict[str, Any]]:
        return {
            name: {
                "questions": len(lost),
                "questions_silenced": int(lost.sum()),
                "chatter": len(quiet),
                "chatter_silent": round(float(quiet.mean()), 3),
            }
            for name, (lost, quiet) in silence_of.items()
        }

    model = current_model()
    reference = figures(
        {
            g.name: tuple(  # type: ignore[misc]
                np.where(np.isnan(r), prototype_casual(v, model), r == 0.0)
                for v, r in zip(vectors[g.name], ruled[g.name], strict=True)
            )
            for g in all_groups
        }
    )
    grid: list[dict[str, Any]] = []
    for c in GRID_C:
        fits = {g.name: fitted([o.name for o in all_groups if o.name != g.name], c) for g in all_groups}
        for cut in GRID_CUT:
            held_out = {
                g.name: tuple(
                    silenced(*fits[g.name], v, r, cut) for v, r in zip(vectors[g.name], ruled[g.name], strict=True)
                )
                for g in all_groups
            }
            grid.append({"c": c, "cut": cut, "held_out": figures(held_out)})  # type: ignore[arg-type]

    def lost_share(held_out: dict[str, dict[str, Any]]) -> float:
        return sum(r["questions_silenced"] for r in held_out.values()) / sum(r["questions"] for r in held_out.values())

    def silence(held_out: dict[str, dict[str, Any]]) -> float:
        return float(np.mean([r["chatter_silent"] for r in held_out.values()]))

    allowed = [row for row in grid if lost_share(row["held_out"]) <= lost_share(reference)] or grid
    chosen = max(allowed, key=lambda row: (silence(row["held_out"]), -lost_share(row["held_out"])))
    weights, bias = fitted([g.name for g in all_groups], chosen["c"])
    return {
        "model": model,
        "prototypes": {
            "questions_lost": round(lost_share(reference), 4),
            "chatter_silent": round(silence(reference), 3),
            "held_out": reference,
        },
        "chosen": {"c": chosen["c"], "cut": chosen["cut"], "held_out": chosen["held_out"]},
        "grid": [
            {
                "c": r["c"],
                "cut": r["cut"],
                "questions_lost": round(lost_share(r["held_out"]), 4),
                "chatter_silent": round(silence(r["held_out"]), 3),
            }
            for r in grid
        ],
        "entry": {
            "weights": [round(float(v), 6) for v in weights],
            "bias": round(bias, 6),
            "cut": chosen["cut"],
            "fitted": datetime.now(UTC).date().isoformat(),
            "messages": {g.name: [len(g.informative), len(g.casual)] for g in all_groups},
        },
    }


def write_classifier(model: str, entry: dict[str, Any], path: Path = CLASSIFIERS) -> None:
    classifiers = read_classifiers(path)
    classifiers[model] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(classifiers, indent=1, sort_keys=True) + "\n", encoding="utf-8")
