"""Load the LoCoMo conversations (read from ../shared/eval at run time, never copied) and repair known defects."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

DIA_ID = re.compile(r"^D\d+:\d+$")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    date: str


@dataclass(frozen=True)
class Question:
    text: str
    evidence: tuple[str, ...]
    category: int
    answer: str


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def sessions(self) -> dict[int, list[Turn]]:
        grouped: dict[int, list[Turn]] = {}
        for turn in self.turns:
            grouped.setdefault(turn.session, []).append(turn)
        return grouped


def parse_evidence(raw: list[object] | None, known: set[str]) -> tuple[str, ...]:
    """Evidence ids as written are sometimes malformed ("D8:6; D9:17", "D", "D:11:26") or point at turns that
    do not exist: split on ';' and whitespace, keep well-formed ids of real turns, in order, once."""
    ids: list[str] = []
    for item in raw or []:
        for token in re.split(r"[;\s]+", str(item)):
            if DIA_ID.match(token) and token in known and token not in ids:
                ids.append(token)
    return tuple(ids)


def session_of(dia_id: str) -> int:
    return int(dia_id[1:].split(":", 1)[0])


def load(path: Path) -> list[Conversation]:
    conversations = []
    for sample in json.loads(Path(path).read_text(encoding="utf-8")):
        conv = Conversation(sample_id=str(sample["sample_id"]))
        body = sample["conversation"]
        for key, turns in body.items():
            match = re.fullmatch(r"session_(\d+)", key)
            if not match or not isinstance(turns, list) or not turns:
                continue  # dates listed for sessions without turns are skipped
            number = int(match.group(1))
            date = str(body.get(f"session_{number}_date_time", ""))
            for turn in turns:
                text = str(turn.get("text", ""))
                if turn.get("blip_caption"):
                    text += f" [shares a photo: {turn['blip_caption']}]"
                conv.turns.append(Turn(str(turn["dia_id"]), str(turn["speaker"]), text, number, date))
        known = {t.dia_id for t in conv.turns}
        for qa in sample.get("qa", []):
            conv.questions.append(
                Question(
                    text=str(qa["question"]),
                    evidence=parse_evidence(qa.get("evidence"), known),
                    category=int(qa["category"]),
                    answer=str(qa.get("answer", qa.get("adversarial_answer", ""))),
                )
            )
        conversations.append(conv)
    return conversations
