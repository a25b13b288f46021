"""Math (`$…$`, `$$…$$`) and ```mermaid fences, sent as their source text for the browser to draw.

The server never interprets TeX or diagram source: it escapes it into an element that static/js/note.js hands to
KaTeX or mermaid. The `$` rules are the ones `syntax` uses to keep links out of math (Pandoc's, which Obsidian
follows): `$5 and $10` is money, `$x$` is math."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

_INLINE_END = re.compile(r"(?<=[^\s\\])\$(?![\d$])")
_DISPLAY_END = re.compile(r"(?<!\\)\$\$")


def _inline_math(state: StateInline, silent: bool) -> bool:
    src, start = state.src, state.pos
    if src[start] != "$":
        return False
    if src.startswith("$$", start):
        found = _DISPLAY_END.search(src, start + 2, state.posMax)
        kind, content_start = "math_display", start + 2
    else:
        after = src[start + 1 : start + 2]
        if not after or after.isspace() or (start and src[start - 1].isalnum()):
            return False
        found = _INLINE_END.search(src, start + 1, state.posMax)
        kind, content_start = "math_inline", start + 1
    if found is None or not src[content_start : found.start()].strip():
        return False
    if not silent:
        state.push(kind, "", 0).content = src[content_start : found.start()]
    state.pos = found.end()
    return True


def _math_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.is_code_block(start_line):
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    first = state.src[begin : state.eMarks[start_line]]
    if not first.startswith("$$"):
        return False
    rest = first[2:].rstrip()
    if rest.endswith("$$"):  # `$$ x $$` on one line
        content, last = rest[:-2], start_line
    else:
        last = start_line + 1
        while last < end_line and not state.src[state.bMarks[last] : state.eMarks[last]].rstrip().endswith("$$"):
            if not state.isEmpty(last) and state.sCount[last] < state.blkIndent:  # its list item or quote ended
                return False
            last += 1
        if last >= end_line:
            return False
        lines = state.getLines(start_line + 1, last + 1, state.blkIndent, False).rstrip()[:-2]
        content = f"{rest}\n{lines}"
    if not content.strip():
        return False
    if silent:
        return True
    token = state.push("math_block", "div", 0)
    token.content, token.map, token.block = content.strip(), [start_line, last + 1], True
    state.line = last + 1
    return True


def _render_inline(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return f'<span class="math math-inline">{escapeHtml(tokens[idx].content)}</span>'


def _render_display(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return f'<span class="math math-display">{escapeHtml(tokens[idx].content)}</span>'


def _render_block(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return f'<div class="math math-display">{escapeHtml(tokens[idx].content)}</div>\n'


def _render_fence(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    token = tokens[idx]
    if token.info.strip().split(" ")[0].lower() == "mermaid":
        return f'<pre class="mermaid">{escapeHtml(token.content)}</pre>\n'
    return self.fence(tokens, idx, options, env)  # type: ignore[attr-defined]


def math_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("escape", "math_inline", _inline_math)
    interrupts = ["paragraph", "reference", "blockquote", "list"]
    md.block.ruler.before("fence", "math_block", _math_block, {"alt": interrupts})
    md.add_render_rule("math_inline", _render_inline)
    md.add_render_rule("math_display", _render_display)
    md.add_render_rule("math_block", _render_block)
    md.add_render_rule("fence", _render_fence)
