"""Answers as the page shows them: Markdown rendered, raw HTML and unsafe links kept harmless, citations linked."""

from __future__ import annotations

from apps.chat.services.answer_markdown import answer_html

CITED = {1: ("/notes/41/", "Guides/Setup.md"), 2: ("/notes/42/#step-2", 'Odd "quoted" <path>.md')}


def test_lists_code_tables_and_links_render_as_html():
    html = answer_html(
        "To save:\n\n- press `Ctrl+S` [1]\n- or **Save** [2]\n\n| key | does |\n|---|---|\n| `Ctrl+P` | palette |\n\n"
        "See [the guide](https://example.com/guide).",
        CITED,
    )
    assert "<ul>\n<li>press <code>Ctrl+S</code> " in html
    assert "<strong>Save</strong>" in html
    assert "<table>" in html and "<td><code>Ctrl+P</code></td>" in html
    assert '<a href="https://example.com/guide">the guide</a>' in html
    assert "`" not in html and "**" not in html and "| key |" not in html  # no markdown debris reaches the page


def test_citations_link_to_their_notes_and_nothing_else_does():
    html = answer_html("First [1], then [2], never [3]; in code `a[1]` stays.", CITED)
    assert '<a class="cite" href="/notes/41/" title="Guides/Setup.md">[1]</a>' in html
    assert 'href="/notes/42/#step-2" title="Odd &quot;quoted&quot; &lt;path&gt;.md">[2]</a>' in html
    assert "never [3]" in html  # cites nothing that passed the gate
    assert "<code>a[1]</code>" in html


def test_raw_html_and_script_links_stay_harmless():
    html = answer_html("<script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3)) [1]", CITED)
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html
    assert 'href="javascript' not in html


def test_a_link_relative_to_the_quoted_note_shows_as_its_words():
    html = answer_html("Tags show in the [Tag Explorer](../features/tags.md), see [Foam](https://foam.dev) [1]", {})
    assert "Tag Explorer" in html and "../features/tags.md" not in html  # it would open a page that does not exist
    assert '<a href="https://foam.dev">Foam</a>' in html


def test_an_image_a_note_shows_is_quoted_as_its_description():
    html = answer_html(
        "Charlie ![image.png](../assets/image_1687.png){:height 560} and ![the graph view](https://x.example/g.png)",
        CITED,
    )
    assert "<img" not in html and "image_1687" not in html and "x.example" not in html  # a broken or outside picture
    assert "Charlie" in html and "the graph view" in html
    assert "image.png" not in html  # a file name says nothing
