"""A search hit's snippet: the stretch of its chunk around the matches, cut where a reader would cut it.

The database marks every match in the whole chunk (`«word»`); the snippet is chosen here. It starts at a sentence
or line where it can, else at a word, and ends at one; "…" stands where text of the chunk was left out before or
after it. A wikilink or Markdown link counts as one word, so no cut opens one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from apps.notes.markdown import heading_match
from apps.notes.text import ABBREVIATIONS, readable_text

SNIPPET_CHARS = 300
CUT_BEFORE = "… "
CUT_AFTER = " …"
MARK = re.compile(r"«([^«»\n]*)»")
# A line break, or the space after a sentence's end, starts a new piece.
_PIECE_BREAK = re.compile(r"\n\s*|(?<=[.!?])[ \t]+")
_LIST_NUMBER = re.compile(r"(?:^|\n)[ \t]*\d+[.)]$")
_WORD = re.compile(r"\[\[[^\]\n]*\]\]\S*|\[[^\]\n]*\]\([^)\n]*\)\S*|\S+")
# A table's row (`| a | b |`, in a quote too; its end may be cut), and the delimiter row under a table's header.
_TABLE_ROW = re.compile(r"^([ \t>]*)\|")
_DELIMITER_ROW = re.compile(r"^[ \t>]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?$")
_CELL_BORDER = re.compile(r"(?<!\\)\|")
# A match on a callout's type (`> [!«warning»]`) would keep the mark from being read as the callout's.
_MARKED_CALLOUT_TYPE = re.compile(r"\[!«([\w-]+)»\]")
_BULLET = re.compile(r"^[-*+][ \t]+")


@dataclass(frozen=True)
class _Span:
    start: int
    end: int


def snippet_of(marked: str, *, limit: int = SNIPPET_CHARS, following: str = "") -> str:
    """About `limit` characters of `marked` (a chunk with its matches between « and »): the run of whole sentences
    and lines, starting at one holding a match, with the most distinct matched words (the chunk's start when
    nothing matched). A sentence too long to show whole is cut at words around its first match. A chunk that is
    only headings goes on with `following` (the note's next chunk), the text under them."""
    text = marked.strip()
    if not text:
        return ""
    if following.strip() and _only_headings(text):
        text = f"{text}\n{following.strip()}"
    window = max(_windows(text, limit), key=lambda w: (_match_weight(text, w), -w.start))
    before = CUT_BEFORE if window.start > 0 else ""
    after = CUT_AFTER if window.end < len(text) else ""
    return before + text[window.start : window.end] + after


def _only_headings(text: str) -> bool:
    """Whether every line of `text` is a heading, at the margin or as an outline's block (`- ## Functionality`)."""
    lines = [_BULLET.sub("", MARK.sub(r"\1", line.strip())) for line in text.splitlines() if line.strip()]
    return all(heading_match(line) for line in lines)


def _pieces(text: str) -> list[_Span]:
    """The text as consecutive sentences and lines (a list item's number or an abbreviation's full stop ends
    none, nor does a sentence in a table's cell: a row is read whole), each without the white space after it."""
    starts = [0]
    for found in _PIECE_BREAK.finditer(text):
        before = text[starts[-1] : found.start()]
        ends_none = ABBREVIATIONS.search(before) or _LIST_NUMBER.search(before) or _TABLE_ROW.match(before)
        if "\n" in found.group() or not ends_none:
            starts.append(found.end())
    ends = [*starts[1:], len(text)]
    return [
        _Span(start, len(text[:end].rstrip()))
        for start, end in zip(starts, ends, strict=True)
        if text[start:end].strip()
    ]


def _windows(text: str, limit: int) -> list[_Span]:
    """For each piece holding a match (the first piece when none does), the most whole pieces from it, then
    before it, that fit in `limit`; or the words of it that do when it alone is longer."""
    pieces = _pieces(text)
    firsts = [i for i, piece in enumerate(pieces) if MARK.search(text, piece.start, piece.end)] or [0]
    windows = []
    for first in firsts:
        last = first
        while last + 1 < len(pieces) and pieces[last + 1].end - pieces[first].start <= limit:
            last += 1
        while first > 0 and pieces[last].end - pieces[first - 1].start <= limit:  # room left: what leads up to it
            first -= 1
        window = _Span(pieces[first].start, pieces[last].end)
        windows.append(window if window.end - window.start <= limit else _words_within(text, window, limit))
    return windows


def _match_weight(text: str, window: _Span) -> tuple[int, int]:
    """Distinct matched words first, then all matches: the snippet naming most of the query says most."""
    words = [word.lower() for word in MARK.findall(text, window.start, window.end)]
    return len(set(words)), len(words)


def _words_within(text: str, piece: _Span, limit: int) -> _Span:
    """Whole words of a piece longer than `limit`: from its start when its first match shows there with room to
    spare, else from a few words before that match."""
    words = [_Span(w.start(), w.end()) for w in _WORD.finditer(text, piece.start, piece.end)]
    lead = limit // 3
    match = next((i for i, w in enumerate(words) if MARK.search(text, w.start, w.end)), 0)
    first = match
    if words[match].end - words[0].start <= limit - lead:
        first = 0
    else:
        while first > 0 and words[match].start - words[first - 1].start <= lead:
            first -= 1
    last = first
    while last + 1 < len(words) and words[last + 1].end - words[first].start <= limit:
        last += 1
    return _Span(words[first].start, words[last].end)


def readable_snippet(snippet: str) -> str:
    """The snippet as a reader meets it, read as the chat's passages are (`readable_text`): Markdown marks dropped
    (links as their labels, a table as its cells, a task without its box, a callout by its title), its «matches»
    kept. The "…" of a cut stays outside the line it stands on, which then loses its list or heading mark too."""
    before = CUT_BEFORE if snippet.startswith(CUT_BEFORE) else ""
    after = CUT_AFTER if snippet.endswith(CUT_AFTER) else ""
    lines = snippet.removeprefix(before).removesuffix(after).split("\n")
    leading = _rows_opening(lines) if before else 0
    if after and leading < len(lines) and _rows_opening(lines[::-1]) == 1:  # a header, its delimiter cut off
        lines = [*lines[:-1], *_as_a_table(lines[-1:])]
    if leading:  # rows from a table whose header is cut off
        lines = [*_as_a_table(lines[:leading]), *lines[leading:]]
    passage = _MARKED_CALLOUT_TYPE.sub(r"[!\1]", "\n".join(lines))
    return before + readable_text(passage) + after


def _rows_opening(lines: list[str]) -> int:
    return next((index for index, line in enumerate(lines) if not _TABLE_ROW.match(line)), len(lines))


def _as_a_table(rows: list[str]) -> list[str]:
    """Rows cut from a table as a table again, so they read as its cells rather than as lines of pipes: the
    delimiter row goes under the first of them (when the cut left it out, or left it first)."""
    if _DELIMITER_ROW.match(rows[0]):
        rows = rows[1:]
    if not rows or (len(rows) > 1 and _DELIMITER_ROW.match(rows[1])):
        return rows
    opening = _TABLE_ROW.match(rows[0])
    written = rows[0][opening.end() if opening else 0 :].strip()
    cells = len(_CELL_BORDER.split(written.removesuffix("|")))
    return [rows[0], (opening.group(1) if opening else "") + "|---" * cells + "|", *rows[1:]]
