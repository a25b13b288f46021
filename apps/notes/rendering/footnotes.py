"""Footnotes: `text[^1]` with `[^1]: the note` anywhere in the file, and inline `^[a note]`, listed at the end in
order of first use, by mdit-py-plugins' footnote plugin.

Only the HTML is ours: ids carry the page's prefix (an embedded note's footnotes stay its own) and the way back
follows the footnote's last paragraph rather than sitting inside it."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin


def _prefix(env: dict) -> str:
    page = env.get("page")
    return f"{page.id_prefix}fn" if page is not None else "fn"


def _number_closings(state: StateCore) -> None:
    """Each footnote's closing token learns its number, which its way back links to."""
    number = 0
    for token in state.tokens:
        if token.type == "footnote_open":
            number = token.meta["id"] + 1
        elif token.type == "footnote_close":
            token.meta = {"number": number}


def _render_reference(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    number, use = tokens[idx].meta["id"] + 1, tokens[idx].meta.get("subId", 0) + 1
    prefix = escapeHtml(_prefix(env))
    back = f"{prefix}ref-{number}" + (f"-{use}" if use > 1 else "")
    return f'<sup class="footnote-ref"><a href="#{prefix}-{number}" id="{back}">[{number}]</a></sup>'


def _render_block_open(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return '<section class="footnotes">\n<ol>\n'


def _render_block_close(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return "</ol>\n</section>\n"


def _render_open(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return f'<li id="{escapeHtml(_prefix(env))}-{tokens[idx].meta["id"] + 1}">'


def _render_anchor(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return ""  # the way back is drawn once, after the footnote (`_render_close`)


def _render_close(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    back = f"#{escapeHtml(_prefix(env))}ref-{tokens[idx].meta['number']}"
    return f'<a href="{back}" class="footnote-backref" aria-label="back to the text">↩</a></li>\n'


def footnotes_plugin(md: MarkdownIt) -> None:
    md.use(footnote_plugin)
    md.core.ruler.after("footnote_tail", "footnote_numbers", _number_closings)
    md.add_render_rule("footnote_ref", _render_reference)
    md.add_render_rule("footnote_block_open", _render_block_open)
    md.add_render_rule("footnote_block_close", _render_block_close)
    md.add_render_rule("footnote_open", _render_open)
    md.add_render_rule("footnote_anchor", _render_anchor)
    md.add_render_rule("footnote_close", _render_close)
