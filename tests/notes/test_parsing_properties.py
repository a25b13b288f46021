"""Properties of the note parser and the chunker on generated Markdown: neither raises on any text, and chunking
keeps every character of a note's prose (whitespace and comments aside; headings name the chunks under them)."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.notes.blocks import block_tree
from apps.notes.markdown import NoteFormatError, chunk_note, parse_note, split_frontmatter
from apps.notes.syntax import without_comments, without_link_definitions

LINES = [
    "# Title",
    "## Part ##",
    "### Deep",
    "- item [[Link]]",
    "  - nested #tag",
    "1. first",
    "> quoted",
    "> [!note] callout",
    "```python",
    "```",
    "~~~",
    "| a | b |",
    "|---|---|",
    "| 1 | 2 |",
    "    indented code",
    "---",
    "key:: value",
    "id:: 64a1c2d3-0000-4000-8000-00000000abcd",
    "text with ((64a1c2d3-0000-4000-8000-00000000abcd))",
    "[label]: other.md",
    "![[Embed]] and [x](Note%20Two.md#Part)",
    "$$",
    "%% comment %%",
    "<!-- html -->",
    "",
]
line = st.one_of(
    st.sampled_from(LINES),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"), max_size=120),
)
bodies = st.lists(line, max_size=60).map("\n".join)
yaml_values = st.one_of(
    st.sampled_from(['"\\ud83c\\udf5e"', '"\\ud83c"', '"\\udf5e x"', '"a\\0b"', "2020-13-45", ".inf", "&a [1]", "*a"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"), max_size=30),
)
frontmatters = st.one_of(
    st.sampled_from(["", "---\ntitle: T\ntags: [a]\n---\n", "---\n[broken\n---\n", "---\n"]),
    st.lists(st.tuples(st.sampled_from(["title", "tags", "aliases", "x"]), yaml_values), max_size=5).map(
        lambda pairs: "---\n" + "".join(f"{key}: {value}\n" for key, value in pairs) + "---\n"
    ),
)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(frontmatter=frontmatters, body=bodies)
def test_parsing_any_text_gives_a_note_or_a_reason(frontmatter, body):
    try:
        note = parse_note("folder/Note.md", frontmatter + body)
    except NoteFormatError as exc:
        assert str(exc)
        return
    assert note.title and len(note.title) <= 500
    # What PostgreSQL stores: text without NUL characters or lone surrogates, JSON (jsonb) without \u0000.
    stored = json.dumps([note.title, note.frontmatter, note.tags, note.aliases, note.link_keys], ensure_ascii=False)
    stored.encode("utf-8")
    assert "\\u0000" not in stored and "\x00" not in stored


def _visible(text: str) -> Counter[str]:
    return Counter(ch for ch in text if not ch.isspace() and ch != "#")


def _prose_lines(text: str) -> str:
    """The text without its headings (`# ATX` and setext): a heading names the chunks under it, and one with
    nothing under it makes no chunk."""
    lines = text.split("\n")
    heading_lines = {i for block in block_tree(lines) if block.kind == "heading" for i in range(block.start, block.end)}
    return "\n".join(line for i, line in enumerate(lines) if i not in heading_lines)


@SETTINGS
@given(body=bodies, max_chars=st.sampled_from([300, 1000]))
def test_chunks_keep_every_character_of_the_visible_text(body, max_chars):
    try:
        _, text = split_frontmatter(body)
    except NoteFormatError:
        return
    chunks = chunk_note("Note", body, max_chars=max_chars)

    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    written = _visible("\n".join(f"{c.heading}\n{c.text}" for c in chunks))
    missing = _visible(_prose_lines(without_link_definitions(without_comments(text)))) - written
    assert not missing, f"lost {missing}"
