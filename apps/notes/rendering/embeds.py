"""Transclusion: `![[Note]]`, `![[Note#Heading]]` and `![[Note#^block]]` show that part of the note in place.

An embedded note is loaded through the reader's permissions (never through the embedding note's), so a note the
reader may not read shows only "not available", and the files it names are looked up in its own vault, which the
reader may read. Embeds nest up to `MAX_DEPTH`, a note never embeds a part of itself
that is already being shown (cycles end there), and a page shows at most `MAX_EMBEDS` embedded parts."""

from __future__ import annotations

import functools
import re

from django.urls import reverse
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from apps.core.auth import Requester
from apps.notes.markdown import split_frontmatter
from apps.notes.models import Note, NoteLink
from apps.notes.rendering.files import Found, VaultFiles
from apps.notes.rendering.logseq import (
    block_of,
    block_text,
    is_logseq_page,
    logseq_markdown,
    split_page_properties,
)
from apps.notes.rendering.parser import render_body
from apps.notes.rendering.wikilinks import Page, WrittenLink, anchor
from apps.notes.selectors import notes_for_embedding
from apps.notes.syntax import without_comments
from apps.notes.text import heading_id

MAX_DEPTH = 3
MAX_EMBEDS = 40
_BLOCK_ID = r"(?:^|\s)\^{}\s*$"
# A reference or an embed of a block that no note the reader may read holds, marked as Logseq marks a reference it
# cannot follow; its id would tell the reader nothing.
MISSING_BLOCK = (
    '<span class="block-ref block-ref-missing" title="no block with this id in a note you can read">'
    "missing block</span>"
)

Shown = tuple[int, str]  # (note id, the part shown: "" for the whole note, else the heading or ^block)


def plain_text(markdown: str) -> str:
    """The words of one line of Markdown, its marks and link targets left out (`[[Page]]` reads `Page`)."""
    tokens = _outline_parser().parseInline(markdown.replace("[[", "").replace("]]", ""))
    children = [child for token in tokens for child in token.children or []]
    return "".join(child.content for child in children if child.type in {"text", "code_inline"}).strip()


def note_body(text: str) -> str:
    """What a note page shows of a note's text: frontmatter and comments removed."""
    try:
        _, body = split_frontmatter(text)
    except ValueError:
        body = text
    return without_comments(body)


@functools.cache
def _outline_parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def _heading_section(lines: list[str], tokens: list[Token], heading: str) -> str | None:
    wanted = heading_id(heading)
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.level or token.map is None:
            continue
        if heading_id(tokens[index + 1].content) != wanted:
            continue
        rank = int(token.tag[1])
        ends = [
            t.map[0]
            for t in tokens[index + 1 :]
            if t.type == "heading_open" and not t.level and t.map and int(t.tag[1]) <= rank
        ]
        end = ends[0] if ends else len(lines)
        return "\n".join(lines[token.map[0] : end])
    return None


def _block_section(lines: list[str], tokens: list[Token], block_id: str) -> str | None:
    ends_with_id = re.compile(_BLOCK_ID.format(re.escape(block_id)), re.I)
    for index, token in enumerate(tokens):
        if token.type != "inline" or not ends_with_id.search(token.content):
            continue
        block = tokens[index - 1]
        if index >= 2 and tokens[index - 2].type == "list_item_open":
            block = tokens[index - 2]
        if token.content.strip().startswith("^") and block.type == "paragraph_open" and index >= 2:
            depth, position = 0, index - 2  # the id alone names the block before it
            for position in range(index - 2, -1, -1):
                depth += tokens[position].nesting
                if depth == 0:
                    break
            block = tokens[position]
        if block.map is None:
            return None
        return "\n".join(lines[block.map[0] : block.map[1]])
    return None


def section_of(body: str, part: str) -> str | None:
    """The text of `body` that `part` names (a heading, `a#b` for a subheading, or `^block`); None if none."""
    if not part:
        return body
    last = part.split("#")[-1].strip()
    lines = body.split("\n")
    tokens = _outline_parser().parse(body)
    if last.startswith("^"):
        return _block_section(lines, tokens, last[1:])
    return _heading_section(lines, tokens, last)


