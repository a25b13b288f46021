"""Obsidian's small inline and block marks: `==highlight==`, task lists, `^block-id` anchors and heading anchors.

These are ours because no maintained plugin does what Obsidian does: mdit-py-plugins has no `==highlight==` rule;
markdown-it's task lists (and mdit-py-plugins' tasklists) know only `[ ]` and `[x]`, where Obsidian makes a task of
any one character in the brackets (`[-]` cancelled, `[/]` half done, `[>]` moved: the statuses themes such as
Minimal draw); and mdit-py-plugins' anchors slug a heading from its rendered text, where a link to a section (a
wikilink's `#heading`, a cited passage's heading path) names it by its Markdown, and cannot give an embedded
note's headings the prefix that keeps ids unique on the page."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Delimiter
from markdown_it.token import Token

from apps.notes.rendering.wikilinks import as_written
from apps.notes.text import heading_id

_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")
_TASK = re.compile(r"^\[([^\]\n])\](?:[ \t]+|$)")
_BREAKS = frozenset({"softbreak", "hardbreak"})


def _highlight(state: StateInline, silent: bool) -> bool:
    """Each `==` becomes a delimiter that `_pair_highlights` pairs, as markdown-it does for `~~`."""
    if silent or not state.src.startswith("==", state.pos):
        return False
    scanned = state.scanDelims(state.pos, True)
    length = scanned.length
    if length % 2:
        state.push("text", "", 0).content = "="
        length -= 1
    for _ in range(length // 2):
        state.push("text", "", 0).content = "=="
        opening, closing = scanned.can_open, scanned.can_close
        state.delimiters.append(Delimiter(ord("="), 0, len(state.tokens) - 1, -1, opening, closing))
    state.pos += scanned.length
    return True


def _pair_highlights(state: StateInline) -> None:
    nested = [meta["delimiters"] for meta in state.tokens_meta if meta and "delimiters" in meta]
    for delimiters in [state.delimiters, *nested]:
        for opener in delimiters:
            if opener.marker != ord("=") or opener.end == -1:
                continue
            for position, nesting in ((opener.token, 1), (delimiters[opener.end].token, -1)):
                token = state.tokens[position]
                token.type, token.tag, token.nesting = f"mark_{'open' if nesting == 1 else 'close'}", "mark", nesting
                token.markup, token.content = "==", ""


def _enclosing_block(tokens: list[Token], inline_index: int) -> Token | None:
    """The token that opens the paragraph, list item or heading an inline token belongs to. A paragraph a tight
    list draws as bare text (after a heading in the item, as a Logseq heading block's text is) has no element of
    its own to name: its list item is the block."""
    before = tokens[inline_index - 1]
    if before.type == "paragraph_open" and inline_index >= 2 and tokens[inline_index - 2].type == "list_item_open":
        return tokens[inline_index - 2]
    if before.type == "paragraph_open" and before.hidden:
        opening = (token for token in reversed(tokens[: inline_index - 1]) if token.level == before.level - 1)
        return next((token for token in opening if token.type == "list_item_open"), None)
    return before if before.type in {"paragraph_open", "heading_open"} else None


def _previous_block(tokens: list[Token], paragraph_index: int) -> Token | None:
    """The opening token of the block just before `tokens[paragraph_index]` at the same depth."""
    closing = tokens[paragraph_index - 1] if paragraph_index else None
    if closing is None or closing.nesting != -1:
        return closing if closing is not None and closing.block and closing.nesting == 0 else None
    depth = 0
    for index in range(paragraph_index - 1, -1, -1):
        depth += tokens[index].nesting
        if depth == 0:
            return tokens[index]
    return None


def _block_ids(state: StateCore) -> None:
    """A `^id` ending a paragraph or list item is hidden and names the block; alone in a paragraph right after a
    list, quote, table or code block, it names that block (Obsidian's rule for blocks that cannot end in text)."""
    tokens, prefix = state.tokens, getattr(state.env.get("page"), "id_prefix", "")
    for index, inline in enumerate(tokens):
        children = inline.children or []
        if inline.type != "inline" or not children or children[-1].type != "text":
            continue
        found = _BLOCK_ID.search(children[-1].content)
        block = _enclosing_block(tokens, index)
        if found is None or block is None or block.type == "heading_open":
            continue
        children[-1].content = children[-1].content[: found.start()].rstrip()
        # the line breaks and the space before the id go with it; a link or a mark closing before it stays
        while children and (children[-1].type in _BREAKS or (children[-1].type == "text" and not children[-1].content)):
            children.pop()
        if not children and block.type == "paragraph_open":  # the id alone: it names the block before
            tokens[index - 1].hidden = tokens[index + 1].hidden = True
            block = _previous_block(tokens, index - 1)
            if block is None:
                continue
        block.attrSet("id", f"{prefix}^{found.group(1).lower()}")


def _tasks(state: StateCore) -> None:
    tokens = state.tokens
    for index, inline in enumerate(tokens):
        if inline.type != "inline" or index < 2 or tokens[index - 2].type != "list_item_open":
            continue
        children = inline.children or []
        found = _TASK.match(children[0].content) if children and children[0].type == "text" else None
        if found is None:
            continue
        children[0].content = children[0].content[found.end() :]
        children.insert(0, Token("task_checkbox", "", 0, meta={"done": found.group(1) != " "}))
        tokens[index - 2].attrJoin("class", "task-list-item")


def _heading_ids(state: StateCore) -> None:
    """Each heading's id is made from its Markdown as written, by the function every link to a section uses. A
    heading whose text an earlier one shares gets `-1`, `-2` … after it, as GitHub's and Obsidian's readers number
    them: the first keeps the plain id, which a link naming the heading by its text goes to."""
    page = state.env.get("page")
    prefix = getattr(page, "id_prefix", "")
    taken = {str(token.attrGet("id")) for token in state.tokens if token.attrGet("id")}  # `^block` ids too
    repeats: dict[str, int] = {}
    for index, token in enumerate(state.tokens):
        if token.type == "heading_open" and not token.attrGet("id"):
            written = state.tokens[index + 1].content
            plain = heading_id(as_written(written, page) if page else written)
            unique = plain
            while plain and f"{prefix}{unique}" in taken:
                repeats[plain] = repeats.get(plain, 0) + 1
                unique = f"{plain}-{repeats[plain]}"
            taken.add(f"{prefix}{unique}")
            token.attrSet("id", f"{prefix}{unique}")


def _render_checkbox(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    checked = " checked" if tokens[idx].meta["done"] else ""
    return f'<input type="checkbox" class="task-list-item-checkbox" disabled{checked}> '


def blocks_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("emphasis", "highlight", _highlight)
    md.inline.ruler2.before("emphasis", "highlight", _pair_highlights)
    md.core.ruler.push("block_ids", _block_ids)
    md.core.ruler.push("tasks", _tasks)
    md.core.ruler.push("heading_ids", _heading_ids)
    md.add_render_rule("task_checkbox", _render_checkbox)
