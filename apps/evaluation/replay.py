"""The learning curve: a conversation's questions asked in their order, each answer rated from the gold evidence
right after it is scored (as `learning.py` rates), against the same questions asked in the same order with
learning off. The curve is the MRR of the last `window` scored questions against the questions answered, averaged
over the conversations at each position; each conversation learns in a vault of its own, rolled back afterwards."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from html import escape
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from apps.chat.models import Conversation
from apps.evaluation import corpus
from apps.evaluation.learning import answer_rate, ask_full, paired_bootstrap, ranked, replay_moment
from apps.evaluation.locomo import Conversation as Dialogue
from apps.evaluation.metrics import reciprocal_rank
from apps.evaluation.models import LearningCurveRun

WINDOW = 20


def conversation_replay(
    *, user: User, conv: Dialogue, unit: str, tick: Callable[[int], None] | None = None
) -> dict[str, list[float]]:
    """Reciprocal ranks of the scored questions (categories 1–4 with evidence) in order: `off` asked with nothing
    learned, `on` asked after every earlier answer was rated."""
    vault = corpus.ingest_conversation(user, conv, unit)
    vault_id = vault.vault.pk
    scored = [q.category != 5 and bool(q.evidence) for q in conv.questions]
    with replay_moment():
        off = [
            reciprocal_rank(ranked(ask_full(user, vault_id, q.text), vault.items), set(q.evidence))
            for q, s in zip(conv.questions, scored, strict=True)
            if s
        ]
        on: list[float] = []
        with transaction.atomic():
            chat = Conversation.objects.create(owner=user, title="learning curve replay")
            for q, s in zip(conv.questions, scored, strict=True):
                result = ask_full(user, vault_id, q.text)
                if s:
                    on.append(reciprocal_rank(ranked(result, vault.items), set(q.evidence)))
                answer_rate(user, chat, vault_id, q, vault.items, list(result.survivors) if result else [])
                if tick:
                    tick(1)
            transaction.set_rollback(True)
    return {"off": off, "on": on}


def rolling(values: list[float], window: int = WINDOW) -> list[float]:
    """The mean of the last `window` values at each position (fewer at the start)."""
    return [statistics.fmean(values[max(0, i + 1 - window) : i + 1]) for i in range(len(values))]


def learning_curve(runs: list[dict[str, list[float]]], window: int = WINDOW) -> dict[str, list[float]]:
    """Each replay's rolling MRR, averaged over the conversations that reached each position."""
    curves: dict[str, list[float]] = {}
    for mode in ("off", "on"):
        rolled = [rolling(run[mode], window) for run in runs]
        longest = max((len(r) for r in rolled), default=0)
        curves[mode] = [round(statistics.fmean(r[i] for r in rolled if i < len(r)), 4) for i in range(longest)]
    return curves


def replay_report(runs: list[dict[str, list[float]]], samples: list[str], window: int = WINDOW) -> dict[str, Any]:
    curve = learning_curve(runs, window)
    mean = lambda v: round(statistics.fmean(v), 4) if v else 0.0  # noqa: E731 - a one-line helper
    return {
        "window": window,
        "conversations": samples,
        "questions": [len(run["on"]) for run in runs],
        "mrr": {
            "off": mean([x for run in runs for x in run["off"]]),
            "on": mean([x for run in runs for x in run["on"]]),
        },
        "mrr_change": paired_bootstrap([x for run in runs for x in run["off"]], [x for run in runs for x in run["on"]]),
        "curve": curve,
        "reciprocal_ranks": dict(zip(samples, runs, strict=True)),
    }


def replay_record(report: dict[str, Any]) -> LearningCurveRun:
    """Keep a replay's figures and curve on the deployment, where the staff learning page draws the latest."""
    return LearningCurveRun.objects.create(
        dataset=str(report.get("dataset", "")),
        window=int(report["window"]),
        conversations=list(report["conversations"]),
        questions=sum(report["questions"]),
        mrr_off=float(report["mrr"]["off"]),
        mrr_on=float(report["mrr"]["on"]),
        mrr_change=dict(report["mrr_change"]),
        curve=dict(report["curve"]),
    )


def curve_svg(curve: dict[str, list[float]], *, title: str, window: int = WINDOW) -> str:
    """A line chart of the two curves (learning on, learning off) as standalone SVG markup."""
    width, height, left, right, top, bottom = 760, 360, 56, 16, 40, 48
    plot_w, plot_h = width - left - right, height - top - bottom
    longest = max(len(curve.get("on", [])), len(curve.get("off", [])), 2)
    highest = max([*curve.get("on", []), *curve.get("off", []), 0.1])
    y_max = min(1.0, (int(highest * 10) + 1) / 10)

    def x(i: int) -> float:
        return left + plot_w * i / (longest - 1)

    def y(v: float) -> float:
        return top + plot_h * (1 - v / y_max)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="12" role="img">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>',
        f'<text x="{left}" y="22" font-size="14">{escape(title)}</text>',
    ]
    for step in range(round(y_max * 10) + 1):
        v = step / 10
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#e5e5e5"/>'
            f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>'
        )
    step = next((s for s in (10, 25, 50, 100, 250, 500) if longest / s <= 8), 1000)
    for answered in [1, *range(step, longest + 1, step)]:
        parts.append(
            f'<text x="{x(answered - 1):.1f}" y="{height - bottom + 16}" text-anchor="middle">{answered}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 10}" text-anchor="middle">questions answered</text>'
        f'<text x="14" y="{top + plot_h / 2}" transform="rotate(-90 14 {top + plot_h / 2})" text-anchor="middle">'
        f"MRR, last {window} questions</text>"
    )
    styles = {"off": ("#888", "6 4", "learning off"), "on": ("#1565c0", "", "learning on")}
    for n, (mode, (colour, dash, label)) in enumerate(styles.items()):
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(curve.get(mode, [])))
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<polyline class="{mode}" fill="none" stroke="{colour}" stroke-width="2"{dashes} points="{points}"/>'
        )
        lx = width - right - 230 + 120 * n  # the legend sits on the title's line, clear of the curves
        parts.append(
            f'<line x1="{lx}" x2="{lx + 30}" y1="18" y2="18" stroke="{colour}" stroke-width="2"{dashes}/>'
            f'<text x="{lx + 36}" y="22">{label}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
