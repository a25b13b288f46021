"""Reading a message in the context of its conversation (answer path, step 1): a follow-up such as "and before
that?", "what did she say about it" or "what was the root cause?" borrows its subject from the question before it,
before anything is searched. Model-free: an opening that continues ("and…", "what about…"), a pronoun with nothing
to point at inside the message, or a thing that is always something's ("the root cause", "the deadline") asked for
without saying whose marks a follow-up; the previous question (itself already resolved) supplies the subject."""

from __future__ import annotations

import re

from apps.core.text import asked_for, names_in, terms

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
# Things that are always of something: "the root cause" is the cause of whatever was asked about before, "the
# postmortem" (said last, not "the postmortem template") that of the incident, unless the message says what of ("the
# root cause of the TLS outage").
_ALWAYS_OF_SOMETHING = (
    r"\bthe\s+(?:\w+\s+)?(?:cause|reason|fix|workaround|solution|outcome|result|impact|effect|consequence|owner|"
    r"author|deadline|status|cost|price|timeline|decision|next steps?|lessons?(?: learned)?|takeaways?|conclusion|"
    r"downside|upside|risks?|symptoms?|trigger|duration|verdict|ending|(?:postmortem|post-mortem|write-?up)"
    r"(?=\s*(?:[?.!,]|$)))s?\b"
)
OF_SOMETHING = re.compile(
    rf"{_ALWAYS_OF_SOMETHING}(?!(?:\s+learned)?\s+(?:of|for|to|behind|in|on|with|from|about|at)\b)", re.I
)
# The same things asked for with what they are of ("the root cause of …"): a follow-up that asks its own question
# ("and who wrote it up?") carries what the earlier one was about, not what it asked for, which would find that part
# of the notes instead; one that asks the earlier question of another thing ("and the payments service?", "what
# about the TLS one?") carries it whole.
ASKED_OF = re.compile(rf"{_ALWAYS_OF_SOMETHING}\s+(?:of|for|behind)\s+", re.I)
ASKS_AGAIN = re.compile(r"^\W*(?:and\s+|but\s+)?(?:(?:what|how)\s+about|what\s+else)\b", re.I)
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


def read_as(message: str, resolved: str) -> tuple[str, str]:
    """The question the offline answer reads, and the subject it carries: a follow-up with words of its own is read
    for them ("how long did it take?" asks for a duration, not for the root cause asked before), its subject only
    telling equally close sentences apart ("When did he join?" after "Who leads the platform team?": the sentence
    about the platform team's lead, not another's); any other message is read as resolved, with no subject."""
    if resolved == message or not terms(message):
        return resolved, ""
    return message, resolved.removesuffix(message).strip()


def resolve(message: str, earlier: list[str]) -> str:
    """The text to search for `message`, given the conversation's earlier resolved questions (oldest first)."""
    if not earlier or not needs_context(message):
        return message
    asks_its_own = asked_for(message) not in ("other", "yes-no") and not ASKS_AGAIN.match(message)
    carried = ASKED_OF.sub("", earlier[-1]) if asks_its_own else earlier[-1]
    return f"{carried[-CARRY_CHARS:]} {message}"
