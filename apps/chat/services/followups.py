"""Reading a message in the context of its conversation (answer path, step 1): a follow-up such as "and before
that?" or "what did she say about it" borrows its subject from the question before it, before anything is
searched. Model-free: an opening that continues ("and…", "what about…") or a pronoun with nothing to point at
inside the message marks a follow-up; the previous question (itself already resolved) supplies the subject."""

from __future__ import annotations

import re

from apps.core.text import names_in, terms

CONTINUES = re.compile(
    r"^\s*(and|but|or|also|so|then|what about|how about|what else|anything else|before that|after that|"
    r"and then|same for|why not|why so|how come|really)\b",
    re.I,
)
POINTERS = {
    "she",
    "he",
    "it",
    "they",
    "them",
    "her",
    "him",
    "his",
    "hers",
    "its",
    "their",
    "theirs",
    "that",
    "this",
    "those",
    "these",
    "there",
    "then",
    "one",
    "ones",
    "same",
}
CARRY_CHARS = 400  # how much of the earlier question a follow-up carries


def opens_as_a_follow_up(message: str) -> bool:
    """An opening that continues the previous question ("and…", "what about…"), whatever else the message says."""
    return bool(CONTINUES.search(message))


def needs_context(message: str) -> bool:
    if opens_as_a_follow_up(message):
        return True
    words = set(re.findall(r"[a-z']+", message.lower()))
    has_own_subject = bool(names_in(message)) or len(terms(message)) >= 5
    return bool(words & POINTERS) and not has_own_subject


def resolve(message: str, earlier: list[str]) -> str:
    """The text to search for `message`, given the conversation's earlier resolved questions (oldest first)."""
    if not earlier or not needs_context(message):
        return message
    return f"{earlier[-1][-CARRY_CHARS:]} {message}"
