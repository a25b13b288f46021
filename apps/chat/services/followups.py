"""Reading a message in the context of its conversation (answer path, step 1): a follow-up such as "and before
that?", "what did she say about it" or "what was the root cause?" borrows its subject from the question before it,
before anything is searched. Model-free: an opening that continues ("and…", "what about…"), a pronoun with nothing
to point at inside the message, or a thing that is always something's ("the root cause", "the deadline") asked for
without saying whose marks a follow-up; the previous question (itself already resolved) supplies the subject."""

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
# Things that are always of something: "the root cause" is the cause of whatever was asked about before, unless the
# message says what of ("the root cause of the TLS outage").
_OF_SOMETHING = (
    r"\bthe\s+(?:\w+\s+)?(?:cause|reason|fix|workaround|solution|outcome|result|impact|effect|consequence|owner|"
    r"author|deadline|status|cost|price|timeline|decision|next steps?|lessons?(?: learned)?|takeaways?|conclusion|"
    r"downside|upside|risks?|symptoms?|trigger|duration|verdict|ending)s?\b"
)
OF_SOMETHING = re.compile(rf"{_OF_SOMETHING}(?!\s+(?:of|for|to|behind|in|on|with)\b)", re.I)
# The same thing asked for with what it is of: a follow-up carries what it is of ("the Redis outage"), not the thing
# asked for before ("the root cause"), which would outweigh what is asked now.
ASKED_OF = re.compile(rf"{_OF_SOMETHING}\s+(?:of|for|behind)\s+", re.I)
OWN_SUBJECT_TERMS = 5  # a message with this many words that mean something says what it is about
CARRY_CHARS = 400  # how much of the earlier question a follow-up carries


def opens_as_a_follow_up(message: str) -> bool:
    """An opening that continues the previous question ("and…", "what about…"), whatever else the message says."""
    return bool(CONTINUES.search(message))


def needs_context(message: str) -> bool:
    if opens_as_a_follow_up(message):
        return True
    words = set(re.findall(r"[a-z']+", message.lower()))
    if names_in(message):
        return False
    if OF_SOMETHING.search(message) and len(terms(message)) < OWN_SUBJECT_TERMS:
        return True
    return bool(words & POINTERS) and len(terms(message)) < OWN_SUBJECT_TERMS


def asked_now(message: str, resolved: str) -> str:
    """What the offline answer reads a follow-up as: its own words, which say what is asked now ("how long did it
    take?" asks for a duration, not for the root cause asked before), when it has any; the resolved question found
    the passages it reads, and the subject's words would outweigh the follow-up's ("and how long does it rest?"
    after "How do I bake the focaccia?" would answer with the baking time)."""
    return message if resolved != message and terms(message) else resolved


def resolve(message: str, earlier: list[str]) -> str:
    """The text to search for `message`, given the conversation's earlier resolved questions (oldest first)."""
    if not earlier or not needs_context(message):
        return message
    return f"{ASKED_OF.sub('', earlier[-1])[-CARRY_CHARS:]} {message}"
