"""The answer a reader wants, read off the passages without a model: for "when" a date (resolved against the
passage's own date), for "who" a person, for "where" a place, for "how many" a number, for "how do I" the key to
press or the command to type, otherwise the best sentence itself. Only prose is read: headings, code blocks, HTML,
table rows, callout markers and empty list items are never an answer, and a property or a list of links only when
the passages have no sentence."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date

from apps.chat.services.dates import said_on, when_in, written_on
from apps.core.text import STOP, asked_for, asks_when, terms
from apps.notes.text import names_only, plain_line, prose_lines, split_sentences

# A conversation turn as the passages carry it: "<time> on <date>: <Speaker>: <text>".
TURN = re.compile(r"^\s*(?:[^\n]{0,40}?\d{4}:\s+)?([A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?):\s+(.*)$", re.S)
DATE_PREFIX = re.compile(r"^\s*[^\n]{0,40}?\d{4}:\s+")
# A question that asks what to press or type: "how do I …", or one that asks which shortcut, key or command.
ASKS_WHAT_TO_TYPE = re.compile(
    r"^\s*how (do|can|to|should|would)\b|\b(shortcut|hotkey|keybinding|keystroke)s?\b"
    r"|\b(which|what)('s|\s+is|\s+are)?\s+(the\s+)?(\w+\s+)?(key|keys|command)s?\b",
    re.I,
)
# Markers, and a line that only embeds a note or an image: what a page shows, not what it says.
NOT_AN_ANSWER = re.compile(
    r"^\s*(#{1,6}\s|\||>\s*\[!|[-*+]\s*(\[.\]\s*)?$|```|---|\[!|([-*+]\s+)?#\+\w"
    r"|([-*+]\s+)?!\[\[[^\]]*\]\]\s*$|([-*+]\s+)?!\[[^\]]*\]\([^)]*\)\s*$)"
)
KEYS = re.compile(
    r"\b(?:(?:Ctrl|Control|Cmd|Command|Alt|Option|Shift|Super|Win|Mod|Meta)\s*[-+]\s*)+(?:[A-Za-z0-9]|F\d{1,2}|"
    r"Enter|Return|Tab|Space|Esc|Escape|Up|Down|Left|Right|Delete|Backspace|[,./;\[\]'`=-])\b"
)
CODE = re.compile(r"`([^`\n]+)`")
HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
# Code a reader can type as it stands: a slash command ("/Code block"), an editor's palette command ("Foam: Open
# Daily Note"), a sequence of keys ("t r"), or a command line (a program and its arguments) that the sentence hands
# over ("run `yarn install`") or that takes options. Other code is a name, a value or a placeholder ("note-name",
# "filename format"), which answers nothing on its own.
TYPED_COMMAND = re.compile(
    r"^(?:/[A-Za-z][\w-]*(?:\s+[\w-]+)*"
    r"|[A-Z][\w-]*(?:\s[A-Z][\w-]*)*:\s+[A-Z][\w-]*(?:\s+[\w-]+)*"
    r"|[a-z0-9](?:\s+[a-z0-9])+)$"
)
COMMAND_LINE = re.compile(r"^[a-z][\w.-]*(?:\s+\S+)+$")
OPTION = re.compile(r"\s--?[a-z]")
HANDED_OVER = re.compile(
    r"\b(run|running|type|typing|enter|execute|invoked? as|press|pressing|use|using)\s*:?\s*$", re.I
)
NUMBER_WORDS = re.compile(
    r"\b(\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|twice|once|"
    r"a couple|a few|several)\b",
    re.I,
)
PERSON = re.compile(r"\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\b")
PLACE = re.compile(r"\b(?:in|at|to|from|near)\s+((?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")
# The answer is read from the best sentence of the first two passages: the closest to the question, then the most
# particular, then the earlier passage (chosen on LoCoMo dev conv-26 and conv-30; docs/evaluation.md).
FIRST_SOURCES = 2


@dataclass(frozen=True)
class Passage:
    number: int
    text: str


@dataclass(frozen=True)
class Span:
    text: str
    number: int  # the passage it was read from, for its citation
    sentence: str


def _lines(text: str) -> tuple[str | None, date | None, list[str], bool]:
    """The passage's speaker (for a conversation turn), the date it carries, its readable sentences, and whether they
    are prose: a passage without a sentence offers its properties and lists of links instead (`names_only`)."""
    said = written_on(text[:60])
    speaker = None
    match = TURN.match(text)
    if match and said:
        speaker, text = match.group(1), match.group(2)
    elif said:
        text = DATE_PREFIX.sub("", text, count=1)
    prose: list[str] = []
    named: list[str] = []
    for raw in prose_lines(text):
        if NOT_AN_ANSWER.match(raw) or _mostly_tags(raw):
            continue
        plain = plain_line(raw)
        if len(plain) < 3 or (plain.endswith(":") and len(plain.split()) < 8):  # a heading or a label, not a statement
            continue
        (named if names_only(raw) else prose).extend(split_sentences(plain))
    return speaker, said, prose or named, bool(prose)


def _mostly_tags(line: str) -> bool:
    """HTML more than text: a piece of a page's markup (a long HTML block cut into chunks reads as prose)."""
    return sum(len(tag) for tag in HTML_TAG.findall(line)) * 2 > len(line)


