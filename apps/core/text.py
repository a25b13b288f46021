"""English text, read the one way every room reads it: stop words and content terms, names and numbers, what a
question asks for, and time expressions.

Model-free on purpose: these run on every message (significance, search, the gate, the walk, feedback) and on every
note the graph reads, so they cost microseconds and never call out.
"""

from __future__ import annotations

import re

# The same stem on both sides of every comparison of words: "decide" meets "decided", "facilitated" "facilitator"
from apps.core.porter import stem

STOP = frozenset(
    """
    a an the and or but if of to in on at by for with about from into over after before between is are was were
    be been being am do does did done doing have has had having i me my we our you your he him his she her it
    its they them their this that these those what which who whom whose when where why how there here not no yes
    so than then too very can could should would will shall may might must just also any some all each every
    both few more most other such only own same as up down out off again further once s t don ever much many
    like get got go going went make made take took say said tell know think
    """.split()
)
MONTHS = frozenset("january february march april may june july august september october november december".split())
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())

# "Why did we choose pgvector instead of Qdrant?", "Why Celery and not a Postgres queue?", "Why X over Y?": what was
# chosen, then what was not. "over" is read only where none of the others is: "why did we move over to Celery
# instead of RQ" weighs Celery against RQ.
_WHY_NOT = re.compile(
    r"^\s*why\b(?P<chosen>.+?)\s+(?:instead\s+of|rather\s+than|and\s+not)\s+(?P<other>.+?)[\s?.!]*$", re.I
)
_WHY_OVER = re.compile(r"^\s*why\b(?P<chosen>.+?)\s+over\s+(?P<other>.+?)[\s?.!]*$", re.I)


# "over" weighs options after a verb of choosing, or after a bare option ("Why Postgres over MySQL?"); after any
# other verb it is a quantity or a place ("Why is the import taking over an hour?").
_CHOOSING = re.compile(
    r"\b(?:choos\w*|chose\w*|pick\w*|prefer\w*|us(?:e|ed|ing)|go(?:ne)?\s+with|went\s+with|switch\w*|opt(?:ed)?|"
    r"select\w*|adopt\w*|kept|keep)\b",
    re.I,
)
_AUXILIARY = re.compile(r"^(?:is|are|was|were|am|be|been|does|do|did|has|have|had|can|could|would|should|will)\b", re.I)


def why_over(question: str) -> tuple[str, str] | None:
    """A why-question that weighs one option against another: (what it asks of the one chosen, the other one)."""
    found = _WHY_NOT.match(question)
    if found is None and (over := _WHY_OVER.match(question)):
        chosen = over.group("chosen").strip()
        found = over if _CHOOSING.search(chosen) or not _AUXILIARY.match(chosen) else None
    return (found.group("chosen").strip(), found.group("other").strip()) if found else None


# A capitalised word or run of them that does not open a sentence: a name the text mentions.
NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)*\b")
NUMBER = re.compile(r"\b\d[\d.,:/-]*\b")

# The one "when" detector: a question that asks for a point in time.
ASKS_WHEN = re.compile(r"^\s*(when|what (year|month|day|date|time)|how long ago)\b", re.I)
TIME_EXPRESSION = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|last|next|ago|week|weekend|month|year|morning|evening|night|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|since|until|recently|\d{4}|\d{1,2}(st|nd|rd|th))\b",
    re.I,
)
# A question about the latest state of things.
RECENCY = re.compile(
    r"\b(latest|recent(ly)?|last|now|current(ly)?|changed?|new|since|lately|today|this (week|month))\b", re.I
)

QUESTION_WORD = re.compile(
    r"^(when|where|who|whom|whose|why|how\s+(?:many|much|long|often|old|far)|how|what|which|would|could|should|"
    r"can|is|are|was|were|did|does|do|has|have|will|if|whether)\b",
    re.I,
)
# Neither a filler nor a polite lead-in is what the question asks for: "So, can you tell me when …" asks when.
FILLER = re.compile(r"^\W*(?:(?:please|so|and|hey|ok|okay|well)\b\W*)*", re.I)
LEAD_IN = re.compile(
    r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:tell|remind|show)\s+me|"
    r"(?:do|does)\s+(?:you|anyone|anybody)\s+(?:know|remember)|(?:tell|remind|show)\s+me|i\s+(?:wonder|forgot)|"
    r"any\s+idea)\b\W*",
    re.I,
)
YES_NO = frozenset("would could should can is are was were did does do has have will if whether".split())


def terms(text: str) -> list[str]:
    """The stems of a text's content words, in order (stop words and single characters left out)."""
    return [stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP and len(w) > 1]


def names_in(text: str) -> set[str]:
    """The names a text mentions, lowercased."""
    return {m.lower() for m in NAME.findall(text.strip())} - STOP


def opening_word(question: str) -> str | None:
    """The question word a question opens with, exactly as written (lowercased), or None."""
    match = QUESTION_WORD.match(question.strip())
    return match.group(1).lower() if match else None


def bare_question(question: str) -> str:
    """The question less a filler and a polite lead-in ("So can you tell me who …" is "who …")."""
    return LEAD_IN.sub("", FILLER.sub("", question.strip(), count=1), count=1)


def asked_for(question: str) -> str:
    """The kind of answer a question asks for: its question word ("when", "who", "how many", …, after a polite
    lead-in such as "can you tell me"), "yes-no" for a question that opens with an auxiliary, "other" for anything
    else."""
    match = QUESTION_WORD.match(bare_question(question))
    if match is None:
        return "other"
    word = " ".join(match.group(1).lower().split())
    return "yes-no" if word in YES_NO else "who" if word in ("whom", "whose") else word


def asks_when(question: str) -> bool:
    return bool(ASKS_WHEN.search(question))


# "What is a cloze?", "What does the reload tool do?": what a thing is, asked by the name a note may have.
ASKS_WHAT_IT_IS = re.compile(
    r"^\s*(?:what(?:'s|\s+is|\s+are)\s+(?:an?\s+|the\s+)?(.{1,60}?)|what\s+does\s+(?:an?\s+|the\s+)?(.{1,60}?)\s+do)"
    r"\s*\??\s*$",
    re.I,
)
IN_WHAT = re.compile(r"\s+(?:in|on|of|for|with)\s+\S+$", re.I)  # "… in Logseq", "… on mobile"


def thing_asked_about(question: str) -> str | None:
    """The thing a question asks what it is ("a namespace in Logseq" of "What is a namespace in Logseq?"), or None."""
    asked = ASKS_WHAT_IT_IS.match(question)
    return (asked.group(1) or asked.group(2)) if asked else None


def names_of_thing(thing: str) -> list[set[str]]:
    """The word sets that name the thing asked about: as asked, and without the app or place it is asked in ("What
    is a namespace in Logseq?": the page is "Namespaces", in the app the vault is about)."""
    return [named for named in (set(terms(thing)), set(terms(IN_WHAT.sub("", thing)))) if named]


def titled_as(title: str, names: list[set[str]]) -> bool:
    """Whether a note's title names the thing (a Logseq namespace's page by its own name too: "setting/Themes")."""
    return any(set(terms(t)) == named for t in {title, title.rsplit("/", 1)[-1]} for named in names)
