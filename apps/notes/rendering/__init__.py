"""Render a note's Markdown for its page as Obsidian shows it: wikilinks clickable, embeds shown in place,
callouts, block anchors, highlights, task lists, footnotes, tables, math and mermaid diagrams; and a Logseq page
as Logseq shows it (`logseq`): properties, block references and embeds, org-style blocks.

A note's own HTML is drawn only as far as nh3 cleans it (`html`): notes are data, and nothing a note says can run
as script on the page. Math and diagrams leave the server as their (escaped) source, drawn in the browser by the
vendored KaTeX and mermaid."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apps.core.auth import Requester
from apps.notes.markdown import split_frontmatter
from apps.notes.models import Note, NoteLink
from apps.notes.rendering.embeds import Transclusions, note_body
from apps.notes.rendering.files import VaultFiles
from apps.notes.rendering.logseq import is_logseq_page, split_page_properties
from apps.notes.rendering.properties import ShownProperty, shown_properties
from apps.notes.rendering.wikilinks import Page


@dataclass(frozen=True)
class RenderedNote:
    html: str
    frontmatter: dict[str, Any]
    properties: list[ShownProperty] = field(default_factory=list)
    files: frozenset[str] = frozenset()  # the names (lowercased) the note gives files of its vault that exist

    @property
    def has_math(self) -> bool:
        return 'class="math ' in self.html

    @property
    def has_diagrams(self) -> bool:
        return '<pre class="mermaid">' in self.html


def render_note(note: Note, links: list[NoteLink], *, reader: Requester | None = None) -> RenderedNote:
    """The note's body as HTML with every [[wikilink]] pointing at its note or marked unresolved, and its frontmatter
    (as data, and as the page shows its properties).

    A wikilink inside code or math is shown as written and comments are hidden, as Obsidian does. Embedded notes are
    read as `reader` may read them; without a reader, an embed of another note shows as not available."""
    try:
        frontmatter, _ = split_frontmatter(note.body)
    except ValueError:
        frontmatter = {}
    body = note_body(note.body)
    if not frontmatter and is_logseq_page(body):  # a Logseq page's properties are its frontmatter
        frontmatter = split_page_properties(body)[0]
    transclusions = Transclusions(reader)
    html = transclusions.render(note, links, body, ((note.pk or 0, ""),))
    targets = {link.target_text.lower(): link.target_id for link in links}
    files_named = VaultFiles(vault_id=note.vault_id, note_path=note.path, found=transclusions.files_found)
    page = Page(note_id=note.pk, targets=targets, embed=lambda written: "", files=files_named)
    properties = shown_properties(frontmatter, page)
    files = frozenset(
        name.lower()
        for (vault_id, path, name), found in transclusions.files_found.items()
        if (vault_id, path) == (note.vault_id, note.path) and found is not None
    )
    return RenderedNote(html=html, frontmatter=frontmatter, properties=properties, files=files)
