"""The questions a question asks, clause by clause, in its own words: "Why did the Redis outage happen and what
changed after it?" asks two. A clause is cut off only where a whole question begins, so no part of a clause is
ever made into a question of its own ("What did Postgres" of "What did we use for search, Postgres or …")."""

from __future__ import annotations

import re

from apps.core.text import STOP

ASKING = r"what|which|who|whom|whose|where|when|why|how"
AUXILIARY = r"is|are|was|were|am|do|does|did|can|could|should|would|will|shall|may|might|must|has|have|had"
# Where a clause may end before a question begins: a sentence's end, a semicolon, a colon or a dash, a
# conjunction, or a bare comma.
CLAUSE_END = re.compile(
    rf"(?:[.?!]\s+|\s*[;:]\s+|\s+[-–—]\s+|,?\s+(?:and|or|but|so)\s+|(?P<comma>,\s+))"
    rf"(?=(?:{ASKING}|{AUXILIARY}|can't|won't|cannot)\b)",
    re.I,
)
# After a bare comma these open a relative clause ("I moved the notes, which broke the links") unless what comes
# before the comma is a question itself ("When is it, who is on call and …").
RELATIVE = frozenset("which who whom whose where when".split())
ASKED_OF = re.compile(rf"^(?:{ASKING})(?:'s|'re|'d|'ll)?\s+(?P<next>[\w']+)", re.I)  # "what's the …"
# After a question word, a subject pronoun makes a clause of a statement ("when I reopened it", "what we chose").
SUBJECT = frozenset("i we you he she it they".split())
INVERTED = re.compile(rf"^(?:(?:{AUXILIARY})(?:n't)?|can't|won't|cannot)\s+(?P<subject>[\w']+)", re.I)
# After an auxiliary, the subject a question puts there ("is it", "do I", "can Foam", "are the files").
SUBJECT_AFTER_AUXILIARY = frozenset(
    """i we you he she it they there this that these those the a an my our your his her its their any some each
    every all one""".split()
)


def questions_in(text: str) -> list[str]:
    """The whole questions `text` asks, each as written. A clause is cut off where a question begins; a statement
    the text opens with stays with the question after it ("I have a query like …. How does the filter match")."""
    spans, start = [], 0
    for end in CLAUSE_END.finditer(text):
        before, after = text[start : end.start()], text[end.end() :]
        relative = end.group("comma") and after.split(maxsplit=1)[0].lower() in RELATIVE
        if end.start() > start and asks(after) and not (relative and not asks(before)):
            spans.append((start, end.start()))
            start = end.end()
    spans.append((start, len(text)))
    if not asks(text[slice(*spans[0])]):
        spans[:2] = [(0, spans[1][1])] if len(spans) > 1 else []
    return [c for c in (text[a:b].strip(" ,;:") for a, b in spans) if _says_something(c)]


def asks(clause: str) -> bool:
    """Whether a clause is a question as written: a question word not followed by a subject ("how do I", "which
    class styles", not "when I reopened"), or an auxiliary followed by one ("do I have to", "is there")."""
    if found := ASKED_OF.match(clause):
        return found.group("next").lower() not in SUBJECT
    if found := INVERTED.match(clause):
        subject = found.group("subject")
        return subject.lower() in SUBJECT_AFTER_AUXILIARY or subject[:1].isupper()
    return False


def _says_something(clause: str) -> bool:
    return any(w.lower() not in STOP for w in re.findall(r"[A-Za-z0-9']+", clause))