class Transclusions:
    """The notes one page embeds, each loaded once through the reader's permissions."""

    def __init__(self, reader: Requester | None) -> None:
        self.reader = reader
        self.loaded: dict[int, tuple[Note, list[NoteLink]] | None] = {}
        self.files_found: Found = {}
        self.shown = 0

    def render(self, note: Note, links: list[NoteLink], body: str, chain: tuple[Shown, ...]) -> str:
        """HTML of `body` (`note`, or a part of it, whose links are `links`), its embeds shown in place and the
        files it names found in its own vault."""
        logseq = is_logseq_page(note_body(note.body))
        shown = {"embed", "block"} if logseq else {"embed"}
        wanted = {link.target_id for link in links if link.kind in shown and link.target_id is not None}
        self._load(wanted - set(self.loaded))
        targets = {link.target_text.lower(): link.target_id for link in links}
        files = VaultFiles(vault_id=note.vault_id, note_path=note.path, found=self.files_found)
        page = Page(note_id=note.pk, targets=targets, embed=lambda written: "", files=files, logseq=logseq)
        page.embed = lambda written: self._embed(written, page, chain)
        if logseq:
            page.quote = lambda written: self._quote(written, page)
            body = logseq_markdown(split_page_properties(body)[1])
        if len(chain) > 1:
            page.id_prefix = f"embed-{self.shown}-"
        return render_body(body, page)

    def _load(self, note_ids: set[int]) -> None:
        if not note_ids:
            return
        found = notes_for_embedding(user=self.reader, note_ids=note_ids) if self.reader is not None else {}
        for note_id in note_ids:
            self.loaded[note_id] = found.get(note_id)

    def _embed(self, written: WrittenLink, page: Page, chain: tuple[Shown, ...]) -> str:
        target_id = page.target_of(written)
        if target_id is None and written.block:
            return MISSING_BLOCK
        if target_id is None:
            name = escapeHtml(written.target or written.heading)
            return f'<span class="embed embed-unresolved" title="no note with this name yet">{name}</span>'
        if target_id not in self.loaded:
            self._load({target_id})
        entry = self.loaded[target_id]
        if entry is None:  # says nothing of the note: not its title, not whether it exists
            return '<div class="embed embed-unavailable">Embedded note not available</div>'
        note, links = entry
        part = written.heading
        href = escapeHtml(reverse("note-page", args=[note.pk]) + (f"#{anchor(part)}" if part else ""))
        title = escapeHtml(note.title + (f" › {part}" if part and not part.startswith("^") else ""))
        if (note.pk, "") in chain or (note.pk, part.lower()) in chain:
            return f'<div class="embed embed-cycle">Already shown above: <a href="{href}">{title}</a></div>'
        if len(chain) > MAX_DEPTH or self.shown >= MAX_EMBEDS:
            return f'<div class="embed embed-limit">Embedded here: <a href="{href}">{title}</a></div>'
        section = self._section(note, part)
        if section is None:
            return f'<div class="embed embed-missing">Not found in the note: <a href="{href}">{title}</a></div>'
        self.shown += 1
        inner = self.render(note, links, section, (*chain, (note.pk, part.lower())))
        return (
            f'<div class="embed" data-note="{note.pk}"><div class="embed-title"><a href="{href}">{title}</a></div>'
            f'<div class="embed-content">\n{inner}</div></div>\n'
        )

    def _section(self, note: Note, part: str) -> str | None:
        body = note_body(note.body)
        if part.startswith("^") and is_logseq_page(body) and (block := block_of(body, part[1:])) is not None:
            return block
        return section_of(body, part)

    def _quote(self, written: WrittenLink, page: Page) -> str:
        """A Logseq `((block reference))`: the referenced block's text, linking to where it is written."""
        target_id = page.target_of(written)
        if target_id is not None and target_id not in self.loaded:
            self._load({target_id})
        entry = self.loaded.get(target_id) if target_id is not None else None
        block = block_of(note_body(entry[0].body), written.block) if entry is not None else None
        if block is None:  # missing and not readable look the same: nothing is said of a note one may not read
            return MISSING_BLOCK
        href = escapeHtml(reverse("note-page", args=[target_id]) + f"#^{written.block}")
        return f'<a class="block-ref" href="{href}">{escapeHtml(plain_text(block_text(block)))}</a>'
