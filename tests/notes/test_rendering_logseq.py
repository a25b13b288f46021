"""A Logseq page on its note page looks as Logseq shows it: its page properties are its properties, the block
properties Logseq hides are hidden, org-style blocks are callouts, quotes and code, `((block references))` show
the block they name, and `{{embed …}}` shows the page or block in place. Pages are logseq-docs' own, read in
place; an Obsidian note writing the same `key:: value` keeps it as text."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.notes.models import Note, NoteLink
from apps.notes.rendering import render_note
from apps.notes.rendering.embeds import note_body
from apps.notes.rendering.logseq import is_logseq_page
from tests.corpora import CORPORA
from tests.factories import make_note, make_user, make_vault


def real(name: str) -> str:
    return (CORPORA / "logseq-docs/pages" / name).read_text(encoding="utf-8")


def html_of(body: str) -> str:
    return render_note(Note(path="page.md", title="page", body=body), []).html


def page_of(note: Note, reader) -> str:
    return render_note(note, list(NoteLink.objects.filter(source=note)), reader=reader).html


def test_page_properties_are_the_page_properties_not_its_first_paragraph():
    rendered = render_note(Note(path="Block Reference.md", title="t", body=real("Block Reference.md")), [])
    assert rendered.frontmatter["type"] == "[[Feature]]"
    assert rendered.frontmatter["platforms"] == "[[All Platforms]]"
    assert rendered.frontmatter["alias"] == ["term/block reference"]
    assert rendered.frontmatter["description"].startswith("Clickable link to a particular Logseq block")
    assert "type::" not in rendered.html and "Clickable link" not in rendered.html
    assert rendered.html.startswith('<ul>\n<li>\n<h2 id="usage">Usage</h2>')


def test_block_properties_logseq_hides_are_hidden_and_the_others_shown_small():
    html = html_of(real("Zotero.md"))
    assert "id::" not in html and "collapsed::" not in html and "6103e488" not in html.replace('id="^6103e488', "")
    assert '<li id="^6103e488-22d4-4751-b27a-69b278067c26">You can either type <code>/Zotero</code>' in html
    # its other block properties are small lines under the block, the key apart from its value
    key = '<span class="block-property"><span class="block-property-key">{}</span> '
    assert key.format("type") + '<a class="unresolved" title="no note with this name yet">Command</a></span>' in html
    assert key.format("name") + "Zotero</span>" in html and "name::" not in html


def test_a_block_s_property_lines_show_together_in_one_small_box_without_blank_lines():
    # Note pages draw a line break in a paragraph as one: the breaks between properties would be blank lines.
    zotero = html_of(real("Zotero.md"))
    box = zotero[zotero.index('<span class="block-properties">') :]
    box = box[: box.index("</li>")]
    assert re.findall(r'block-property-key">([^<]+)<', box) == ["type", "name", "description"]
    assert "<br" not in box and box.endswith("Imports a Zotero journal article</span></span>")

    # a heading, its property, then text: the box sits between them
    template = html_of(real("Templates___Docs.md"))
    assert (
        '<h2 id="beta-0-x-y-today">Beta 0.x.y &lt;% today %&gt;</h2>\n<span class="block-properties">'
        '<span class="block-property"><span class="block-property-key">template</span> Changelog</span></span>'
        "Desktop app and Android App download link: "
    ) in template

    # a property Logseq keeps for itself is hidden, as `id::` and `collapsed::` are, not left as a line of text
    numbered = html_of(real("Numbered List.md"))
    assert "order-list-type" not in numbered and "<li>Type <code>1. </code> in a block</li>" in numbered


def test_the_properties_logseq_keeps_for_itself_are_hidden_on_every_real_page():
    # every block of Queries.md carries the `created-at::` and `updated-at::` (or `created_at::`) Logseq once wrote
    queries = html_of(real("Queries.md"))
    assert "1609230242742" not in queries and "block-property" not in queries
    assert "<li><strong>What are &quot;Queries&quot;?</strong>\n<ul>" in queries
    assert (
        "<li>Queries are for asking questions from your knowledge base and the outside world (in the future)."
        in queries
    )
    assert "<p><strong>and</strong><br />\nExamples:</p>" in queries  # the block's text goes on on its own line
    # `- query-table:: true` opens the block that is its query: the query shows in the block, its settings do not
    commands = html_of(real("Commands.md"))
    assert "query-table" not in commands and "query-sort-by" not in commands
    assert '<li>\n<pre><code class="language-query">{:query (property :type [[Command]])' in commands
    overview = html_of(real("Graph Overview.md"))  # `- collapsed:: true` over a query, in a block under a link
    assert '<li><a class="unresolved" title="no note with this name yet">Class</a>\n<ul>\n<li>\n<pre><code' in overview
    # an opening `id::` still names its block
    advanced = html_of(real("Advanced Queries.md"))
    assert '<li id="^63b70dc8-1d59-4348-9737-e62b17fdabca">Blocks in 7ds with a page reference of datalog</li>' in (
        advanced
    )

    hidden = {"id", "collapsed", "created-at", "updated-at", "created_at", "query-table", "query-properties"}
    hidden |= {"query-sort-by", "query-sort-desc", "card-repeats", "card-next-schedule", "now", "later", "done"}
    hidden |= {"todo", "logseq.order-list-type", "heading"}
    pages = [path for folder in ("pages", "journals") for path in (CORPORA / "logseq-docs" / folder).glob("*.md")]
    shown: set[str] = set()
    for path in pages:
        shown |= set(re.findall(r'block-property-key">([^<]+)<', html_of(path.read_text(encoding="utf-8"))))
    assert {"type", "description", "template"} <= shown and not shown & hidden


def test_hiccup_is_drawn_as_the_html_it_writes_on_real_pages(settings):
    # Queries.md: a photo and its credit, written as hiccup under a block's text
    queries = html_of(real("Queries.md"))
    assert "[:div" not in queries and "[:img" not in queries and "{:src" not in queries
    photo = (
        "https://cdn.logseq.com/%2F5ff0a01d-47d4-487d-b346-4a43ded21ad02020_12_29_photo-1444703686981-a3abbc4d4fe3.jpeg"
    )
    # a picture on another site is a link to it, as a Markdown picture is; a host the deployment allows shows it
    assert f'<div><a class="external-image" href="{photo}?Expires=4762830816&amp;Signature=' in queries
    credit = '<div>By <a href="https://unsplash.com/photos/oMpAz-DN-9I" rel="noopener noreferrer">Greg Rakozy</a></div>'
    assert credit in queries
    settings.IMAGE_HOSTS = ["cdn.logseq.com"]
    assert f'<div><img class="remote-image" src="{photo}?Expires=' in html_of(real("Queries.md"))

    hiccup = html_of(real("Hiccup.md"))  # its style is dropped, as any note's is
    assert "<li><h2>h2 title</h2><p>Hello <em>World!</em></p></li>" in hiccup
    assert "<li><div><code>`Code`</code>-&gt; <code>Code</code></div></li>" in html_of(real("Markdown.md"))
    tutorial = html_of(real("tutorial.md"))  # a link in a sentence, and a video's frame over several lines
    assert (
        'Check out this awesome video by <a href="https://twitter.com/EdTravelling" rel="noopener noreferrer">'
        "@EdTravelling</a>, which shows you how"
    ) in tutorial
    assert '<div><a class="external-file" href="https://www.youtube.com/embed/Vw-x7yTTO0s"' in tutorial
    assert "[:iframe" not in tutorial and "<iframe" not in tutorial
    media = html_of(real("Embed Media - Audio, Photos, Videos.md"))
    assert '<li><a class="external-file" href="https://www.kozco.com/tech/piano2-CoolEdit.mp3"' in media
    assert '<code class="language-clojurescript">[:audio {:controls true' in media  # in code, as written
    # a vector that is no HTML stays text
    assert "Nothing found for entity id [:block/uuid nil]" in html_of(real("changelog_06.md"))


def test_hiccup_draws_no_script_handler_or_dangerous_address_and_only_on_a_logseq_page():
    html = html_of(
        '- [:script "alert(1)"][:div {:onclick "steal()" :style "position:fixed"} "shown"]\n'
        '- [:a {:href "javascript:alert(1)"} "link"] [:img {:src "javascript:alert(2)"}]\n'
        '- [:iframe {:src "https://evil.example/frame"}]\n'
    )
    assert "alert" not in html and "steal" not in html and "position" not in html and "<iframe" not in html
    assert "<div>shown</div>" in html and '<a rel="noopener noreferrer">link</a>' in html
    assert html_of('[:div "x"]\n\nAn Obsidian note.\n').startswith("<p>[:div &quot;x&quot;]</p>")


def test_a_page_whose_heading_blocks_are_written_at_the_margin_reads_as_logseq_s_and_only_such_a_page():
    # Changelog.md opens with a heading block written without its bullet, its id and text at the margin under it
    html = html_of(real("Changelog.md"))
    assert "id::" not in html and "#+BEGIN_NOTE" not in html
    assert html.startswith(
        '<ul>\n<li>\n<h2 id="beta-0-10-15-dec-1st-2025">Beta 0.10.15 <a class="unresolved" '
        'title="no note with this name yet">Dec 1st, 2025</a></h2>\n'
        '<p id="^692d8283-7f1d-44cf-81b0-bb25c469a64e">Desktop app and Android App download link: '
    )
    assert '<li><a class="unresolved" title="no note with this name yet">Fixed issues</a>\n<ul>\n<li>Fix:' in html
    # Markdown.md writes one in the middle of its outline
    markdown = html_of(real("Markdown.md"))
    assert '<li id="^60a78b6b-a0ff-49fe-822f-87216fbf79ff">\n<h3 id="extended-syntax">' in markdown
    assert (
        '<li id="^60ab4582-5a6e-4f3a-84a2-71ae056455a0"><a class="unresolved" title="no note with this name yet">'
        "term/page reference</a>\n<ul>"
    ) in markdown

    pages = [path for folder in ("pages", "journals") for path in (CORPORA / "logseq-docs" / folder).glob("*.md")]
    assert len(pages) > 300 and all(is_logseq_page(note_body(path.read_text(encoding="utf-8"))) for path in pages)
    read_as_logseq = {
        str(path.relative_to(CORPORA))
        for vault in ("kepano-obsidian", "foam-docs")
        for path in (CORPORA / vault).rglob("*.md")
        if is_logseq_page(note_body(path.read_text(encoding="utf-8")))
    }
    assert read_as_logseq == {"kepano-obsidian/Notes/2023-09-12 Meeting with Steph.md"}  # one bullet, no more


@pytest.mark.django_db
def test_a_reference_to_a_heading_block_at_the_margin_shows_its_heading_and_goes_to_it():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    changelog = make_note(vault, "pages/Changelog.md", real("Changelog.md"), embed=False)
    block = "681b5cd1-444a-46a8-8b6f-2dd5e6ece3fd"  # "Includes all changes from ((681b5cd1-…))", on the same page
    html = page_of(changelog, owner)
    assert f'<a class="block-ref" href="/notes/{changelog.pk}/#^{block}">Beta 0.10.10 May 7th, 2025</a>' in html
    assert f'id="^{block}"' in html
    first = make_note(vault, "pages/Release.md", "- see ((692d8283-7f1d-44cf-81b0-bb25c469a64e))\n", embed=False)
    shown = f'href="/notes/{changelog.pk}/#^692d8283-7f1d-44cf-81b0-bb25c469a64e">Beta 0.10.15 Dec 1st, 2025</a>'
    assert shown in page_of(first, owner)


def test_blocks_logseq_numbers_are_drawn_as_a_numbered_list():
    numbered = html_of(real("Numbered List.md"))
    started = numbered[numbered.index("A numbered list can be started in a couple ways:") :]
    assert started.startswith(
        "A numbered list can be started in a couple ways:\n<ol>\n<li>Type <code>1. </code> in a block</li>\n"
        "<li>Press <code>t n</code> when focused on a block</li>\n"
        "<li>Type the <code>/Number list</code> command in a block</li>\n</ol>"
    )
    assert numbered.count("<ol>") == 2 and "order-list-type" not in numbered
    # a numbered block's text after its property, and a numbered block's children, stay inside its item
    slide = html_of(real("slide.md"))
    assert "<code>View as slides</code>.<br />\nIt'll open the current page's slide in the right sidebar.</li>" in slide
    flashcards = html_of(real("Flashcards.md"))
    make = flashcards[flashcards.index("<li>You can right click the bullet to &quot;Make a Flashcard&quot;") :]
    assert make.index("sidebar-make-a-flashcard.png") < make.index("</li>\n</ul>\n</li>\n</ol>")


def test_a_block_ending_in_a_mark_or_a_link_keeps_it_when_its_id_is_hidden():
    year = html_of(real("one year in logseq.md"))
    question = "<strong>What's the difference between logseq and other tools?</strong>"
    assert f'<li id="^61110543-a71f-458d-b42e-b78a4d22f0c0">{question}\n<ul>' in year
    zotero = html_of(real("Zotero.md"))  # the block ends in a ((reference)), which no note holds here
    assert (
        '<li id="^61024ec1-fd51-4b84-905e-8443a9204ae9">Goto <a class="unresolved" title="no note with this name yet">'
        "Settings</a> , then click <code>Zotero settings</code>, fill in your API key and User ID mentioned in "
        '<span class="block-ref block-ref-missing" title="no block with this id in a note you can read">'
        "missing block</span>\n<ul>"
    ) in zotero


def test_a_heading_block_holds_its_outline_rather_than_showing_it_as_code():
    html = html_of(real("Filename format.md"))
    assert "<pre><code>- " not in html
    assert '<li>\n<h2 id="functionality">Functionality</h2>\n<ul>\n<li><strong>What is a' in html


def test_org_blocks_are_callouts_quotes_and_code():
    html = html_of(real("Filename format.md"))
    assert "#+BEGIN" not in html and "#+END" not in html
    warning = html.index('<div class="callout callout-warning" data-callout="warning">')
    assert "<strong>Backup</strong> all your notes somewhere else" in html[warning : warning + 400]
    important = html.index('data-callout="important"', warning)  # the block right after it is its own callout
    assert "There's a <strong>point of no-return</strong>" in html[important : important + 400]
    assert "<p>Make sure all Logseq clients" in html  # the intro is the first important callout

    quote = html_of(real("Spaced Repetition.md"))
    assert "<blockquote>\n<p>Spaced repetition is an evidence-based learning technique" in quote

    queries = html_of(real("Advanced Queries.md"))
    assert "#+BEGIN_SRC" not in queries and "#+END_SRC" not in queries
    assert '<pre><code class="language-clojure">#+BEGIN_QUERY\n{:title &quot;All tasks&quot;' in queries
    note = queries.index('data-callout="note"')
    assert "Learn Datalog Today</a> is a great first reference" in queries[note : note + 500]


def test_an_obsidian_note_keeps_its_dataview_fields_and_org_lines_as_text():
    body = (
        "Reading notes.\nrating:: 5\nid:: 6103e488-22d4-4751-b27a-69b278067c26\n\n"
        "#+BEGIN_QUOTE\nnot a quote\n#+END_QUOTE\n"
    )
    html = html_of(body)
    assert "rating:: 5<br />\nid:: 6103e488" in html and "#+BEGIN_QUOTE" in html and "<blockquote>" not in html


@pytest.mark.django_db
def test_a_block_reference_shows_the_block_and_links_to_the_page_holding_it():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    tables = make_note(vault, "pages/Tables.md", real("Tables.md"), embed=False)
    properties = make_note(vault, "pages/Built-in Properties.md", real("Built-in Properties.md"), embed=False)
    queries = make_note(vault, "pages/Advanced Queries.md", real("Advanced Queries.md"), embed=False)

    html = page_of(properties, owner)
    block = "646c1b4d-9cf2-4c8c-bb05-7f336e027ea1"
    assert f'See <a class="block-ref" href="/notes/{tables.pk}/#^{block}">Props</a> for table' in html
    # where that link lands: the block, a heading with its children, whose heading keeps its own id for `#Props`
    assert f'<li id="^{block}">\n<h3 id="props">Props</h3>' in page_of(tables, owner)

    missing = page_of(queries, owner)  # its ((60531c23-…)) names a block no page of the vault holds
    assert '<span class="block-ref block-ref-missing"' in missing and "60531c23" not in missing


@pytest.mark.django_db
def test_the_id_of_a_heading_block_with_text_of_its_own_is_hidden_and_its_references_reach_the_block():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    queries = make_note(vault, "pages/Queries.md", real("Queries.md"), embed=False)
    builder = make_note(vault, "pages/Query Builder.md", real("Query Builder.md"), embed=False)

    html = page_of(queries, owner)
    operators, filters = "641c8e5f-f890-4c98-8221-652a4ef0970d", "62967225-37d9-46b7-859f-92e0311ab4be"
    assert f"^{operators}<br" not in html and html.count(operators) == 1
    assert f'<li id="^{operators}">\n<h4 id="query-operators">Query Operators</h4>\nThese three operators' in html
    assert f'<li id="^{filters}">\n<h4 id="query-filters">Query Filters</h4>' in html
    links = page_of(builder, owner)  # "add a [query operator](((641c8e5f-…))) or a [query filter](((62967225-…)))"
    assert f'<a class="internal" href="/notes/{queries.pk}/#^{operators}">query operator</a>' in links
    assert f'<a class="internal" href="/notes/{queries.pk}/#^{filters}">query filter</a>' in links


@pytest.mark.django_db
def test_a_reference_to_a_block_no_page_holds_shows_a_missing_block_never_its_id_on_a_real_graph():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    graph = CORPORA / "logseq-docs"
    for path in sorted(graph.rglob("*.md")):
        make_note(vault, str(path.relative_to(graph)), path.read_text(encoding="utf-8"), embed=False)
    tasks = Note.objects.get(vault=vault, path="pages/Tasks.md")  # `{{embed ((60acdeba-…))}}`, a block of no page
    assert "{{embed ((60acdeba-b3fd-4f90-ab54-3093caa4d5fa))}}" in tasks.body
    html = page_of(tasks, owner)
    missing = '<span class="block-ref block-ref-missing" title="no block with this id in a note you can read">'
    assert f"{missing}missing block</span>" in html and "60acdeba" not in html
    # on every page of the graph, what a reader sees holds no block's id: a reference shows its block or is missing
    uuid = re.compile(r"\(\([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\)\)")
    for note in Note.objects.filter(vault=vault):
        shown = re.sub(r"<pre>.*?</pre>|<code>.*?</code>|<[^>]*>", "", page_of(note, owner), flags=re.S)
        assert not uuid.search(shown), (note.path, uuid.search(shown))


@pytest.mark.django_db
def test_a_block_reference_to_a_page_the_reader_may_not_read_says_nothing_of_it():
    reader, stranger = make_user(), make_user()
    mine, theirs = make_vault(reader, "Mine"), make_vault(stranger, "Theirs")
    make_note(theirs, "pages/Tables.md", real("Tables.md"), embed=False)
    properties = make_note(mine, "pages/Built-in Properties.md", real("Built-in Properties.md"), embed=False)
    # Block references resolve within a vault; point this one across anyway, so only the permission check stands.
    NoteLink.objects.filter(source=properties, kind="block").update(target=Note.objects.get(vault=theirs))
    html = page_of(properties, reader)
    assert "Props" not in html and "/notes/" not in html.split("block-ref")[1][:80]
    assert '<span class="block-ref block-ref-missing"' in html


@pytest.mark.django_db
def test_a_labelled_block_link_goes_to_its_block():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    term = make_note(vault, "pages/term___block reference with label.md", real("term___block reference with label.md"))
    html = page_of(term, owner)
    block = "60a78e9e-59dc-40ab-9a01-5317dc09365f"
    assert f'<a class="internal" href="/notes/{term.pk}/#^{block}">apple</a>' in html
    assert f'<li id="^{block}">I\'m an example block</li>' in html and "(((" not in html

    alone = html_of("- see [apple](((60a78e9e-59dc-40ab-9a01-5317dc09365f)))\n")  # no note holds the block
    assert "<li>see apple</li>" in alone


@pytest.mark.django_db
def test_embed_macros_show_the_block_or_page_in_place():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    make_note(vault, "pages/Zotero.md", real("Zotero.md"), embed=False)
    changelog = make_note(vault, "pages/Changelog_07_09.md", real("Changelog_07_09.md"), embed=False)
    html = page_of(changelog, owner)
    assert "{{embed" not in html
    embedded = html[html.index('<div class="embed" ') :]
    assert "You can either type <code>/Zotero</code> command" in embedded[:1500]
    assert "id::" not in embedded and "Or if you wish to import" not in embedded[:1500]

    make_note(vault, "pages/Block Reference.md", real("Block Reference.md"), embed=False)
    references = make_note(vault, "pages/Page and block references.md", real("Page and block references.md"))
    html = page_of(references, owner)
    assert "{{embed" not in html and html.count('<div class="embed" ') == 1
    assert "A block that has references will have a reference counter" in html
    assert html.count('class="embed embed-unresolved"') == 3  # the term/… pages are not in this vault

    missing = html_of(real("Markdown.md"))  # its block embeds name blocks of pages not read here
    assert '<span class="block-ref block-ref-missing" title="no block with this id in a note you can read">' in missing
    assert "missing block</span>" in missing and "60a790f8" not in missing


@pytest.mark.django_db
def test_a_namespaced_page_is_found_by_its_name():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    terms = {
        name: make_note(vault, f"pages/term___{name}.md", real(f"term___{name}.md"), embed=False)
        for name in ("page reference", "page reference with label", "block reference with label")
    }
    references = make_note(vault, "pages/Page and block references.md", real("Page and block references.md"))
    links = {link.target_text: link.target for link in NoteLink.objects.filter(source=references)}
    assert links["term/page reference"] == terms["page reference"]
    assert links["term/block reference with label"] == terms["block reference with label"]
    assert terms["page reference"].title == "term/page reference"  # its page name, as search shows it

    browser = Client()
    browser.force_login(owner)
    page = browser.get(f"/notes/{references.pk}/").content.decode()
    assert "[[term/" not in page  # none listed as unresolved, none offered to be written
    assert "a clickable link that will take you to a particular Logseq block" in page  # the embed, shown
    assert f'<a href="/notes/{terms["page reference"].pk}/">term/page reference</a>' in page  # its name, shown
    listed = page.split("<h2>Links</h2>", 1)[1].split("</ul>", 1)[0]  # the side panel: each page once, by its name
    assert "term___" not in listed and listed.count(f'href="/notes/{terms["page reference"].pk}/"') == 1
    assert f'<a href="/notes/{terms["page reference"].pk}/">term/page reference</a>' in listed
    term_page = browser.get(f"/notes/{terms['page reference'].pk}/").content.decode()
    assert "<title>term/page reference · DesirePath</title>" in term_page
    platforms = page.split("<dt>platforms</dt>", 1)[1].split("</dd>", 1)[0]  # a page property, its link as a link
    assert "All Platforms</a>" in platforms and "[[" not in platforms


@pytest.mark.django_db
def test_a_link_to_a_page_with_words_of_its_own_shows_the_words_and_goes_to_the_page():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    graph = make_note(vault, "pages/How to create a new graph.md", real("How to create a new graph.md"), embed=False)
    start = make_note(vault, "pages/Start here.md", real("Start here.md"), embed=False)
    html = page_of(start, owner)
    assert f'<a class="internal" href="/notes/{graph.pk}/">&gt;&gt; Start by creating a new Logseq graph</a>' in html
    # the other one names a page this vault does not hold
    assert (
        '<a class="unresolved" title="no note with this name yet">&gt;&gt; Start by creating a Logseq graph using '
        "existing Markdown files</a>" in html
    )
    assert "](" not in html and "%EE%80" not in html


def test_an_image_or_an_escaped_bracket_before_a_page_link_stays_as_written():
    image = html_of("- ![diagram]([[Diagram Page]])\n- tags:: x\n")
    assert "embed-file" in image and "\ue000" not in image
    escaped = html_of("- Escaped \\[a]([[P]]) here\n- tags:: x\n")
    assert "Escaped [a](" in escaped and "\ue000" not in escaped


def test_an_image_logseq_sized_or_named_with_spaces_shows_as_an_image_on_a_real_page():
    html = html_of(real("one year in logseq.md"))
    # "![image.png](../assets/pages_one year in logseq_….png)" and "…png){:height 557, :width 518}" were text
    assert "![" not in html and "{:height" not in html
    assert html.count('class="embed-file embed-unresolved"') >= 2  # no vault here to hold the files
    assert 'title="no file with this name in the vault">CleanShot 2021-03-20 at 18.15.54@2x.png</span>' in html
    assert "<code>![a](b c.png){:width 3}</code>" in html_of("- `![a](b c.png){:width 3}` stays\n- tags:: x\n")


def test_a_block_with_the_heading_property_is_drawn_as_a_heading_on_a_real_page():
    html = html_of(real("tutorial.md"))
    assert '<h2 id="hi-welcome-to-logseq">Hi, welcome to Logseq!</h2>' in html
    assert '<h2 id="getting-started">Getting Started</h2>' in html
    assert "heading" not in re.sub(r"</?h2[^>]*>", "", html).lower()  # no "heading: true" box
    assert "<h4" in html_of("- Deep one\n  heading:: 4\n- tags:: x\n")


@pytest.mark.django_db
def test_an_embed_written_with_three_braces_shows_as_the_embed_without_stray_braces():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    block_embed = make_note(vault, "pages/block_embed.md", real("block_embed.md"), embed=False)
    browser = Client()
    browser.force_login(owner)
    page = browser.get(f"/notes/{block_embed.pk}/").content.decode()
    # the embedded block is in no page of the vault: it shows as missing, as Logseq marks one it cannot find
    example = page.split("An embed example", 1)[1].split("</li>", 1)[0]
    assert '<span class="block-ref block-ref-missing"' in example and "missing block</span>" in example
    assert "5fbf4fbf" not in example
    assert "{" not in example and "}" not in example
    # a block reference names no page: none is listed as unresolved, nor offered to be written
    unresolved = page.split("<h2>Unresolved links</h2>", 1)[1].split("</ul>", 1)[0]
    assert "[[Feature]]" in unresolved and "5fbf4fbf" not in unresolved

    make_note(vault, "pages/How to Take Notes.md", "- Write one idea to a block.\n", embed=False)
    tutorial = make_note(vault, "pages/tutorial.md", real("tutorial.md"), embed=False)
    html = page_of(tutorial, owner)
    assert "Write one idea to a block." in html and "{{" not in html and "}}" not in html
