"""LoCoMo's own answer metric (its `task_eval/evaluation.py`): token F1 after lowercasing, dropping punctuation,
the words a, an, the and "and", and Porter-stemming, scored per category as the paper does. The answer an offline
pipeline gives is scored as a reader meets it: citation marks are links, not words, and are left out."""

from __future__ import annotations

import re
import statistics
import string
from collections import Counter
from collections.abc import Iterable

from apps.core.porter import stem

ARTICLES = re.compile(r"\b(a|an|the|and)\b")
PUNCTUATION = set(string.punctuation)
CITATION = re.compile(r"\s*\[\d+\]")
ANSWERED = ("1", "2", "3", "4")


def normalize(text: str) -> str:
    """LoCoMo's normalisation: commas out, lowercase, punctuation out, articles and "and" out, spaces collapsed."""
    text = str(text).replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in PUNCTUATION)
    return " ".join(ARTICLES.sub(" ", text).split())


def tokens(text: str) -> list[str]:
    return [stem(word) for word in normalize(text).split()]


def token_f1(prediction: str, gold: str) -> float:
    predicted, wanted = Counter(tokens(prediction)), Counter(tokens(gold))
    same = sum((predicted & wanted).values())
    if not same:
        return 0.0
    precision, recall = same / sum(predicted.values()), same / sum(wanted.values())
    return 2 * precision * recall / (precision + recall)


def multi_hop_f1(prediction: str, gold: str) -> float:
    """Each comma-separated part of the gold answer takes its best F1 against the prediction's parts; the mean."""
    parts = [p.strip() for p in str(prediction).split(",")]
    return statistics.fmean(max(token_f1(p, g.strip()) for p in parts) for g in str(gold).split(","))


def answer_f1(prediction: str, gold: str, category: int) -> float:
    """The question's F1 as LoCoMo scores its category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop)."""
    if category == 1:
        return multi_hop_f1(prediction, gold)
    if category == 3:
        gold = str(gold).split(";")[0].strip()
    return token_f1(prediction, gold)


def says_not_available(answer: str) -> bool:
    """LoCoMo's test for a right answer to an adversarial (category 5) question."""
    lowered = answer.lower()
    return "no information available" in lowered or "not mentioned" in lowered


# How a model says the sources do not answer (chat's prompt asks it to "say that plainly"), beside LoCoMo's phrases.
_DECLINES = re.compile(
    r"no information available|not mentioned|"
    r"\b(sources?|notes?|conversation|context)\s+(do|does|did)\s*(not|n't)\s+(answer|say|mention|state|contain|tell)|"
    r"\bnothing in the (sources?|notes?|conversation)\b|"
    r"\b(there is|there's) no (information|mention|record)\b",
    re.IGNORECASE,
)


def declines_to_answer(answer: str) -> bool:
    """A model's answer that says the sources do not answer: an abstention, as the offline fallback is."""
    return bool(_DECLINES.search(answer))


def readable(answer: str) -> str:
    """The answer's words: citation marks dropped."""
    return CITATION.sub("", answer).strip()


class AnswerTally:
    """Answer F1 by category, and how often the answerer abstained on category 5 and on answerable questions."""

    def __init__(self) -> None:
        self.f1: dict[str, list[float]] = {c: [] for c in ANSWERED}
        self.abstained_adversarial: list[float] = []
        self.abstained_answerable: list[float] = []
        self.judged: dict[str, list[float]] = {c: [] for c in ANSWERED}
        self.unjudged = 0  # the judge stayed down or gave no label
        self.model_failures = 0  # questions the model could not answer: the offline answer stood in
        self.answered_by = "offline"

    def add(self, *, category: int, gold: str, answer: str | None) -> float | None:
        """Count one answer and return its F1 (None for category 5). `answer` is None when the answerer abstained
        (the vault's fallback, not an answer)."""
        if category == 5:
            self.abstained_adversarial.append(float(answer is None))
            return None
        self.abstained_answerable.append(float(answer is None))
        f1 = 0.0 if answer is None else answer_f1(readable(answer), gold, category)
        self.f1[str(category)].append(f1)
        return round(f1, 4)

    def add_verdict(self, *, category: int, correct: bool | None) -> None:
        """The judge's verdict on an answerable question's answer (an abstention is WRONG without asking)."""
        if correct is None:
            self.unjudged += 1
            return
        self.judged[str(category)].append(float(correct))

    def report(self) -> dict[str, object]:
        scored = [f for cat in ANSWERED for f in self.f1[cat]]
        return {
            "f1": _mean(scored),
            "f1_by_category": {cat: _mean(self.f1[cat]) for cat in ANSWERED},
            "abstained": {
                "category5": _mean(self.abstained_adversarial),
                "answerable": _mean(self.abstained_answerable),
            },
            "questions": {"answerable": len(scored), "category5": len(self.abstained_adversarial)},
            "answered_by": self.answered_by,
            "model_failures": self.model_failures,
        } | ({"judge": self._judge_report()} if any(self.judged.values()) or self.unjudged else {})

    def _judge_report(self) -> dict[str, object]:
        return {
            "correct": _mean(v for cat in ANSWERED for v in self.judged[cat]),
            "correct_by_category": {cat: _mean(self.judged[cat]) for cat in ANSWERED},
            "unjudged": self.unjudged,
        }


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return round(statistics.fmean(values), 4) if values else 0.0


class VaultAnswerTally:
    """Answers on a vault's question set, which names the notes that answer, not the answer: an answerable question
    is answered well enough to count when the answer's first citation is one of those notes; an unanswerable one
    when the answer abstains, and badly when it claims a bold lead."""

    def __init__(self) -> None:
        self.cited_relevant: list[float] = []
        self.led: list[float] = []
        self.abstained: list[float] = []
        self.unanswerable_abstained: list[float] = []
        self.unanswerable_led: list[float] = []
        self.answered_by = "offline"
        self.model_failures = 0  # questions the model could not answer: the offline answer stood in

    def add(self, *, relevant: set[str], answer: str | None, led: bool, cited: str | None) -> None:
        if not relevant:
            self.unanswerable_abstained.append(float(answer is None))
            self.unanswerable_led.append(float(led))
            return
        self.abstained.append(float(answer is None))
        self.led.append(float(led))
        self.cited_relevant.append(float(cited in relevant))

    @property
    def counted(self) -> int:
        return len(self.cited_relevant) + len(self.unanswerable_abstained)

    def report(self) -> dict[str, object]:
        return {
            "answerable": {
                "first_citation_relevant": _mean(self.cited_relevant),
                "led": _mean(self.led),
                "abstained": _mean(self.abstained),
            },
            "unanswerable": {"abstained": _mean(self.unanswerable_abstained), "led": _mean(self.unanswerable_led)},
            "questions": {"answerable": len(self.cited_relevant), "unanswerable": len(self.unanswerable_abstained)},
            "answered_by": self.answered_by,
            "model_failures": self.model_failures,
        }
