"""Render a note's Markdown for the web page: raw HTML disabled (notes are data), wikilinks made clickable."""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any

from django.urls import reverse
from markdown_it import MarkdownIt

from apps.notes.markdown import WIKILINK, split_frontmatter
from apps.notes.models import Note, NoteLink
from apps.notes.syntax import hidden_spans, without_comments

_UNRESOLVED = "dp-unresolved:"


@functools.cache
def _renderer() -> MarkdownIt:
    # "commonmark" with html off: a <script> in a note is shown as text, never run.
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def _slug(heading: str) -> str:
    return re.sub(r"[^\w-]+", "-", heading.strip().lower()).strip("-")


def render_note(note: Note, links: list[NoteLink]) -> tuple[str, dict[str, Any]]:
    """(HTML of the body, frontmatter) with every [[wikilink]] pointing at its note or marked unresolved; a
    wikilink inside code or math is shown as written, and comments are hidden, as Obsidian does."""
    try:
        frontmatter, body = split_frontmatter(note.body)
    except ValueError:
        frontmatter, body = {}, note.body
    body = without_comments(body)
    verbatim = hidden_spans(body)
    starts = [span.start for span in verbatim]

    def in_verbatim(position: int) -> bool:
        index = bisect.bisect_right(starts, position) - 1
        return index >= 0 and verbatim[index].end > position

    targets = {link.target_text.lower(): link.target_id for link in links}

    def replace(match: re.Match[str]) -> str:
        if in_verbatim(match.start()):
            return match.group(0)
        target, heading, alias = match.group(1).strip(), (match.group(2) or "").strip(), match.group(3)
        text = (alias or (f"{target} › {heading}" if heading and target else target or heading)).strip()
        text = text.replace("[", "(").replace("]", ")")
        target_id = note.pk if not target else targets.get(target.lower())
        if target_id is None:
            return f"[{text}]({_UNRESOLVED})"
        anchor = f"#{_slug(heading)}" if heading else ""
        return f"[{text}]({reverse('note-page', args=[target_id])}{anchor})"

    html = _renderer().render(WIKILINK.sub(replace, body))
    html = html.replace(f'<a href="{_UNRESOLVED}">', '<a class="unresolved" title="no note with this name yet">')
    html = re.sub(
        r"<h([1-6])>(.*?)</h\1>",
        lambda m: f'<h{m.group(1)} id="{_slug(re.sub("<[^>]+>", "", m.group(2)))}">{m.group(2)}</h{m.group(1)}>',
        html,
    )
    return html, frontmatter
