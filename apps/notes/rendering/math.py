"""Math (`$…$`, `$$…$$`) and ```mermaid fences, sent as their source text for the browser to draw.

The server never interprets TeX or diagram source: it escapes it into an element that static/js/note.js hands to
KaTeX or mermaid. The `$` rules are Pandoc's, which Obsidian follows and `syntax` uses to keep links out of math:
`$5 and $10` is money, `$x$` is math. mdit-py-plugins' dollarmath reads them; it differs from `syntax` only where a
closing `$` follows a space (`$a $b$`: `syntax` reads one span, dollarmath math `b`) or an opening one follows a
letter (`a$x$`, math to dollarmath only)."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.dollarmath.index import math_block_dollar

_plugin_math_block = math_block_dollar(allow_labels=False, allow_blank_lines=True)


def _math_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """The plugin's `$$` block rule, also asked whether a block may interrupt a paragraph: it adds its token even
    when only asked (its own setup never asks), so what it adds then is taken back."""
    if not silent:
        return _plugin_math_block(state, start_line, end_line, silent)
    tokens, line, level = len(state.tokens), state.line, state.level
    found = _plugin_math_block(state, start_line, end_line, silent)
    del state.tokens[tokens:]
    state.line, state.level = line, level
    return found


def _render_inline(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return f'<span class="math math-inline">{escapeHtml(tokens[idx].content)}</span>'


def _render_display(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return f'<span class="math math-display">{escapeHtml(tokens[idx].content)}</span>'


def _render_block(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return f'<div class="math math-display">{escapeHtml(tokens[idx].content.strip())}</div>\n'


def _render_fence(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    token = tokens[idx]
    if token.info.strip().split(" ")[0].lower() == "mermaid":
        return f'<pre class="mermaid">{escapeHtml(token.content)}</pre>\n'
    return self.fence(tokens, idx, options, env)  # type: ignore[attr-defined]


def math_plugin(md: MarkdownIt) -> None:
    # Pandoc's `$` rules: no space inside the dollars, no digit after the closing one; `$$…$$` also inside a line.
    md.use(dollarmath_plugin, allow_labels=False, allow_space=False, allow_digits=False, double_inline=True)
    # In Obsidian a `$$` line starts a math block even right under a line of text or in a list item or quote.
    interrupts = ["paragraph", "reference", "blockquote", "list"]
    md.block.ruler.at("math_block", _math_block, {"alt": interrupts})
    md.add_render_rule("math_inline", _render_inline)
    md.add_render_rule("math_inline_double", _render_display)
    md.add_render_rule("math_block", _render_block)
    md.add_render_rule("fence", _render_fence)
