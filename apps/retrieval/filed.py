"""The Librarian's own notes (filed exchanges, daily logs, summaries: provenance `summary`) record conversations,
not the team's knowledge: an ordinary question is answered from what people wrote, and a filed note is a
candidate only when the question asks about past conversations, names the note, or reached it through the
temporal walk over the summaries ("what changed about X")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from apps.notes.models import Provenance
from apps.retrieval.candidates import Candidate

PAST_CONVERSATIONS = re.compile(
    r"\b(what|which|when)\b.{0,40}\b(we|i|you)\s+(discuss(ed)?|talk(ed)?|chat(ted)?|sa(id|y)|decide[d]?|ask(ed)?)\b"
    r"|\blast time (we|i|you)\b"
    r"|\b(our|my|previous|earlier|past|last|recent|yesterday's|today's)\s+(conversations?|chats?|discussions?|"
    r"exchanges?|talks?)\b"
    r"|\b(we|i)\s+(discussed|talked about|spoke about|chatted about)\b"
    r"|\b(daily logs?|librarian|filed notes?|summar(y|ies) of)\b",
    re.IGNORECASE,
)

_NAMING_MARKS = (("[[", "]]"), ('"', '"'), ("'", "'"), ("“", "”"), ("‘", "’"))


def asks_about_conversations(question: str) -> bool:
    """Whether the question is about earlier conversations ("what did we discuss …", "last time we talked")."""
    return bool(PAST_CONVERSATIONS.search(question))


def _named(candidate: Candidate, question: str) -> bool:
    """Whether the question names the note as a note: its title quoted or wikilinked, or its path. A filed
    exchange is titled with the question it filed, so a title the question merely contains does not count."""
    title, asked = candidate.title.strip().lower(), question.lower()
    if len(title) < 4:
        return False
    named = (f"{opening}{title}{closing}" for opening, closing in _NAMING_MARKS)
    return candidate.path.lower() in asked or any(n in asked for n in named)


def without_filed_notes(question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    """`candidates` less the Librarian's notes, unless the question calls for them (module docstring)."""
    if asks_about_conversations(question):
        return list(candidates)
    return [
        c
        for c in candidates
        if c.provenance != Provenance.SUMMARY or _named(c, question) or (c.trace and c.trace.summary is not None)
    ]
