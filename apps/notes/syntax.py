"""Where a Markdown note is prose: the spans that are code (fenced, indented, inline), math or comments.

Links, tags and block ids are read from prose only; a `[[x]]` or `#x` inside code or math is an example, not
structure. Masking keeps every other character (and every newline) where it was, so offsets still hold."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from markdown_it import MarkdownIt

# The HTML a note may write that its page draws (`rendering.html`) and the readers read as words (`text`): the tags
# of text and tables, the pictures left out, the tags that close nothing, and those that stand apart as blocks.
SHOWN = frozenset(
    {
        *("a", "abbr", "b", "big", "blockquote", "br", "caption", "center", "cite", "code", "col", "colgroup", "dd"),
        *("del", "details", "div", "dl", "dt", "em", "figcaption", "figure", "font", "h1", "h2", "h3", "h4", "h5"),
        *("h6", "hr", "i", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strike"),
        *("strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", "var"),
    }
)
LEFT_OUT = frozenset({"img", "picture", "source"})
VOID = frozenset({"br", "hr", "col", "img", "source", "wbr"})
BLOCK_LEVEL = frozenset(
    {"blockquote", "center", "details", "div", "dl", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "ol", "p"}
    | {"pre", "table", "ul"}
)
# The parts of a table, a list or a disclosure: each one stands apart from the next, as a block does.
HTML_PARTS = frozenset(
    {"caption", "col", "colgroup", "dd", "dt", "figcaption", "li", "summary", "tbody", "td", "tfoot", "th", "thead"}
    | {"tr"}
)

# An indented block that reads as an outline is the nesting of a Logseq page after a heading, not code.
_OUTLINE = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]")
_VERBATIM = re.compile(r"^[ \t]*(?:[-*][ \t]+)?#\+BEGIN_(SRC|QUERY|EXAMPLE|EXPORT)\b", re.I)
_OPENER = re.compile(r"\\[\\`$%<]|`+|\$\$|\$|<!--|%%")
_CLOSERS = {"$$": re.compile(r"(?<!\\)\$\$"), "<!--": re.compile("-->"), "%%": re.compile("%%")}
_KINDS = {"$$": "math", "$": "math", "<!--": "comment", "%%": "comment"}
# Pandoc's rule, which Obsidian follows: `$5 and $10` is money, `$x$` is math.
_INLINE_MATH_END = re.compile(r"(?<=[^\s\\])\$(?![\d$])")
_BLANK_LINE = re.compile(r"\n[ \t]*(?=\n)")
# The block properties Logseq keeps for itself and never shows, on the page or in a block: graph-parser's
# `hidden-built-in-properties` (ids, folding, the old timestamps, a query table's settings, a PDF highlight's place),
# the times its task markers were set, and the flashcards' schedule.
LOGSEQ_HIDDEN_PROPERTIES = frozenset(
    {"id", "custom-id", "background-color", "background_color", "heading", "collapsed"}
    | {"created-at", "updated-at", "last-modified-at", "created_at", "last_modified_at"}
    | {"query-table", "query-properties", "query-sort-by", "query-sort-desc"}
    | {"ls-type", "hl-type", "hl-page", "hl-stamp", "hl-color"}
    | {"logseq.macro-name", "logseq.macro-arguments", "logseq.order-list-type", "logseq.tldraw.page"}
    | {"logseq.tldraw.shape"}
    | {"todo", "doing", "now", "later", "done", "wait", "waiting", "canceled", "cancelled", "started", "in-progress"}
    | {"card-last-interval", "card-repeats", "card-last-reviewed", "card-next-schedule", "card-ease-factor"}
    | {"card-last-score"}
)

BLOCK_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
# Logseq's `{{embed …}}` macro; its docs also write it with a third pair of braces (`{{{embed …}}}`), the same embed.
EMBED_OPEN, EMBED_CLOSE = r"\{\{(?P<third_brace>\{)?[ \t]*embed[ \t]+", r"[ \t]*\}\}(?(third_brace)\})"
# Logseq's references to a block as written: `{{embed ((uuid))}}`, `[label](((uuid)))` and `((uuid))`.
BLOCK_REFERENCE = re.compile(
    rf"{EMBED_OPEN}\(\((?P<embedded>{BLOCK_UUID})\)\){EMBED_CLOSE}"
    rf"|\[(?P<label>[^\[\]\n]*)\]\(\(\((?P<labelled>{BLOCK_UUID})\)\)\)"
    rf"|\(\((?P<referenced>{BLOCK_UUID})\)\)"
)


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    kind: str  # code | math | comment


@functools.cache
def _block_parser() -> MarkdownIt:
    return MarkdownIt("commonmark").disable("inline")  # only the blocks' line ranges are read


def _scan_blocks(lines: list[str], first: int, code: list[tuple[int, int]], inline: list[tuple[int, int]]) -> None:
    """Collect [start, end) line ranges of code blocks and of inline content (paragraphs, list items, headings),
    `first` being the index of lines[0]."""
    verbatim_end: str | None = None
    for index, line in enumerate(lines):  # Logseq's org-mode blocks that hold code, not prose
        if verbatim_end is None and (found := _VERBATIM.match(line)):
            verbatim_end, start = f"#+END_{found.group(1).upper()}", index
        elif verbatim_end is not None and line.strip().lstrip("-* \t").upper().startswith(verbatim_end):
            code.append((first + start, first + index + 1))
            verbatim_end = None
    for mark in _block_parser().parse("\n".join(lines)):
        if mark.map is None:
            continue
        start, end = mark.map
        if mark.type == "inline":
            inline.append((first + start, first + end))
        if mark.type not in {"fence", "code_block"}:
            continue
        block = [line for line in lines[start:end] if line.strip()]
        if mark.type == "code_block" and block and _OUTLINE.match(block[0]):
            dedented = [re.sub(r"^(\t| {1,4})", "", line) for line in lines[start:end]]
            _scan_blocks(dedented, first + start, code, inline)
        else:
            code.append((first + start, first + end))


def code_block_lines(text: str) -> set[int]:
    """Indices of the lines of `text` inside code blocks: fenced, indented, and Logseq's source and query blocks."""
    code: list[tuple[int, int]] = []
    _scan_blocks(text.split("\n"), 0, code, [])
    return {index for start, end in code for index in range(start, end)}


