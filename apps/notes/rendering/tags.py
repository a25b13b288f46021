"""Inline tags on the page: `#inbox` and `#ops/deploy` in a note's text show as tags, each a link to the search of
its vault for that tag, as Obsidian's tag opens its search.

A tag is read as the note parser reads it (`INLINE_TAG`): not after a word, a path, `#`, `&` or `[`, and with a
letter in it (`#12043` is an issue number). Code and math are other tokens, so a tag inside them stays as written."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.urls import reverse
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from apps.notes.markdown import INLINE_TAG

if TYPE_CHECKING:
    from apps.notes.rendering.wikilinks import Page

_LETTER = re.compile(r"[^\W\d_]")


def _tag_rule(state: StateInline, silent: bool) -> bool:
    start = state.pos
    if state.src[start] != "#" or state.linkLevel > 0:  # inside a link's label a tag is its words: no link in a link
        return False
    found = INLINE_TAG.match(state.src, start, state.posMax)  # its look-behind sees the text before `start`
    if found is None:
        return False
    name = found.group(1).rstrip("/-")
    if not _LETTER.search(name):
        return False
    if not silent:
        token = state.push("tag", "", 0)
        token.meta = {"name": name}
    state.pos = start + 1 + len(name)
    return True


def tag_url(name: str, vault_id: int | None) -> str:
    """The search page asked for `#name`, in the note's vault when it has one."""
    query = {"q": f"#{name}", **({"vault": vault_id} if vault_id is not None else {})}
    return f"{reverse('search-page')}?{urlencode(query)}"


def _render_tag(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    name = tokens[idx].meta["name"]
    page: Page | None = env.get("page")
    href = escapeHtml(tag_url(name, page.files.vault_id if page is not None else None))
    return f'<a class="tag" href="{href}">#{escapeHtml(name)}</a>'


def tags_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("link", "tag", _tag_rule)
    md.add_render_rule("tag", _render_tag)
