"""Plain text out of Markdown, for reading sentences: wikilinks shown as their labels, emphasis and code marks
dropped, each line and list item on its own."""

from __future__ import annotations

import re


def plain_line(line: str) -> str:
    line = re.sub(r"\[\[([^\]|#]+)(?:#[^\]|]*)?\|([^\]]+)\]\]", r"\2", line)  # [[target|label]] → label
    line = re.sub(r"\[\[([^\]|#]+)(?:#[^\]]*)?\]\]", r"\1", line)
    return re.sub(r"(\*\*|__|`)", "", line).strip(" -*>#\t")


# A full stop after these is no sentence's end ("e.g. the daily note").
ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|vs|cf|approx|Dr|Mr|Mrs|Ms|Fig)\.$", re.IGNORECASE)


def split_sentences(line: str) -> list[str]:
    """A plain line's sentences (more than two characters each); an abbreviation's full stop ends none."""
    pieces: list[str] = []
    for piece in re.split(r"(?<=[.!?])\s+", line):
        if pieces and ABBREVIATIONS.search(pieces[-1]):
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return [p.strip() for p in pieces if len(p.strip()) > 2]


def sentences(text: str) -> list[str]:
    """Sentences of a Markdown text, each list item and line on its own (Markdown marks removed)."""
    out = []
    for line in text.splitlines():
        plain = plain_line(line)
        if plain and not plain.startswith("---"):
            out += split_sentences(plain)
    return out