def _blocks(text: str) -> tuple[list[Span], list[int]]:
    """Code block spans, and the offsets where inline content may not run past (ends of paragraphs, items…)."""
    offsets = [0]
    for line in text.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)
    code: list[tuple[int, int]] = []
    inline: list[tuple[int, int]] = []
    _scan_blocks(text.split("\n"), 0, code, inline)
    spans = [Span(offsets[start], min(offsets[end], len(text)), "code") for start, end in code]
    ends = sorted(
        {min(offsets[end] - 1, len(text)) for _, end in inline} | {m.start() for m in _BLANK_LINE.finditer(text)}
    )
    return spans, ends


def _inline_spans(text: str, block_ends: list[int]) -> list[Span]:
    """Code spans, math and comments, scanned left to right; an opener without a closer is plain text. Code spans
    and inline math stay within their paragraph or list item; math blocks and comments may span several.

    An opener that found no closer marks its kind closed up to where it searched, so hostile input (thousands of
    unmatched `$`) stays linear."""
    no_closer_before: dict[str, int] = {}
    spans: list[Span] = []
    pos = 0
    while (opener := _OPENER.search(text, pos)) is not None:
        mark, start, pos = opener.group(), opener.start(), opener.end()
        if mark.startswith("\\") or no_closer_before.get(mark, -1) > start:
            continue
        if mark[0] == "`" or mark == "$":
            index = bisect.bisect_right(block_ends, start)
            limit = block_ends[index] if index < len(block_ends) else len(text)
            if mark == "$":
                if pos >= len(text) or text[pos].isspace() or (start and text[start - 1].isalnum()):
                    continue
                closer = _INLINE_MATH_END
            else:
                closer = re.compile(rf"(?<!`){mark}(?!`)")
            found = closer.search(text, pos, limit)
            kind = "code" if mark[0] == "`" else "math"
        else:
            limit = len(text)
            found = _CLOSERS[mark].search(text, pos)
            kind = _KINDS[mark]
        if found is None:
            no_closer_before[mark] = limit
            continue
        spans.append(Span(start, found.end(), kind))
        pos = found.end()
    return spans


