"""The Librarian's own notes (filed exchanges, daily logs, summaries: provenance `summary`) record conversations,
not the team's knowledge: an ordinary question is answered from what people wrote, and a filed note is a
candidate only when the question asks about past conversations, names the note, or reached it through the
temporal walk over the summaries ("what changed about X"). Where a person searches, a filed note is still found,
after what people wrote: it quotes the passages it was filed from, and those are what a reader is after."""

from __future__ import annotations

import re
from collections.abc import Sequence

from apps.core.auth import Requester
from apps.notes.models import Note, Provenance
from apps.notes.selectors import readable_notes
from apps.retrieval.candidates import Candidate
from apps.retrieval.search import SearchHit
from apps.retrieval.snippets import readable_snippet

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


def filed_notes_last(*, user: Requester, query: str, hits: Sequence[SearchHit]) -> list[tuple[SearchHit, bool]]:
    """Each hit and whether the Librarian filed its note: the people's notes first, the Librarian's after them,
    each in the search's order; a query about past conversations keeps the search's order."""
    notes = Note.objects.filter(readable_notes(user), pk__in=[hit.note for hit in hits])
    filed = set(notes.filter(provenance=Provenance.SUMMARY).values_list("pk", flat=True))
    marked = [(hit, hit.note in filed) for hit in hits]
    if asks_about_conversations(query):
        return marked
    return sorted(marked, key=lambda pair: pair[1])


def search_results(*, user: Requester, query: str, hits: Sequence[SearchHit]) -> list[dict[str, object]]:
    """The hits as the search API and the MCP search give them: the Librarian's filed notes last and marked, each
    snippet also as a reader meets it."""
    return [
        {**hit.__dict__, "filed": filed, "snippet_text": readable_snippet(hit.snippet)}
        for hit, filed in filed_notes_last(user=user, query=query, hits=hits)
    ]
