"""What kind of walk a message asks for (answer path step 3): `what` walks an entity's core aspects, `relate`
the dependencies between two, `should` procedures and constraints, `changed` by recency, `lookup` answers one
who / when / where / how-many fact, and `chatter` walks nothing. Model-free rules over the question's shape."""

from __future__ import annotations

import re

from apps.core.text import opening_word
from apps.retrieval.significance import significance

INTENTS = ("what", "relate", "should", "changed", "lookup", "chatter")
RELATE = re.compile(
    r"\b(both|in common|relat(e|es|ed|ion|ionship) (to|with|between)|connect(ed|ion)? (to|with|between)|"
    r"compar(e|ed|ison)|differ(ence|ent)?|versus|vs\.?|similar(ity|ities)?|same|share[sd]?)\b",
    re.I,
)
SHOULD = re.compile(
    r"^\s*(what|how) (should|do|can|could) (i|we|you)\b|\b(should (i|we)|how (do|can) (i|we)|how to|"
    r"recommend|advice|advise|procedure|steps to|best way)\b",
    re.I,
)
CHANGED = re.compile(
    r"\b(chang(e|ed|es|ing)|evolv(e|ed)|latest|most recent|recently|now|any more|anymore|no longer|"
    r"transform(ed|ation)?|since|update[sd]?|progress(ed)?|become|became)\b",
    re.I,
)
LOOKUP = re.compile(
    r"^\s*(when|where|who|whom|whose|which (cit(y|ies)|countr(y|ies)|places?|year|month|day|person|people|states?)|"
    r"what (year|month|day|date|time|city|country|place|state|age|number|name|nickname)|how (many|much|long|old|"
    r"often|far)|in what (year|month|city|country)|on what date)\b",
    re.I,
)


def intent_of(question: str) -> str:
    text = question.strip()
    if not significance(text).significant:
        return "chatter"
    if opening_word(text) in ("when", "where", "who"):
        return "lookup"
    if RELATE.search(text):
        return "relate"
    if SHOULD.search(text):
        return "should"
    if CHANGED.search(text):
        return "changed"
    if LOOKUP.search(text):
        return "lookup"
    return "what"
