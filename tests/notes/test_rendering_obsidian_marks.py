"""What the page draws as Obsidian does where the maintained plugins do otherwise, and what the plugins add."""

from __future__ import annotations

from apps.notes.models import Note, NoteLink
from apps.notes.rendering import render_note
from tests.notes.test_rendering_real_vaults import html_of


def test_any_character_in_a_task_s_brackets_makes_a_done_task():
    # Obsidian's alternate statuses (cancelled, half done, moved), which themes such as Minimal draw.
    html = html_of("- [-] Cancelled\n- [/] Half done\n- [>] Moved\n- [ ] Open\n")
    assert html.count('class="task-list-item-checkbox" disabled checked>') == 3
    assert html.count('class="task-list-item-checkbox" disabled>') == 1
    assert "[-]" not in html and "Cancelled</li>" in html


def test_an_inline_footnote_is_listed_with_the_others():
    html = html_of("Bread needs time.^[At least a night in the fridge.] And salt.[^salt]\n\n[^salt]: Two percent.\n")
    assert '<a href="#fn-1" id="fnref-1">[1]</a>' in html and '<a href="#fn-2" id="fnref-2">[2]</a>' in html
    notes = html[html.index('<section class="footnotes">') :]
    assert notes.index("At least a night in the fridge.") < notes.index("Two percent.")
    assert "^[" not in html


def test_a_math_block_under_a_list_item_s_text_is_drawn_once():
    html = html_of("1. The area:\n   $$\n   \\pi r^2\n   $$\n2. Done\n")
    assert html.count("\\pi r^2") == 1
    assert '<li>The area:<div class="math math-display">\\pi r^2</div>' in html


def test_a_heading_s_anchor_keeps_the_text_of_its_wikilink():
    html = html_of("## Notes on [[Sourdough Starter|the starter]]\n")
    assert '<h2 id="notes-on-the-starter">' in html


def test_an_embed_that_names_a_note_is_that_note_even_with_a_file_s_extension():
    # A Logseq page may be titled like a file ("package.json"); the link found the note, so the note is embedded.
    note = Note(pk=7, path="note.md", title="note", body="![[package.json]]\n")
    link = NoteLink(target_text="package.json", kind="embed", target_id=12)
    html = render_note(note, [link]).html
    assert html == '<div class="embed embed-unavailable">Embedded note not available</div>'  # no reader here
