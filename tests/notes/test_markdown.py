"""Parsing notes: titles, tags, aliases, links, chunk bounds, and no pathological regex on hostile lines."""

from __future__ import annotations

import signal

import pytest

from apps.notes.markdown import chunk_note, parse_note


def test_title_tags_aliases_and_links():
    note = parse_note(
        "ideas/Raw Name.md",
        "---\ntags: [a, b]\naliases: [Short]\n---\n# The Title ##\nSee [[Other#Part|there]] #inline\n",
    )
    assert note.title == "The Title"  # the heading the note opens with names it
    assert note.tags == ["a", "b", "inline"]
    assert note.aliases == ["Short"]
    assert [(lk.target, lk.heading, lk.alias) for lk in note.links] == [("Other", "Part", "there")]
    assert {"short", "raw name", "ideas/raw name"} <= set(note.link_keys)


def test_a_heading_after_the_opening_names_a_section_not_the_note():
    assert parse_note("people/Kevin Kelly.md", "## Books\n- Out of Control\n# Clippings\n").title == "Kevin Kelly"
    logseq_page = "type:: [[Feature]]\n\n# Usage\n- Drag a shape\n"
    assert parse_note("pages/Snap to grid.md", logseq_page).title == "Snap to grid"


def test_chunks_stay_within_the_model_input_and_cut_at_headings():
    body = "# T\n\n" + "\n\n".join(f"## Part {i}\n\n" + ("word " * 150) for i in range(6))
    chunks = chunk_note("T", body, max_chars=1000)
    assert len(chunks) >= 6
    assert all(len(c.embed_text) <= 1000 for c in chunks)
    assert all(c.heading.startswith("T > Part") for c in chunks[1:])


@pytest.mark.parametrize(
    "line",
    ["# a" + " " * 20_000 + "x", "#" + " " * 20_000 + "#" * 5000 + " x", "## " + "# " * 10_000],
)
def test_hostile_heading_lines_parse_without_catastrophic_backtracking(line):
    def too_slow(signum, frame):  # type: ignore[no-untyped-def]
        raise TimeoutError("heading parsing backtracked")

    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(10)  # a guard against a hang, not a speed measurement: linear parsing takes milliseconds
    try:
        note = parse_note("x.md", line + "\nbody\n")
        chunk_note(note.title, note.body, max_chars=1000)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert note.title
