"""Who answers in an evaluation, and who judges the answer.

A deployment with a model in its chat slot is measured on that model's answers, written from the same sources with
chat's own prompt; one without is measured on the offline answerer. `--judge` adds an LLM judge in the scoring slot
(the LLM-as-a-judge protocol other memory systems report on LoCoMo: the generated answer against the gold one,
CORRECT or WRONG), so a team can compare their provider with token F1 and with a reader's verdict.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from django.contrib.auth.models import User

from apps.chat.services.answering import Source, answer_lines, lead, misattribution, sources_prompt
from apps.chat.services.attribution import Witness
from apps.chat.services.witnesses import found_turns
from apps.core.local_models import is_local
from apps.evaluation.answer_scores import declines_to_answer
from apps.llm.gateway import ModelUnavailable, complete, complete_json, slot_model
from apps.vaults.scope import Scope

JUDGE_PROMPT = (
    "You grade answers to questions about a long conversation. You get the question, the gold answer and a "
    "generated answer. Label the generated answer CORRECT when it says what the gold answer says: be generous with "
    "wording and length, and a date, a place or a name in another format that means the same thing counts. Label "
    "it WRONG when it misses the point, says something else, or says the answer is not known. Reply with JSON only: "
    '{"label": "CORRECT"} or {"label": "WRONG"}.'
)


CITATION = re.compile(r"\[(\d+)\]")


class JudgeUnavailable(RuntimeError):
    """`--judge` needs a model in the scoring slot: the offline scorer cannot grade prose."""


@dataclass(frozen=True)
class Answered:
    text: str | None  # None: abstained (nothing to answer from, or the model said the sources do not answer)
    failed: bool = False  # the model was unavailable: the offline answer stands in for this question
    found: tuple[Witness, ...] = ()  # the turns the narrow lookup behind the who-did-it abstention found
    led: bool = False  # the offline answer claimed a span: the bold lead a reader takes for the answer
    first_cited: int | None = None  # the source the answer cites first: the lead's, for the offline answer


def offline_answer(question: str, sources: Sequence[Source]) -> str:
    """What the offline answer says first: its answer span, or, when it has none, its cited sentences."""
    return _offline(question, sources).text or ""


def _offline(question: str, sources: Sequence[Source]) -> Answered:
    found = lead(question, sources)
    if found:
        return Answered(found.text, led=True, first_cited=found.number)
    return _citing("".join(answer_lines(question, sources)))


def _citing(text: str | None) -> Answered:
    cited = CITATION.search(text or "")
    return Answered(text, first_cited=int(cited.group(1)) if cited else None)


class Answerer:
    def __init__(self, user: User, *, judge: bool = False) -> None:
        self.user = user
        self.model = slot_model("chat")
        self.offline = is_local(self.model)
        if judge and is_local(slot_model("scoring")):
            raise JudgeUnavailable(
                "--judge needs a model in the scoring slot (docs/models.md): the offline scorer cannot grade answers"
            )
        self.judging = judge

    @property
    def name(self) -> str:
        return "offline" if self.offline else self.model

    def answer(
        self, question: str, sources: Sequence[Source], speakers: Sequence[str] = (), scope: Scope | None = None
    ) -> Answered:
        found = tuple(found_turns(question=question, sources=sources, speakers=speakers, scope=scope)) if scope else ()
        if not sources or misattribution(question, sources, speakers, found):  # chat abstains, with or without a model
            return Answered(None, found=found)
        if self.offline:
            return replace(_offline(question, sources), found=found)
        try:
            reply = complete(
                slot="chat", purpose="evaluation answer", messages=sources_prompt(question, sources), user=self.user
            )
        except ModelUnavailable:
            return replace(_offline(question, sources), failed=True, found=found)
        text = reply.text.strip()
        return replace(_citing(None if declines_to_answer(text) else text), found=found)

    def judge(self, question: str, gold: str, answer: str) -> bool | None:
        """The judge's verdict on one answer; None when it stayed down or replied without a label."""
        user = json.dumps({"question": question, "gold_answer": gold, "generated_answer": answer})
        reply = complete_json(
            slot="scoring",
            purpose="evaluation judge",
            messages=[{"role": "system", "content": JUDGE_PROMPT}, {"role": "user", "content": user}],
            local=lambda: {},
            user=self.user,
        )
        label = str((reply.data or {}).get("label", "")).strip().upper()
        return {"CORRECT": True, "WRONG": False}.get(label)
