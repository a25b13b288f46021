"""Plain text out of Markdown, for reading sentences: wikilinks shown as their labels, emphasis and code marks
dropped, each line and list item on its own."""

from __future__ import annotations

import re


def plain_line(line: str) -> str:
    line = re.sub(r"\[\[([^\]|#]+)(?:#[^\]|]*)?\|([^\]]+)\]\]", r"\2", line)  # [[target|label]] → label
    line = re.sub(r"\[\[([^\]|#]+)(?:#[^\]]*)?\]\]", r"\1", line)
    return re.sub(r"(\*\*|__|`)", "", line).strip(" -*>#\t")


def sentences(text: str) -> list[str]:
    """Sentences of a Markdown text, each list item and line on its own (Markdown marks removed)."""
    out = []
    for line in text.splitlines():
        plain = plain_line(line)
        if plain and not plain.startswith("---"):
            out += [s.strip() for s in re.split(r"(?<=[.!?])\s+", plain) if len(s.strip()) > 2]
    return out