def statements(text: str) -> tuple[list[str], bool]:
    """A passage's sentences a reader can take as statements (no headings, table rows, markers or empty items), and
    whether they are prose rather than the properties and lists of links of a passage without a sentence."""
    return _lines(text)[2:]


def _specific(sentence: str, question: str) -> int:
    """Names and numbers the sentence adds to the question: between equally close sentences, the one that says
    something particular ("called Pixel") answers, the one that only repeats the topic does not."""
    asked = {w.lower() for w in PERSON.findall(question)}
    named = (m.group(0).lower() for m in PERSON.finditer(sentence) if m.start() > 0)  # not the sentence's opener
    names = {n for n in named if n not in asked and n not in STOP}
    return len(names) + len(NUMBER_WORDS.findall(sentence))


def _overlap(sentence: str, wanted: set[str]) -> int:
    return len(wanted & set(terms(sentence)))


def _span(kind: str, question: str, sentence: str, speaker: str | None, said: date | None) -> str | None:
    asked_names = {w.lower() for w in PERSON.findall(question)}
    if kind == "when":
        found = when_in(sentence, said)
        return found or (said_on(said) if said else None)
    if kind == "who":
        names = [n for n in PERSON.findall(sentence) if n.lower() not in asked_names and n.lower() not in STOP]
        names = [n for n in names if n != sentence.split()[0] or len(names) == 1]
        if names:
            return names[0]
        return speaker if speaker and speaker.lower() not in asked_names else None
    if kind == "where":
        places = [p for p in PLACE.findall(sentence) if p.split()[-1].lower() not in asked_names]
        return places[0] if places else None
    if kind in ("how many", "how much", "how often", "how long", "how old"):
        number = NUMBER_WORDS.search(sentence)
        return number.group(0) if number else None
    return None


def _what_to_type(question: str, sentence: str, text: str) -> str | None:
    """The key or the command the answering sentence gives (its code read from the passage's Markdown), unless the
    question already names it."""
    asked = question.lower()
    keys = [match.group(0) for match in KEYS.finditer(sentence)]
    commands = [code for code in _commands(text) if code in sentence]
    return next((found for found in [*keys, *commands] if found.lower() not in asked), None)


def _commands(text: str) -> Iterator[str]:
    """The passage's inline code that can be typed as it stands (TYPED_COMMAND, COMMAND_LINE)."""
    for match in CODE.finditer(text):
        code = match.group(1).strip()
        before = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        if TYPED_COMMAND.match(code) or (
            COMMAND_LINE.match(code) and (OPTION.search(code) or HANDED_OVER.search(before))
        ):
            yield code


def answer_span(
    question: str,
    passages: Sequence[Passage],
    *,
    first: int = FIRST_SOURCES,
    closeness: Callable[[str], float] | None = None,
) -> Span | None:
    """The answer's lead, read from the first `first` passages in their order; None when none of them holds a
    statement. A sentence's closeness to the question is the words they share, unless `closeness` scores it (the
    benchmark's variants, `bench/answer_spans.py`)."""
    wanted = set(terms(question))
    kind = "when" if asks_when(question) else asked_for(question)
    candidates = []
    for place, passage in enumerate(passages[:first]):
        speaker, said, lines, prose = _lines(passage.text)
        for line in lines:
            if line.endswith("?"):
                continue  # a question asked back is no answer
            score = closeness(line) if closeness else _overlap(line, wanted)
            candidates.append((prose, score, _specific(line, question), -place, passage, speaker, said, line))
    if not candidates:
        return None
    candidates.sort(key=lambda c: c[:4], reverse=True)
    *_, passage, speaker, said, sentence = candidates[0]
    if ASKS_WHAT_TO_TYPE.search(question) and (typed := _what_to_type(question, sentence, passage.text)):
        return Span(typed, passage.number, sentence)
    typed = _span(kind, question, sentence, speaker, said)
    if typed:
        return Span(typed, passage.number, sentence)
    return Span(sentence, passage.number, sentence)
