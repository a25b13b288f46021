"""The note page shows what the author wrote: code and math stay byte for byte, with no link made inside them,
and comments are hidden, as Obsidian shows them. Excerpts come from the real vaults (each cites its file)."""

from __future__ import annotations

import re
from html import escape, unescape
from html.parser import HTMLParser

import pytest
from django.test import Client
from markdown_it import MarkdownIt

from apps.notes.markdown import split_frontmatter
from apps.notes.models import Note, NoteLink
from apps.notes.rendering import render_note
from apps.notes.rendering.logseq import is_logseq_page, logseq_markdown, split_page_properties
from apps.notes.syntax import without_comments
from tests.corpora import CORPORA
from tests.factories import make_note, make_user, make_vault, share


def html_of(body: str) -> str:
    return render_note(Note(path="note.md", title="note", body=body), []).html


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


def real(path: str) -> str:
    return (CORPORA / path).read_text(encoding="utf-8")


def code_texts(html: str) -> list[str]:
    """The text of every code block of a page, as the browser shows it."""
    return [unescape(text) for text in re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", html, re.S)]


# Callouts: none of the three vaults has one (foam-docs only names the syntax, in inline code), so these notes are
# written here in Obsidian's documented forms.


def test_a_callout_has_its_type_icon_and_title():
    html = html_of("> [!warning] Mind the *oven*\n> It runs hot.\n")
    assert '<div class="callout callout-warning" data-callout="warning">' in html
    assert '<span class="callout-icon" aria-hidden="true">⚠</span> Mind the <em>oven</em></div>' in html
    assert '<div class="callout-content">\n<p>It runs hot.</p>' in html
    assert "[!warning]" not in html and "<blockquote>" not in html


def test_a_callout_without_title_is_titled_by_its_type_and_an_alias_looks_like_its_kind():
    html = html_of("> [!faq]\n> Why?\n")
    assert 'class="callout callout-question" data-callout="faq"' in html and "</span> Faq</div>" in html


def test_an_unknown_callout_type_renders_as_a_note_titled_by_its_type():
    html = html_of("> [!recipe]\n> Flour, water, salt.\n")
    assert 'class="callout callout-note" data-callout="recipe"' in html and "</span> Recipe</div>" in html


def test_foldable_callouts_are_details_open_with_plus_closed_with_minus():
    opened = html_of("> [!tip]+ Open me\n> inside\n")
    closed = html_of("> [!tip]- Closed\n> inside\n")
    assert '<details class="callout callout-tip" data-callout="tip" open>' in opened
    assert '<details class="callout callout-tip" data-callout="tip">' in closed
    assert '<summary class="callout-title">' in closed and "</summary>" in closed and "</details>" in closed


def test_a_callout_inside_a_callout_is_a_callout_too():
    html = html_of("> [!note] Outer\n> text\n> > [!danger] Inner\n> > deep\n")
    outer, inner = html.index('data-callout="note"'), html.index('data-callout="danger"')
    assert outer < inner < html.index("deep") < html.rindex("</div>")
    assert html.count('class="callout-content"') == 2


def test_a_plain_quote_stays_a_quote():
    html = html_of("> We shall fight on the beaches,\n> we shall fight on the landing grounds.\n")
    assert html.startswith("<blockquote>") and "callout" not in html


# Block ids: the vaults write them only as examples inside code blocks (foam-docs/user/features/block-anchors.md);
# these are those examples, rendered as notes.


def test_a_block_id_ending_a_paragraph_is_hidden_and_names_the_paragraph():
    html = html_of(
        "The first measurements were inconclusive.\nAfter repeating the experiment, results became clear."
        " ^experiment-result\n"
    )
    assert '<p id="^experiment-result">The first measurements were inconclusive.' in html
    assert "results became clear.</p>" in html and "^experiment-result<" not in html


def test_a_block_id_ending_a_list_item_names_the_item():
    html = html_of(
        "- Mix dry ingredients thoroughly ^dry-step\n  - 2 cups flour\n  - 1 tsp salt\n"
        "- Add wet ingredients ^wet-step\n"
    )
    assert '<li id="^dry-step">Mix dry ingredients thoroughly' in html
    assert '<li id="^wet-step">Add wet ingredients</li>' in html


def test_a_block_id_on_its_own_line_after_a_table_names_the_table():
    html = html_of("| Name  | Score |\n| ----- | ----- |\n| Alice | 95    |\n| Bob   | 87    |\n\n^results-table\n")
    assert '<table id="^results-table">' in html and "results-table</p>" not in html


def test_a_link_to_a_block_goes_to_its_anchor():
    # foam-docs/user/features/block-anchors.md: [[research-notes#^key-insight|See the key insight]]
    note = Note(pk=7, path="note.md", title="note", body="[[research-notes#^key-insight|See the key insight]]")
    link = NoteLink(target_text="research-notes", heading="^key-insight", target_id=12)
    html = render_note(note, [link]).html
    assert '<a class="internal" href="/notes/12/#^key-insight">See the key insight</a>' in html


# Highlights, task lists, footnotes, tables, strikethrough: from the vaults.


def test_a_highlight_is_marked():
    # logseq-docs/pages/Whiteboard.md
    html = html_of(real("logseq-docs/pages/Whiteboard.md"))
    assert "<mark><code>New whiteboard</code></mark>" in html and "==" not in html


def test_a_task_list_has_disabled_checkboxes():
    html = html_of(real("kepano-obsidian/Notes/Minimal Theme.md"))
    assert html.count('<input type="checkbox" class="task-list-item-checkbox" disabled checked>') == 3
    assert "[x]" not in html and "E-ink mode</li>" in html
    open_task = html_of("- [ ] Goal 1\n- [ ] Goal 2\n")  # foam-docs/user/features/templates.md
    assert open_task.count('class="task-list-item-checkbox" disabled>') == 2 and "checked" not in open_task


def test_footnotes_are_numbered_and_listed_at_the_end():
    html = html_of(real("logseq-docs/pages/changelog_06.md"))
    assert 'a simple footnote,<sup class="footnote-ref"><a href="#fn-1" id="fnref-1">[1]</a></sup>' in html
    footnotes = html[html.index('<section class="footnotes">') :]
    assert '<li id="fn-1"><p>This is the first footnote.</p>' in footnotes
    assert "Here's one with multiple paragraphs and code." in footnotes and "[^bignote]" not in html


def test_a_footnote_used_twice_links_back_to_its_first_use():
    # foam-docs/user/features/footnotes.md, its "Multiple References" example
    html = html_of(
        "This point[^caveat] is elaborated elsewhere.[^caveat]\n\n"
        "[^caveat]: See the companion article for full details.\n"
    )
    assert 'id="fnref-1"' in html and 'id="fnref-1-2"' in html and html.count('<li id="fn-1">') == 1


def test_tables_and_strikethrough():
    html = html_of(real("foam-docs/user/getting-started/note-taking-in-foam.md"))
    assert "<th>Shortcut</th>" in html and "<td><code>Ctrl+N</code> / <code>Cmd+N</code></td>" in html
    html = html_of(real("logseq-docs/pages/Changelog.md"))
    assert "Release removed: <s>Desktop app and Android App download link:" in html


# Math and diagrams: the server sends their source, escaped, for the browser to draw.


def test_math_is_sent_as_its_tex_source():
    html = html_of(real("foam-docs/user/publishing/math-support-with-mathjax.md"))
    assert 'becomes <span class="math math-inline">e^{i \\pi}+1=0</span>' in html
    assert '<div class="math math-display">f*{\\mathbf{X}}\\left(x*{1}, \\ldots, x\\_{k}\\right)' in html
    assert "<code>$e^{i \\pi}+1=0$</code>" in html  # math in code is code
    calculator = html_of(real("logseq-docs/pages/Calculator.md"))
    assert '<span class="math math-inline">-3\\frac{1}{4}</span>' in calculator


def test_a_multi_line_math_block_keeps_its_lines():
    # logseq-docs/pages/Math Block.md (its example, outside the outline that makes it code there)
    source = (
        "\\frac{1}{\\Bigl(\\sqrt{\\phi \\sqrt{5}}-\\phi\\Bigr) e^{\\frac25 \\pi}} = 1+\\frac{e^{-2\\pi}}\n"
        "{1+\\frac{e^{-4\\pi}} {1+\\frac{e^{-6\\pi}} {1+\\frac{e^{-8\\pi}} {1+\\cdots} } } }"
    )
    html = html_of(f"becomes\n$$\n{source}\n$$\n")
    assert f'<div class="math math-display">{source}</div>' in html


def test_money_is_not_math():
    html = html_of("It costs $5 and $10, not more.")
    assert "math" not in html and "$5 and $10" in html


def test_a_mermaid_fence_becomes_a_diagram_with_its_escaped_source():
    # foam-docs/user/getting-started/get-started-with-vscode.md shows this fence inside a ````markdown example
    outer = real("foam-docs/user/getting-started/get-started-with-vscode.md")
    fence = re.search(r"^```mermaid\n.*?^```$", outer, re.M | re.S)
    assert fence is not None
    html = html_of(fence.group())
    source = fence.group().split("\n", 1)[1].rsplit("```", 1)[0]
    assert html == f'<pre class="mermaid">{escape(source, quote=False)}</pre>\n'
    assert "A[Foam Workspace] --&gt; B[Notes]" in html


# Code is shown byte for byte, and nothing in a note can run.


def test_every_code_block_of_the_three_vaults_is_shown_byte_for_byte():
    reference = MarkdownIt("commonmark", {"html": False}).enable("table")
    checked = 0
    for path in sorted(CORPORA.rglob("*.md")):
        body = path.read_text(encoding="utf-8")
        _, body = split_frontmatter(body) if body.startswith("---\n") else ({}, body)
        # A Logseq page's code is its fences and source blocks, its outline out of the margin (not code).
        shown = logseq_markdown(split_page_properties(body)[1]) if is_logseq_page(body) else body
        fences = [
            t.content
            for t in reference.parse(without_comments(shown))
            if t.type in {"fence", "code_block"} and not t.info.startswith("mermaid")
        ]
        assert code_texts(html_of(body)) == fences, path
        checked += len(fences)
    assert checked >= 300  # 307 code blocks in the three vaults


@pytest.mark.parametrize(
    "attack",
    [
        "<script>document.title='pwned'</script>",
        "[click](javascript:alert(1))",
        "<img src=x onerror=alert(1)>",
        "![x](javascript:alert(1))",
        "> [!note] <img src=x onerror=alert(1)>\n> body",
        '> [!x" onmouseover="alert(1)] title',
        "$</span><script>alert(1)</script>$",
        "$$\n</div><img src=x onerror=alert(1)>\n$$",
        "```mermaid\n</pre><script>alert(1)</script>\n```",
        "![[<img src=x onerror=alert(1)>.png]]",
        "[[<script>alert(1)</script>]]",
        "text[^1]\n\n[^1]: <script>alert(1)</script>",
        '<a href="javascript:alert(1)">x</a> <b onclick="alert(1)">b</b>',
        '<details open ontoggle="alert(1)"><summary>s</summary></details>',
        '<table><tr><td onmouseover="alert(1)" style="background:url(javascript:alert(1))">c</td></tr></table>',
        "<div>\n<svg onload=alert(1)><script>alert(1)</script></svg>\n</div>",
        '<div><iframe src="https://evil.example"></iframe></div>',
        "<kbd>Ctrl</kbd><img src=x onerror=alert(1)><object data=x></object>",
    ],
)
def test_nothing_in_a_note_becomes_a_script_a_handler_or_a_javascript_link(attack):
    elements = ElementsOf()
    elements.feed(html_of(attack))
    tags = {tag for tag, _ in elements.found}
    attributes = {name: value or "" for _, pairs in elements.found for name, value in pairs}
    assert not tags & {"script", "img", "iframe", "object", "embed", "svg"}, tags
    assert not [name for name in attributes if name.startswith("on")], attributes
    assert not [v for v in attributes.values() if v.strip().lower().startswith(("javascript:", "data:"))]


class ElementsOf(HTMLParser):
    """Every element of an HTML fragment, as a browser's parser sees it: (tag, attributes)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))


# Embeds: the vaults' own note embeds sit in code examples (foam-docs/user/features/embeds.md), so the embedding
# notes here are short; the embedded notes are the vaults' own.


def page_of(note: Note, reader) -> str:
    return render_note(note, list(NoteLink.objects.filter(source=note)), reader=reader).html


@pytest.mark.django_db
def test_an_embedded_note_heading_and_block_are_shown_in_place():
    owner = make_user()
    vault = make_vault(owner, "Foam")
    footnotes = make_note(vault, "footnotes.md", real("foam-docs/user/features/footnotes.md"), embed=False)
    make_note(
        vault,
        "research-notes.md",  # foam-docs/user/features/block-anchors.md, its examples
        "The first measurements were inconclusive.\n\nThis is an important finding from the experiment. ^key-insight"
        "\n\nAfter repeating the experiment, results became clear.\n",
        embed=False,
    )
    reading = make_note(
        vault,
        "Reading.md",
        "![[footnotes]]\n\n![[footnotes#Multiple References]]\n\n![[research-notes#^key-insight]]\n",
        embed=False,
    )
    html = page_of(reading, owner)
    embeds = html.split('<div class="embed" ')[1:]
    assert len(embeds) == 3 and "<p><div" not in html
    assert f'<a href="/notes/{footnotes.pk}/">Footnotes</a>' in embeds[0]
    assert "Footnotes let you add references" in embeds[0] and 'id="embed-1-writing-footnotes"' in embeds[0]
    section = embeds[1]
    assert "You can reference the same footnote more than once" in section
    assert "Footnotes let you add references" not in section and "Related" not in section
    block = embeds[2]
    assert "This is an important finding from the experiment." in block and "^key-insight<" not in block
    assert "inconclusive" not in block and "results became clear" not in block
    assert f'href="/notes/{footnotes.pk}/#multiple-references"' in section


@pytest.mark.django_db
def test_an_embed_of_a_note_the_reader_may_not_read_says_only_that_it_is_not_available():
    reader, stranger = make_user(), make_user()
    mine, theirs = make_vault(reader, "Mine"), make_vault(stranger, "Theirs")
    secret = make_note(theirs, "Plans.md", "# Merger plans\nWe buy the bakery on Friday.\n", embed=False)
    page = make_note(mine, "Page.md", "Before.\n\n![[Plans]]\n\nAfter.\n", embed=False)
    # Links resolve within a vault; point this one across anyway, so only the permission check stands between.
    NoteLink.objects.filter(source=page, kind="embed").update(target=secret)

    html = page_of(page, reader)
    assert '<div class="embed embed-unavailable">Embedded note not available</div>' in html
    for leak in ("Merger", "bakery", f"/notes/{secret.pk}/", f'data-note="{secret.pk}"'):
        assert leak not in html
    browser = Client()
    browser.force_login(reader)
    assert "bakery" not in browser.get(f"/notes/{page.pk}/").content.decode()

    share(theirs, "reader", user=reader)
    assert "We buy the bakery on Friday." in page_of(page, reader)


@pytest.mark.django_db
def test_embeds_end_at_a_cycle_and_at_the_depth_limit():
    owner = make_user()
    vault = make_vault(owner)
    itself = make_note(vault, "Mirror.md", "A mirror.\n\n![[Mirror]]\n", embed=False)
    html = page_of(itself, owner)
    assert html.count("A mirror.") == 1 and 'class="embed embed-cycle">Already shown above' in html

    make_note(vault, "Ping.md", "Ping says hi.\n\n![[Pong]]\n", embed=False)
    pong = make_note(vault, "Pong.md", "Pong says hi.\n\n![[Ping]]\n", embed=False)
    html = page_of(Note.objects.get(path="Ping.md"), owner)
    assert html.count("Ping says hi.") == html.count("Pong says hi.") == 1 and "embed-cycle" in html
    assert "Pong says hi." in page_of(pong, owner)

    for level in range(5, 0, -1):
        make_note(vault, f"Level {level}.md", f"Level {level} text.\n\n![[Level {level + 1}]]\n", embed=False)
    html = page_of(Note.objects.get(path="Level 1.md"), owner)
    assert all(f"Level {n} text." in html for n in (1, 2, 3, 4)) and "Level 5 text." not in html
    assert '<div class="embed embed-limit">Embedded here: <a href=' in html


@pytest.mark.django_db
def test_a_page_shows_at_most_forty_embedded_parts():
    owner = make_user()
    vault = make_vault(owner)
    make_note(vault, "Small.md", "Small text.\n", embed=False)
    many = make_note(vault, "Many.md", "![[Small]]\n\n" * 60, embed=False)
    html = page_of(many, owner)
    assert html.count("Small text.") == 40 and html.count("embed-limit") == 20


def test_an_embedded_file_with_no_vault_to_find_it_in_is_marked_unresolved_never_a_link():
    # The pages that find these files in a vault are in test_rendering_files.py.
    html = html_of(real("kepano-obsidian/Categories/Movies.md"))
    unresolved = '<span class="embed-file embed-unresolved" title="no file with this name in the vault">{}</span>'
    assert html.count(unresolved.format("Movies.base")) == 2 and "<a" not in html and "![[" not in html
    html = html_of("![[image.png|300]]")  # foam-docs/user/features/embeds.md
    assert html == f"<p>{unresolved.format('image.png')}</p>\n"


def test_html_a_note_writes_is_drawn_cleaned_and_the_rest_shown_as_text_on_foams_index():
    html = html_of(real("foam-docs/index.md"))
    # the contributors table: a table of names linked to their pages, not 20,000 pixels of tags as text
    assert "&lt;td" not in html and "&lt;a href" not in html
    assert html.count("<td") == html.count("</td>") >= 100
    jani = '<a href="https://jevakallio.dev/" rel="noopener noreferrer"><br><sub><b>Jani Eväkallio</b></sub></a>'
    assert jani in html
    assert "<img" not in html  # avatars from another site are not loaded
    assert "question-thomaskoppelaar" not in html.replace('href="#question-thomaskoppelaar"', "")  # no tag link
    inline = html_of("Press <kbd>Ctrl</kbd>+<kbd>P</kbd><br>then <b style='color:red' onclick='x()'>bold</b>")
    assert inline == "<p>Press <kbd>Ctrl</kbd>+<kbd>P</kbd><br>then <b>bold</b></p>\n"
    folded = html_of("<details><summary>More</summary>\n\nhidden *text*\n\n</details>")
    assert folded == "<details><summary>More</summary>\n<p>hidden <em>text</em></p>\n</details>"
    # what is not drawn is shown as written, and a placeholder stays a placeholder
    assert html_of("<script>alert(1)</script>") == "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"
    assert "&lt;note-name&gt;" in html_of("Replace <note-name> with yours")


@pytest.mark.django_db
def test_a_bare_address_is_a_link_on_the_real_note_page_but_stays_text_in_code():
    # logseq-docs/pages/Math Block.md: "description:: Write and render math using https://katex.org/ syntax"
    vault = make_vault(make_user(), "Logseq docs")
    note = make_note(vault, "pages/Math Block.md", real("logseq-docs/pages/Math Block.md"), embed=False)
    reader = make_user()
    share(vault, "reader", user=reader)
    client = Client()
    client.force_login(reader)
    page = client.get(f"/notes/{note.pk}/").content.decode()
    assert 'Write and render math using <a href="https://katex.org/">https://katex.org/</a> syntax' in page
    supported = "https://katex.org/docs/supported.html"
    assert f'see <a href="{supported}">{supported}</a> and' in page
    assert '<a href="https://github.com/KaTeX/KaTeX/tree/main/contrib/mhchem">mchem package</a>' in page  # as before

    html = html_of(
        "Docs at https://katex.org/. In code `https://in.code/x` stays text,\n\n```\nhttps://fenced.example/\n```\n\n"
        "and so do README.md, ops@example.org, javascript:alert(1) and $https://math.example/$."
    )
    links = [dict(attrs)["href"] for tag, attrs in _elements(html) if tag == "a"]
    assert links == ["https://katex.org/"]
    assert "<code>https://in.code/x</code>" in html and "<code>https://fenced.example/\n</code>" in html


def _elements(html: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    elements = ElementsOf()
    elements.feed(html)
    return elements.found
