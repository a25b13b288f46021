"""Footnotes: `text[^1]` with `[^1]: the note` anywhere in the file, listed at the end in order of first use.

A definition is its first line plus the lines indented under it; it is parsed as Markdown where it is listed."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

_DEFINITION = re.compile(r"\[\^([^\]\s]+)\]:[ \t]?")
_REFERENCE = re.compile(r"\[\^([^\]\s]+)\]")


def _definition(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.is_code_block(start_line):
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    found = _DEFINITION.match(state.src, begin, state.eMarks[start_line])
    if found is None:
        return False
    if silent:
        return True
    lines = [state.src[found.end() : state.eMarks[start_line]]]
    line = start_line + 1
    while line < end_line:
        if state.isEmpty(line):
            following = state.skipEmptyLines(line)
            if following >= end_line or state.sCount[following] - state.blkIndent < 4:
                break
        elif state.sCount[line] - state.blkIndent < 4:
            break
        lines.append(state.getLines(line, line + 1, state.blkIndent + 4, False))
        line += 1
    definitions = state.env.setdefault("footnotes", {})
    definitions.setdefault(found.group(1).lower(), "\n".join(lines))
    state.line = line
    return True


def _reference(state: StateInline, silent: bool) -> bool:
    if not state.src.startswith("[^", state.pos):
        return False
    found = _REFERENCE.match(state.src, state.pos, state.posMax)
    if found is None or found.group(1).lower() not in state.env.get("footnotes", {}):
        return False
    if not silent:
        order: list[str] = state.env.setdefault("footnote_order", [])
        label = found.group(1).lower()
        if label not in order:
            order.append(label)
        uses = state.env.setdefault("footnote_uses", {})
        uses[label] = uses.get(label, 0) + 1
        state.push("footnote_ref", "", 0).meta = {"number": order.index(label) + 1, "use": uses[label]}
    state.pos = found.end()
    return True


def _footnote_list(state: StateCore) -> None:
    order = state.env.get("footnote_order", [])
    if not order or state.env.get("footnotes_listing"):  # a definition is parsed with this rule too
        return
    state.env["footnotes_listing"] = True
    tokens = [Token("footnote_block_open", "", 1, block=True)]
    number = 0
    while number < len(order):  # a definition may cite a footnote not used before it
        number += 1
        tokens.append(Token("footnote_open", "", 1, meta={"number": number}, block=True))
        tokens += state.md.parse(state.env["footnotes"][order[number - 1]], state.env)
        tokens.append(Token("footnote_close", "", -1, meta={"number": number}, block=True))
    tokens.append(Token("footnote_block_close", "", -1, block=True))
    state.tokens += tokens


def _prefix(env: dict) -> str:
    page = env.get("page")
    return f"{page.id_prefix}fn" if page is not None else "fn"


def _render_reference(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    number, use = tokens[idx].meta["number"], tokens[idx].meta["use"]
    prefix = escapeHtml(_prefix(env))
    back = f"{prefix}ref-{number}" + (f"-{use}" if use > 1 else "")
    return f'<sup class="footnote-ref"><a href="#{prefix}-{number}" id="{back}">[{number}]</a></sup>'


def _render_block_open(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return '<section class="footnotes">\n<ol>\n'


def _render_block_close(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return "</ol>\n</section>\n"


def _render_open(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return f'<li id="{escapeHtml(_prefix(env))}-{tokens[idx].meta["number"]}">'


def _render_close(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    back = f"#{escapeHtml(_prefix(env))}ref-{tokens[idx].meta['number']}"
    return f'<a href="{back}" class="footnote-backref" aria-label="back to the text">↩</a></li>\n'


def footnotes_plugin(md: MarkdownIt) -> None:
    md.block.ruler.before("reference", "footnote_definition", _definition, {"alt": ["paragraph", "reference"]})
    md.inline.ruler.after("math_inline", "footnote_reference", _reference)
    md.core.ruler.after("inline", "footnote_list", _footnote_list)
    md.add_render_rule("footnote_ref", _render_reference)
    md.add_render_rule("footnote_block_open", _render_block_open)
    md.add_render_rule("footnote_block_close", _render_block_close)
    md.add_render_rule("footnote_open", _render_open)
    md.add_render_rule("footnote_close", _render_close)
