"""Prompt building blocks shared by every room that sends text to a model."""

from __future__ import annotations

import re

# Every tag a prompt wraps quoted text in. Quoted text is sent as written (a model copies code spans, quotes and
# apostrophes from it), so only these tags, in any case, width or spacing, are disarmed.
FENCE_TAGS = ("source", "candidate", "question", "note", "answer", "message", "conversation", "card", "concept", "pair")


def _any_width(char: str) -> str:
    return f"[{re.escape(char)}{chr(ord(char) + 0xFEE0)}]" if "!" <= char <= "~" else re.escape(char)


_FENCE_OPENER = re.compile(
    r"[<＜﹤](?=\s*[/／]?\s*(?:" + "|".join("".join(map(_any_width, tag)) for tag in FENCE_TAGS) + r")(?!\w))",
    re.IGNORECASE,
)
DISARMED_BRACKET = "‹"


def quote(text: str) -> str:
    """Text to sit between prompt delimiters, unchanged but for the bracket of any tag that could open or close one."""
    return _FENCE_OPENER.sub(DISARMED_BRACKET, text)


def quote_attribute(text: str) -> str:
    """Text to sit in a delimiter's double-quoted attribute, which it cannot end."""
    return quote(text).replace('"', "'").replace("\n", " ")
