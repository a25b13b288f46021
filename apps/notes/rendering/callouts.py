"""Obsidian callouts: a blockquote whose first line is `[!type] Title`, foldable with `+` (open) or `-` (closed).

The type is read before inline parsing, so the title is parsed as Markdown like any other line. A callout inside a
callout is a blockquote inside a blockquote, turned into a callout in its turn."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

_CALLOUT = re.compile(r"^\[!([\w-]+)\]([+-]?)[ \t]*(.*)$")

# Obsidian's types, each with its aliases; an unknown type looks like a note.
_ALIASES = {
    "note": [],
    "abstract": ["summary", "tldr"],
    "info": [],
    "todo": [],
    "tip": ["hint", "important"],
    "success": ["check", "done"],
    "question": ["help", "faq"],
    "warning": ["caution", "attention"],
    "failure": ["fail", "missing"],
    "danger": ["error"],
    "bug": [],
    "example": [],
    "quote": ["cite"],
}
_KIND = {name: kind for kind, aliases in _ALIASES.items() for name in (kind, *aliases)}
_ICONS = {
    "note": "✎",
    "abstract": "☰",
    "info": "ℹ",
    "todo": "☑",
    "tip": "✦",
    "success": "✓",
    "question": "?",
    "warning": "⚠",
    "failure": "✗",
    "danger": "⚡",
    "bug": "🐞",
    "example": "▤",
    "quote": "❝",
}


def _callouts(state: StateCore) -> None:
    tokens = state.tokens
    index = 0
    while index < len(tokens):
        opening = tokens[index]
        if opening.type != "blockquote_open" or index + 2 >= len(tokens) or tokens[index + 2].type != "inline":
            index += 1
            continue
        inline = tokens[index + 2]
        first_line, _, rest = inline.content.partition("\n")
        found = _CALLOUT.match(first_line.strip())
        if tokens[index + 1].type != "paragraph_open" or found is None:
            index += 1
            continue
        written, fold, title = found.group(1).lower(), found.group(2), found.group(3).strip()
        kind = _KIND.get(written, "note")
        meta = {"type": written, "kind": kind, "fold": fold}
        closing = next(t for t in tokens[index + 1 :] if t.type == "blockquote_close" and t.level == opening.level)
        opening.type, opening.meta = "callout_open", meta
        closing.type, closing.meta = "callout_close", meta

        heading = Token("inline", "", 0, content=title or written.capitalize(), children=[], map=inline.map)
        inserted = [Token("callout_title_open", "", 1, meta=meta, block=True), heading]
        inserted += [Token("callout_title_close", "", -1, meta=meta, block=True)]
        inserted.append(Token("callout_content_open", "div", 1, block=True))
        if rest.strip():
            inline.content = rest
        else:  # a callout that is only its title
            del tokens[index + 1 : index + 4]
        tokens[index + 1 : index + 1] = inserted
        end = tokens.index(closing)
        tokens.insert(end, Token("callout_content_close", "div", -1, block=True))
        index += 1


def _open(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    meta = tokens[idx].meta
    attributes = f'class="callout callout-{meta["kind"]}" data-callout="{escapeHtml(meta["type"])}"'
    if meta["fold"]:
        return f"<details {attributes}{' open' if meta['fold'] == '+' else ''}>\n"
    return f"<div {attributes}>\n"


def _close(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return "</details>\n" if tokens[idx].meta["fold"] else "</div>\n"


def _title_open(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    tag = "summary" if tokens[idx].meta["fold"] else "div"
    icon = _ICONS[tokens[idx].meta["kind"]]
    return f'<{tag} class="callout-title"><span class="callout-icon" aria-hidden="true">{icon}</span> '


def _title_close(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return "</summary>\n" if tokens[idx].meta["fold"] else "</div>\n"


def _content_open(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return '<div class="callout-content">\n'


def callouts_plugin(md: MarkdownIt) -> None:
    md.core.ruler.after("block", "callouts", _callouts)
    md.add_render_rule("callout_open", _open)
    md.add_render_rule("callout_close", _close)
    md.add_render_rule("callout_title_open", _title_open)
    md.add_render_rule("callout_title_close", _title_close)
    md.add_render_rule("callout_content_open", _content_open)