def _mask(text: str, spans: list[Span]) -> str:
    chars = list(text)
    for span in spans:
        for index in range(span.start, span.end):
            if chars[index] != "\n":
                chars[index] = " "
    return "".join(chars)


def hidden_spans(body: str) -> list[Span]:
    """Spans of `body` (frontmatter removed) that are code, math or comments, in order."""
    blocks, block_ends = _blocks(body)
    inline = _inline_spans(_mask(body, blocks), block_ends)
    return sorted(blocks + inline, key=lambda span: span.start)


def prose_only(body: str) -> str:
    """`body` with code, math and comments blanked out (newlines kept): the text links and tags are read from."""
    return _mask(body, hidden_spans(body))


def without_comments(body: str) -> str:
    """`body` without `%%comments%%` and `<!-- comments -->` (those inside code are code, and stay)."""
    if "%%" not in body and "<!--" not in body:
        return body  # nothing to find: the block parse is the costly part of reading a long note
    kept, pos = [], 0
    for span in hidden_spans(body):
        if span.kind == "comment":
            kept.append(body[pos : span.start])
            pos = span.end
    kept.append(body[pos:])
    return "".join(kept)


# A CommonMark link reference definition, `[label]: destination "title"` (not a footnote's `[^1]:`): it defines
# where `[label]` leads and shows nothing on the page. Foam writes a block of them at the end of every note.
LINK_DEFINITION = re.compile(
    r"^ {0,3}\[(?!\^)[^\]\n]+\]:[ \t]*(?:<[^>\n]*>|\S+)(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$"
)


def without_link_definitions(body: str) -> str:
    """`body` without its link reference definitions (those inside code are code, and stay). One cannot interrupt a
    paragraph: a line so written right under text is text."""
    if "]:" not in body:
        return body
    code = [(span.start, span.end) for span in hidden_spans(body) if span.kind != "comment"]  # in order
    kept: list[str] = []
    pos, previous_blank_or_definition, next_code = 0, True, 0
    for line in body.split("\n"):
        while next_code < len(code) and code[next_code][1] <= pos:
            next_code += 1
        in_code = next_code < len(code) and code[next_code][0] <= pos
        is_definition = not in_code and previous_blank_or_definition and bool(LINK_DEFINITION.match(line))
        if not is_definition:
            kept.append(line)
        previous_blank_or_definition = is_definition or not line.strip()
        pos += len(line) + 1
    return "\n".join(kept)


def verbatim_test(body: str) -> Callable[[int], bool]:
    """Whether an offset of `body` lies in code or math, where Markdown is shown as written."""
    verbatim = [(span.start, span.end) for span in hidden_spans(body) if span.kind != "comment"]
    starts = [start for start, _ in verbatim]

    def inside(offset: int) -> bool:
        at = bisect.bisect_right(starts, offset) - 1
        return at >= 0 and offset < verbatim[at][1]

    return inside


def referenced_block_ids(body: str) -> set[str]:
    """The blocks `body` refers to by id (lowercased), in its prose."""
    if "((" not in body:
        return set()
    prose = prose_only(body)
    return {
        (m.group("embedded") or m.group("labelled") or m.group("referenced")).lower()
        for m in BLOCK_REFERENCE.finditer(prose)
    }


def with_block_references_shown(body: str, shown: Mapping[str, str]) -> str:
    """`body` with each Logseq block reference outside code as the page shows it: a labelled one by its label, the
    others by the referenced block's text (`shown`, by lowercased id; an embed by its block's first line, since a
    passage is the text of one place and the embedded block's own lines are searched where they are written). A
    reference to a block no readable note holds stays as written (the page marks it a missing block)."""
    if "((" not in body:
        return body
    in_verbatim = verbatim_test(body)

    def shown_as(found: re.Match[str]) -> str:
        if in_verbatim(found.start()):
            return found.group(0)
        if found.group("labelled"):
            return found.group("label")
        return shown.get((found.group("embedded") or found.group("referenced")).lower(), found.group(0))

    return BLOCK_REFERENCE.sub(shown_as, body)


def logseq_hides(key: str) -> bool:
    """Whether Logseq hides a block's `key:: value` property (`created-at`, `collapsed`, `card-repeats`)."""
    return key.lower() in LOGSEQ_HIDDEN_PROPERTIES
