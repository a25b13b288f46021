"""HTML a note writes, drawn as Obsidian draws it: the tags of text and tables (`<kbd>`, `<br>`, `<sub>`,
`<details>`, a table of contributors) are shown, their attributes cleaned by nh3 (the ammonia sanitizer: no handler,
no style, no script or data address, links opened without a referrer). A picture is left out, as an image on
another site is never loaded (`files`). A piece of HTML holding any other tag (`<script>`, `<iframe>`, `<form>`,
`<style>` …) is shown as text, the way every note's HTML was shown before."""

from __future__ import annotations

import re
from collections import Counter

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from apps.notes.syntax import BLOCK_LEVEL, LEFT_OUT, SHOWN, VOID

ATTRIBUTES = {
    "a": {"href", "title"},
    "td": {"align", "valign", "colspan", "rowspan"},
    "th": {"align", "valign", "colspan", "rowspan", "scope"},
    "details": {"open"},
    "ol": {"start", "type"},
    "col": {"span"},
    "abbr": {"title"},
}
URL_SCHEMES = {"http", "https", "mailto"}
OPENS_WITH_A_TAG = re.compile(r"^</?([A-Za-z][\w-]*)(?=[\s/>]|$)")
TAG_NAME = re.compile(r"<\s*(/?)\s*([A-Za-z][\w-]*)")
# A tag, a comment or a declaration, one at a time: a piece of a note's HTML is cleaned tag by tag, since it is
# seldom whole (an HTML block ends at a blank line, "<details>" in one block and "</details>" in a later one).
PIECE = re.compile(r"(<!--.*?-->|<[^<>]*>)", re.S)


def _drawn(html: str) -> bool:
    """Whether every tag of the piece is one to show or to leave out."""
    return all(found.group(2).lower() in SHOWN | LEFT_OUT for found in TAG_NAME.finditer(html))


def clean_html(html: str) -> str:
    """`html` as a note page draws it: the tags of text and tables, their harmless attributes, links without a
    referrer; any other tag dropped (a script's or a style's content with it)."""
    return nh3.clean(
        html, tags=set(SHOWN), attributes=ATTRIBUTES, url_schemes=URL_SCHEMES, link_rel="noopener noreferrer"
    )


def _balanced(html: str) -> bool:
    """Whether every element the piece opens it also closes (a table, a `<div>…</div>`)."""
    opened: Counter[str] = Counter()
    for found in TAG_NAME.finditer(html):
        name = found.group(2).lower()
        if name not in VOID:
            opened[name] += -1 if found.group(1) else 1
    return not any(opened.values())


def _cleaned(html: str) -> str:
    """`html` (whose tags are all `_drawn`) cleaned by nh3: whole when it is balanced (a table's rows and cells mean
    nothing outside it), else tag by tag: an opening tag alone, without the closing tag nh3 adds to it (the note
    closes it itself), a closing tag by its name, the text between them escaped."""
    if _balanced(html):
        return clean_html(html)
    out = []
    for index, piece in enumerate(PIECE.split(html)):
        if index % 2 == 0:
            out.append(nh3.clean(piece, tags=set()) if piece else "")
            continue
        tag = TAG_NAME.match(piece)
        name = tag.group(2).lower() if tag else ""
        if name not in SHOWN:
            continue  # a comment, a declaration, a picture left out
        if tag and tag.group(1):
            out.append(f"</{name}>")
        else:
            out.append(clean_html(piece).removesuffix(f"</{name}>"))
    return "".join(out)


def _render_block(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    content = tokens[idx].content
    return _cleaned(content) if _drawn(content) else f"<p>{escapeHtml(content.rstrip())}</p>\n"


def _render_inline(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    content = tokens[idx].content
    return _cleaned(content) if _drawn(content) else escapeHtml(content)


def _html_lines(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A block of HTML: the lines from one that opens with a tag to the last that does, in a row. CommonMark's own
    HTML block runs on to the next blank line, swallowing the Markdown after a line of HTML (a Logseq block's `<div>`
    and the list under it), which would then show as text."""
    if state.is_code_block(start):
        return False
    first = _line(state, start)
    opening = OPENS_WITH_A_TAG.match(first)
    if opening is None:
        return False
    if silent:  # a block-level tag may break a paragraph, as in CommonMark
        return opening.group(1).lower() in BLOCK_LEVEL
    line = start + 1
    while line < end and state.sCount[line] >= state.blkIndent and OPENS_WITH_A_TAG.match(_line(state, line)):
        line += 1
    token = state.push("html_block", "", 0)
    token.map = [start, line]
    token.content = state.getLines(start, line, state.blkIndent, True)
    state.line = line
    return True


def _line(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]


def html_plugin(md: MarkdownIt) -> None:
    md.block.ruler.at("html_block", _html_lines, {"alt": ["paragraph", "reference", "blockquote"]})
    md.add_render_rule("html_block", _render_block)
    md.add_render_rule("html_inline", _render_inline)
