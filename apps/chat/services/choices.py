"""Why one option and not another: "Why did we choose pgvector instead of Qdrant?" is answered by what the notes say
for the option taken. A note that weighs options says as much of each, in words as close to the question, and the
option not taken is named by the question too: what is said of it alone answers nothing."""

from __future__ import annotations

import re
from collections.abc import Sequence

from apps.chat.services.dates import MONTH_NAMES
from apps.chat.services.spans import (
    ASKS_WHAT_WAS_DECIDED,
    FIRST_SOURCES,
    VAGUE_VERBS,
    Passage,
    Read,
    Span,
    link_labels,
    points_elsewhere,
    read_passage,
    shared_words,
    with_its_items,
    without_names,
)
from apps.core.text import terms, why_over

# A sentence that gives a reason: "…, so it adds no new component", "because …", "which is why …"; "since" only when
# no time follows it ("Since version 0.5.0 it ships …", "since March").
GIVES_A_REASON = re.compile(
    rf"\b(?:because|so|therefore|hence|thus|thanks\s+to|due\s+to|which\s+means|reason|(?:which|that)(?:\s+is|'s)\s+why|"
    rf"since(?!\s+(?:\S+\s+)?v?\d|\s+(?:{'|'.join(MONTH_NAMES)}|then|last|yesterday|early|late)\b))\b",
    re.I,
)
# Verbs a question chooses with, which say nothing of the option: "choose", "use", "prefer".
CHOOSING = set(terms(" ".join((*VAGUE_VERBS, "prefer", "pick", "select", "opt", "adopt"))))


def reason_for_the_choice(question: str, passages: Sequence[Passage]) -> Span | None:
    """For "Why did we choose pgvector instead of Qdrant?", the sentence that speaks for the option taken: the one
    right after a note asks the question itself ("Why would you bother referencing blocks instead of copying over
    their contents? The reason is simple: …"); else, of the first passages and of any section the option heads
    ("### pgvector"), the sentence that says most of the option, itself or by its heading (a reason by the sentence
    before it too: "Celery with Redis. Redis is needed anyway …, so it adds no new component"), then one that gives a
    reason, then the earliest. Not one that only names the option ("Celery with Redis."), names it only as another
    note's title ("following [[ADR-007 Choosing pgvector]]"), only says where it is written, or is of the option not
    taken alone (a sentence under "### Qdrant" that does not say pgvector). None when the question asks no such
    thing or no sentence is left."""
    asked = why_over(question)
    if asked is None:
        return None
    not_taken = set(terms(asked[1]))
    asking = {term for found in ASKS_WHAT_WAS_DECIDED.finditer(question) for term in terms(found.group(0))}
    naming = asking | CHOOSING
    taken = set(terms(asked[0])) - not_taken - naming
    found: list[tuple[tuple[bool, int, bool, int, int], Passage, str]] = []
    for place, passage in enumerate(passages):
        read = read_passage(passage.text, passage.heading)
        sentences = read.sentences if read.prose else []
        titles = link_labels(passage.text)
        for index, sentence in enumerate(sentences):
            heading = read.heading_of.get(sentence, "")
            of_its_section = set(terms(heading)) and set(terms(heading)) <= taken  # "### pgvector"
            if sentence.endswith("?") or points_elsewhere(sentence, passage.text):
                continue
            if place >= FIRST_SOURCES and not of_its_section:
                continue
            own = without_names(sentence, titles)
            reason = GIVES_A_REASON.search(own) is not None
            said = f"{_before(read, sentence, titles)} {own}" if reason else own
            says = shared_words(taken, said, heading)
            of_the_other = shared_words(not_taken, own, heading) and not shared_words(taken, said)
            if says and not of_the_other and not set(terms(own)) <= taken | naming:
                found.append(((False, says, reason, -place, -index), passage, sentence))
        for index, sentence in enumerate(sentences[:-1]):
            answer = sentences[index + 1]
            asks_it = shared_words(taken, sentence) and shared_words(not_taken, sentence)
            if sentence.endswith("?") and asks_it and place < FIRST_SOURCES and not answer.endswith("?"):
                found.append(((True, 0, False, -place, -index), passage, answer))
    if not found:
        return None
    _, passage, sentence = max(found, key=lambda f: f[0])
    whole = with_its_items(sentence, passage.text)
    return Span(whole, passage.number, whole)


def _before(read: Read, sentence: str, titles: set[str]) -> str:
    """The sentence before `sentence` in its paragraph (its line), less the titles of the notes it links to."""
    at = read.sentences.index(sentence)
    before = read.sentences[at - 1] if at else ""
    return without_names(before, titles) if before and read.line_of.get(before) == read.line_of.get(sentence) else ""
