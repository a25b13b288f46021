"""The note page shows what the author wrote: code and math stay byte for byte, with no link made inside them,
and comments are hidden, as Obsidian shows them. Excerpts come from the real vaults (each cites its file)."""

from __future__ import annotations

import re

from apps.notes.models import Note
from apps.notes.rendering import render_note
from tests.corpora import CORPORA


def html_of(body: str) -> str:
    return render_note(Note(path="note.md", title="note", body=body), [])[0]


def test_a_fenced_block_shows_its_wikilink_as_written():
    # foam-docs/user/features/embeds.md
    html = html_of(
        "see [[foam-queries]].\n\nUse the embed syntax with an exclamation mark before the wikilink:"
        "\n\n```markdown\n![[note-name]]\n```\n"
    )
    assert '<code class="language-markdown">![[note-name]]\n</code>' in html
    assert html.count('class="unresolved"') == 1  # the prose link only


def test_inline_code_shows_its_wikilink_as_written():
    # foam-docs/user/recipes/write-your-notes-in-github-gist.md
    html = html_of("It provides support for editing Foam workspaces, complete with `[[link]]` completion.")
    assert "<code>[[link]]</code>" in html and "unresolved" not in html


def test_every_code_block_of_a_real_note_is_shown_byte_for_byte():
    path = CORPORA / "foam-docs/user/features/embeds.md"
    body = path.read_text(encoding="utf-8")
    html = html_of(body)
    fences = re.findall(r"^```[^\n]*\n(.*?)^```", body, re.M | re.S)  # the blocks not inside a list item
    assert len(fences) >= 5 and any("[[" in code for code in fences), f"{path} has code blocks with wikilinks"
    for code in fences:
        escaped = code.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
        assert escaped in html


def test_comments_are_hidden():
    html = html_of("Shown. %%a note to self with [[Hidden link]]%% Also shown.\n\n<!-- not shown either -->\n")
    assert "note to self" not in html and "Hidden link" not in html and "not shown" not in html
    assert "Shown." in html and "Also shown." in html
