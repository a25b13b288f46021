"""A template asked about, laid out: "What do I fill in for a grocery item?" or "Where would I keep the date a person
was born?" asks how a kind of note is laid out, and a vault that keeps a template per kind of note (an embed and
properties whose values are empty or template variables, `created: {{date}}`) answers with the template's fields.
An empty value says nothing, so the span rules find no sentence in a template to lead with."""

from __future__ import annotations

import re
from collections.abc import Sequence

from apps.chat.services.spans import Passage, Span, property_value, shared_words
from apps.core.text import asked_for, asks_when, terms
from apps.notes.blocks import OUTLINE
from apps.notes.markdown import heading_match

# Words that ask how a note of some kind is laid out; they ask it whatever the question's kind.
ASKS_FOR_A_LAYOUT = re.compile(r"\b(?:templates?|fields?|layout|fill(?:ed)?\s+in)\b", re.I)
# Words that ask where something is kept in a note, asked as "where" or "how" ("Where do I store someone's phone
# number?", "How do I log a place where I ate out?"); "What price did I record …?" asks for a value.
ASKS_WHERE_IT_IS_KEPT = re.compile(r"\b(?:keep|kept|store|stored|log|logged|record|recorded)\b", re.I)
KEPT_KINDS = ("where", "how")
# A template variable as a value: Obsidian's `{{date}}`, `{{time}}`, `{{title}}` (with a format or not), Foam's.
TEMPLATE_VARIABLE = re.compile(r"\{\{\s*(?:date|time|title)\b[^{}]*\}\}|\$\{?FOAM_[A-Z_]+\}?", re.I)
# A property line as a note's frontmatter is read into a passage: its key may hold digits, dashes or spaces
# ("monthly-uses") and its value may be empty ("birthday:"), which a label of prose (`spans.KIND_LABEL`) may not.
PROPERTY = re.compile(r"^(?P<key>[A-Za-z][\w -]{0,30}?):(?:\s|$)")
EMBEDDED = re.compile(r"!\[\[([^\]|#]+)")
EMPTY_VALUES = ("", "[]", '""', "''")


def template_laid_out(question: str, passages: Sequence[Passage]) -> Span | None:
    """The first template among the passages that the question asks about, laid out: the properties it leaves to fill
    in, the ones it sets, its sections and what it embeds ("People Template: birthday, org, created to fill in; sets
    categories: People; shows Meetings.base"). A question that asks a value the template sets ("What tag does the
    Evergreen Template use?") is answered by that value, not the layout."""
    kind = "when" if asks_when(question) else asked_for(question)
    laid_out_asked = ASKS_FOR_A_LAYOUT.search(question) is not None
    if not (laid_out_asked or (ASKS_WHERE_IT_IS_KEPT.search(question) and kind in KEPT_KINDS)):
        return None
    wanted = set(terms(question))
    for passage in passages:
        lines = _properties(passage)
        to_fill = [key for key, value in lines if _left_to_fill(value)]
        set_ones = [(key, value) for key, value in lines if not _left_to_fill(value)]
        if not _is_a_template(passage, lines, to_fill):
            continue
        if any(set(terms(key)) & wanted for key, _ in set_ones):
            return None  # the question asks what the template sets ("tags: 0🌲")
        said = f"{passage.title} {' '.join(to_fill)} {' '.join(value for _, value in set_ones)}"
        if not laid_out_asked and passage is not passages[0] and not shared_words(wanted, said):
            # "Where do I keep …?" asks of a kind of note: below the passage search ranked first, a template must
            # name what is asked to be of that kind
            continue
        parts = [f"{', '.join(to_fill)} to fill in"]
        if set_ones:
            parts.append(f"sets {'; '.join(f'{key}: {value}' for key, value in set_ones)}")
        if sections := _sections(passage.text):
            parts.append(f"sections {', '.join(sections)}")
        if shown := list(dict.fromkeys(embed.group(1).strip() for embed in EMBEDDED.finditer(passage.text))):
            parts.append(f"shows {', '.join(shown)}")
        laid_out = f"{passage.title}: {'; '.join(parts)}"
        return Span(laid_out, passage.number, laid_out)
    return None


def _properties(passage: Passage) -> list[tuple[str, str]]:
    """The note's properties as (key, value): its own, or, for a note made only of them, its text (a page that quotes
    a template's frontmatter in an example has a body, and its example is no property of its own)."""
    written = [line.strip() for line in passage.text.splitlines() if line.strip()]
    block = passage.properties or (passage.text if all(PROPERTY.match(line) for line in written) else "")
    found = [(line.strip(), PROPERTY.match(line.strip())) for line in block.splitlines()]
    return [(match["key"], property_value(line)) for line, match in found if match]


def _is_a_template(passage: Passage, lines: list[tuple[str, str]], to_fill: list[str]) -> bool:
    """Two of three: a template variable for a value, a title that says it is a template, most of its properties left
    to fill. A note made from a template can keep a `created: {{date}}` nobody filled in, and a note can leave most of
    its properties empty; a "Coffee Template" with no variable is a template all the same."""
    if not to_fill:
        return False
    signs = (
        any(TEMPLATE_VARIABLE.search(value) for _, value in lines),
        "template" in passage.title.lower(),
        2 * len(to_fill) >= len(lines),
    )
    return sum(signs) >= 2


def _left_to_fill(value: str) -> bool:
    return value in EMPTY_VALUES or TEMPLATE_VARIABLE.search(value) is not None


def _sections(text: str) -> list[str]:
    sections, in_code = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        elif not in_code and (found := heading_match(OUTLINE.sub("", line).strip())):
            sections.append(found[1])
    return sections
