"""A note body's block structure as line ranges (markdown-it's block parser), and how a block too long for one
chunk splits into pieces that each stay valid Markdown.

Chunking reads this tree so a fenced block, a table, a callout or a list item is never cut where it would fit
whole; only what cannot fit is split, at line bounds, each piece re-opened the way the block opened."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt

# An indented block that reads as an outline is the nesting of a Logseq page after a heading, not code.
OUTLINE = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]")
CALLOUT = re.compile(r"^[ \t]*(?:>[ \t]*)+\[![\w-]+\]")
_FENCE_OPEN = re.compile(r"^([ \t>]*)(`{3,}|~{3,})")
_NODE_KINDS = {
    "heading_open": "heading",
    "paragraph_open": "paragraph",
    "blockquote_open": "quote",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "list_item_open": "item",
    "table_open": "table",
    "fence": "fence",
    "code_block": "code",
    "html_block": "other",
    "hr": "other",
}
# Pieces of a split block name what they are in the chunk's heading, so a reader (and the embedding) knows the
# piece is part of something longer.
PIECE_NAMES = {"fence": "code", "code": "code", "table": "table", "quote": "quote", "callout": "callout"}


@dataclass
class Block:
    kind: str  # heading | paragraph | quote | list | item | table | fence | code | other
    start: int  # first line (index into the body's lines)
    end: int  # one past the last line
    children: list[Block] = field(default_factory=list)
    level: int = 0  # a heading's level
    title: str = ""  # a heading's text


@functools.cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table").disable("inline")  # block structure only: half the time


def block_tree(lines: list[str], first: int = 0) -> list[Block]:
    """The top-level blocks of `lines` (line `first` of the body being lines[0]), nested blocks as children.
    Lines no block covers (link reference definitions) become `other` blocks: no text is ever dropped."""
    roots: list[Block] = []
    stack: list[Block | None] = []  # open containers; None: the document itself
    in_table = 0  # depth inside a table, whose rows belong to the table block
    heading: Block | None = None
    for token in _parser().parse("\n".join(lines)):
        if in_table:
            in_table += token.nesting
            continue
        if token.nesting == -1:
            stack.pop()
            continue
        if token.type == "inline" and heading is not None:
            heading.title, heading = token.content.strip(), None
            continue
        parent = stack[-1] if stack else None
        kind = _NODE_KINDS.get(token.type)
        if kind is None or token.map is None:
            if token.nesting == 1:
                stack.append(parent)  # a container this tree has no kind for: its blocks go to the parent
            continue
        start, end = token.map
        block = Block(kind, first + start, first + end)
        if kind == "heading":
            block.level, heading = int(token.tag[1:]), block
        (parent.children if parent is not None else roots).append(block)
        if kind == "code" and (written := [ln for ln in lines[start:end] if ln.strip()]) and OUTLINE.match(written[0]):
            dedented = [re.sub(r"^(\t| {1,4})", "", line) for line in lines[start:end]]
            block.kind, block.children = "list", block_tree(dedented, first + start)
        if kind == "table":
            in_table = 1
        elif token.nesting == 1:
            stack.append(block)
    _fill_gaps(roots, lines, first)
    return _with_gaps(roots, lines, first, first, first + len(lines))


def _fill_gaps(blocks: list[Block], lines: list[str], first: int) -> None:
    for block in blocks:
        if block.kind in {"list", "item"} and block.children:
            _fill_gaps(block.children, lines, first)
            block.children = _with_gaps(block.children, lines, first, block.start, block.end)


def _with_gaps(blocks: list[Block], lines: list[str], first: int, start: int, end: int) -> list[Block]:
    covered = [False] * (end - start)
    for block in blocks:
        for index in range(max(block.start, start), min(block.end, end)):
            covered[index - start] = True
    out = list(blocks)
    run: int | None = None
    for index in range(start, end + 1):
        bare = index == end or covered[index - start] or not lines[index - first].strip()
        if bare and run is not None:
            out.append(Block("other", run, index))
            run = None
        elif not bare and run is None:
            run = index
    return sorted(out, key=lambda block: block.start)


def block_lines(lines: list[str], block: Block) -> list[str]:
    """The block's lines, blank lines at its end (markdown-it counts them into lists) left out."""
    taken = lines[block.start : block.end]
    while taken and not taken[-1].strip():
        taken.pop()
    return taken


def piece_name(lines: list[str], block: Block) -> str:
    if block.kind == "quote" and CALLOUT.match(lines[block.start]):
        return PIECE_NAMES["callout"]
    return PIECE_NAMES[block.kind]


def split_block(lines: list[str], block: Block, budget: int) -> list[str]:
    """Pieces of a fenced block, indented code, table or blockquote longer than `budget`, cut between lines.

    A fence's pieces each open with its opening line (language kept) and close it; a table's each repeat its
    header and delimiter rows; a callout's each start with its `> [!type] title` line. A single line longer than
    the budget is cut in a fence or code block, never in a table row, which stays whole (over the budget)."""
    own = block_lines(lines, block)
    head: list[str] = []
    tail: list[str] = []
    if block.kind == "fence":
        opener = _FENCE_OPEN.match(own[0])
        prefix, mark = (opener.group(1), opener.group(2)) if opener else ("", "```")
        closes = len(own) > 1 and own[-1].strip().lstrip(">").strip().startswith(mark)
        head, tail, body = [own[0]], [own[-1] if closes else f"{prefix}{mark}"], own[1 : -1 if closes else None]
    elif block.kind == "table":
        head, body = own[:2], own[2:]
    elif block.kind == "quote" and CALLOUT.match(own[0]):
        head, body = [own[0]], own[1:]
    else:
        body = own
    room = max(40, budget - sum(len(line) + 1 for line in head + tail))
    if block.kind in {"fence", "code"}:  # only code is cut within a line: a table row or a quote line is kept
        body = [line[i : i + room - 1] for line in body for i in range(0, max(len(line), 1), room - 1)]
    groups: list[list[str]] = [[]]
    size = 0
    for line in body:
        if groups[-1] and size + len(line) + 1 > room:
            groups.append([])
            size = 0
        groups[-1].append(line)
        size += len(line) + 1
    return ["\n".join(head + group + tail) for group in groups if group]
