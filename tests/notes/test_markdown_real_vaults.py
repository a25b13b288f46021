"""Parsing real vaults: links (wikilinks, Markdown links to notes, property links, block links), tags,
properties and block ids are what their authors meant, never read out of code, math or comments; chunks keep code,
tables, callouts and list items whole, and a piece of one too long for a chunk is still valid Markdown. Excerpts
and notes come from /work/shared/corpora (each cites its file); some tests read every note there."""

from __future__ import annotations

import re
import textwrap

from markdown_it import MarkdownIt

from apps.notes.markdown import (
    DECISION_HEADING_LINE,
    DECISION_HEADING_PATH,
    Link,
    ParsedNote,
    byline_of,
    chunk_note,
    decision_of,
    parse_note,
    split_frontmatter,
)
from apps.notes.syntax import with_block_references_shown, without_comments, without_link_definitions
from tests.corpora import CORPORA, VAULTS


def links_of(text: str, path: str = "note.md") -> list[tuple[str, str, str, str]]:
    return [(lk.target, lk.heading, lk.alias, lk.kind) for lk in parse_note(path, text).links]


def test_fenced_code_holds_no_links():
    # foam-docs/user/features/embeds.md
    text = (
        "If you want to embed a dynamic list or table of notes instead of the content of one note, see "
        "[[foam-queries]].\n\n## Basic Syntax\n\nUse the embed syntax with an exclamation mark before the wikilink:"
        "\n\n```markdown\n![[note-name]]\n```\n\nThis will embed the entire content of `note-name` into your "
        "current note.\n"
    )
    assert links_of(text) == [("foam-queries", "", "", "link")]


def test_inline_code_holds_no_links_or_tags():
    # logseq-docs/pages/Flashcards.md
    text = (
        "- ## Usage\n\t- To create a card:\n\t\t- You can add either `#card` or `[[card]]` to any block to make it "
        "a card.\n\t\t  logseq.order-list-type:: number\n"
    )
    note = parse_note("Flashcards.md", text)
    assert note.links == [] and note.tags == []


def test_heading_links_keep_the_heading_and_make_no_tag():
    # foam-docs/user/features/note-properties.md; foam-docs/user/features/wikilinks.md
    text = (
        "There also exists properties that are even more specific to Foam templates, see [[templates#Metadata]] "
        "for more info.\n\nLink to specific sections using `[[note-name#Section Title]]` syntax.\n"
        "See [[#Section Title]] above.\n"
    )
    note = parse_note("note.md", text)
    assert [(lk.target, lk.heading) for lk in note.links] == [("templates", "Metadata"), ("", "Section Title")]
    assert note.tags == []


def test_foam_reference_definitions_do_not_repeat_the_wikilinks():
    # foam-docs/user/frequently-asked-questions.md
    text = (
        "- Ensure that you have all the [[recommended-extensions]] installed in Visual Studio Code\n"
        "- Check the formatting rules for links on [[wikilinks]]\n\nSee [[telemetry]] for the full list.\n\n"
        "[recommended-extensions]: getting-started/recommended-extensions.md 'Recommended Extensions'\n"
        "[wikilinks]: features/wikilinks.md 'Wikilinks'\n[telemetry]: tools/telemetry.md 'Telemetry'\n"
    )
    assert [lk.target for lk in parse_note("user/frequently-asked-questions.md", text).links] == [
        "recommended-extensions",
        "wikilinks",
        "telemetry",
    ]


def test_a_reference_definition_of_its_own_is_a_link():
    # foam-docs/user/recipes/predefined-user-snippets.md (its foot, without the wikilink above it)
    text = "Adding snippets.\n\n[custom-snippets]: ../features/custom-snippets.md 'Adding Custom Snippets'\n"
    assert links_of(text, "user/recipes/predefined-user-snippets.md") == [
        ("user/features/custom-snippets", "", "", "link")
    ]


def test_logseq_page_properties_become_frontmatter():
    # logseq-docs/pages/page_embed.md
    text = (
        "title:: Page embed\ntype:: [[Feature]]\nplatforms:: [[All Platforms]]\nalias:: term/embedded page\n"
        "tags:: [[embed]]\ndescription:: Allows an entire page to be displayed within another.\n\n## Usage\n"
        "\t- Create a page embed by typing `{{{embed [[page name]]}}}` or by using the `/Page embed` command:\n"
        "\t- For example, embedding [[term/page]] looks like this:\n\t\t- {{embed [[term/page]]}}\n"
    )
    note = parse_note("pages/page_embed.md", text)
    assert note.title == "Page embed"
    assert note.frontmatter["type"] == "[[Feature]]"
    assert note.frontmatter["description"] == "Allows an entire page to be displayed within another."
    assert note.aliases == ["term/embedded page"]
    assert note.tags == ["embed"]
    assert [(lk.target, lk.kind) for lk in note.links] == [
        ("Feature", "link"),
        ("All Platforms", "link"),
        ("embed", "link"),
        ("term/page", "link"),
        ("term/page", "embed"),
    ]


def test_logseq_block_ids_and_block_references():
    # logseq-docs/pages/Zotero.md
    text = (
        "tags:: #Academic\n\n- ## Usage\n\t- You can either type `/Zotero` command.\n"
        "\t  id:: 6103e488-22d4-4751-b27a-69b278067c26\n"
        "\t\t- Goto [[Settings]] , then click `Zotero settings`, fill in your API key and User ID mentioned in "
        "((61024cd6-1951-47cc-8050-25f68960d729))\n"
    )
    note = parse_note("pages/Zotero.md", text)
    assert note.tags == ["Academic"]
    assert note.block_ids == ["6103e488-22d4-4751-b27a-69b278067c26"]
    assert [(lk.target, lk.kind) for lk in note.links] == [
        ("Settings", "link"),
        ("61024cd6-1951-47cc-8050-25f68960d729", "block"),
    ]


def test_logseq_priorities_and_issue_numbers_are_no_tags():
    # logseq-docs/pages/Tasks.md; logseq-docs/pages/Changelog.md
    text = (
        "- LATER [#A] big important and urgent thing\n- LATER [#C] the lower priority thing\n"
        "- fix: match paste of x.com links for twitter [#12043](https://github.com/logseq/logseq/pull/12043)\n"
        "- see https://qwxlea.github.io/#/page/datalog%2Fintro and #12043 and #real/nested-tag\n"
    )
    assert parse_note("pages/Tasks.md", text).tags == ["real/nested-tag"]


def test_a_hash_inside_an_html_tag_is_no_tag_on_foams_index():
    # the contributors table links each avatar to "#question-thomaskoppelaar", "#content-theowenyoung", …
    index = parse_note("index.md", (CORPORA / "foam-docs/index.md").read_text(encoding="utf-8"))
    assert index.tags == []
    assert parse_note("a.md", '<a href="#x-y">see</a> and #real-tag <br/>').tags == ["real-tag"]


def test_logseq_query_blocks_are_code():
    # logseq-docs/pages/Advanced Queries.md
    text = (
        '- Tags\n\t  #+BEGIN_QUERY\n\t  {:view (fn [tags]\n\t     [:a.tag.mr-1 {:href (str "#/page/" tag)}\n'
        '\t      (str "#" tag)])}\n\t  #+END_QUERY\n- [[Learn Datalog Today]]\n'
    )
    note = parse_note("pages/Advanced Queries.md", text)
    assert note.tags == [] and [lk.target for lk in note.links] == ["Learn Datalog Today"]


def test_math_holds_no_structure():
    # logseq-docs/pages/Math Block.md (a `#` and a `[[` added inside the math)
    text = (
        "\t- Inline math is written in a block by wrapping text with `$`. For example:\n"
        "\t\t  $\\ce{Hg^2+ ->[I-] HgI2 ->[[I-]] [Hg^{II}I4]^2-} \\#x$\n\t\t  $$\n"
        "\t\t  \\frac{1}{\\Bigl(\\sqrt{\\phi \\sqrt{5}}-\\phi\\Bigr) e^{\\frac25 \\pi}} #notatag\n\t\t  $$\n"
        "\t- It costs $5 and $10 #real\n"
    )
    note = parse_note("pages/Math Block.md", text)
    assert note.links == [] and note.tags == ["real"]


def test_comments_hold_no_structure_and_leave_the_chunks():
    # foam-docs/user/publishing/math-support-with-katex.md has HTML comments; Obsidian's %% %% added here
    text = (
        "<!-- The loading of KaTeX is deferred to speed up page rendering [[katex]] #deferred -->\n"
        "Visible text. %%private [[draft]] #todo%% More text ^abc-1\n"
    )
    note = parse_note("note.md", text)
    assert note.links == [] and note.tags == [] and note.block_ids == ["abc-1"]
    chunks = chunk_note(note.title, text, max_chars=1000)
    assert [c.text for c in chunks] == ["Visible text.  More text ^abc-1"]


def test_template_placeholders_in_frontmatter_parse():
    # kepano-obsidian/Templates/Evergreen Template.md: `created: {{date}}` is filled in by Obsidian
    note = parse_note("Templates/Evergreen Template.md", "---\ncreated: {{date}}\ntags:\n  - 0🌲\n---\n")
    assert note.frontmatter["created"] == "{{date}}" and note.tags == ["0🌲"]


# Strings that appear in these vaults only inside code, math, queries or URLs.
CODE_ONLY_TAGS = {"Supported", "Customize", "Quote", "Math", "Code", "Template", "/page", "A", "C"}
CODE_ONLY_LINKS = {"note-name", "Wikilinks", "note-name#Section Title"}


def test_every_note_of_the_real_vaults_parses_without_structure_from_code():
    notes = [p for vault in VAULTS for p in sorted((CORPORA / vault).rglob("*.md"))]
    assert len(notes) > 400, f"the corpora at {CORPORA} are missing"  # never skipped: a missing folder fails
    tags: set[str] = set()
    targets: set[str] = set()
    for path in notes:
        note = parse_note(str(path.relative_to(CORPORA)), path.read_text(encoding="utf-8-sig"))
        chunk_note(note.title, note.body, max_chars=1000)
        tags |= set(note.tags)
        targets |= {lk.target for lk in note.links} | {f"{lk.target}#{lk.heading}" for lk in note.links}
        assert all(isinstance(lk, Link) and lk.target.strip() == lk.target for lk in note.links)
    assert not (tags & CODE_ONLY_TAGS), tags & CODE_ONLY_TAGS
    assert not (targets & CODE_ONLY_LINKS), targets & CODE_ONLY_LINKS
    # logseq-docs/pages/Markdown.md shows its syntax, `[[page name]]` among it, in code only
    markdown_page = (CORPORA / "logseq-docs/pages/Markdown.md").read_text(encoding="utf-8")
    assert "page name" not in {lk.target for lk in parse_note("Markdown.md", markdown_page).links}
    assert not any(tag.isdigit() or "://" in tag for tag in tags)


def real_note(relative: str) -> ParsedNote:
    """A note of the corpora, parsed with its path inside its vault (`foam-docs/user/x.md` → `user/x.md`)."""
    return parse_note(relative.split("/", 1)[1], (CORPORA / relative).read_text(encoding="utf-8-sig"))


def test_frontmatter_wikilinks_are_property_links():
    # kepano-obsidian/References/Out of Control.md: a book, filed by its properties alone
    note = real_note("kepano-obsidian/References/Out of Control.md")
    assert [(lk.target, lk.kind) for lk in note.links] == [
        ("Books", "property"),
        ("out-of-control.jpg", "property"),
        ("Kevin Kelly", "property"),
        ("Futurism", "property"),
        ("Nonfiction", "property"),
        ("Emergence", "property"),
    ]
    # kepano-obsidian/References/Bass on Top.md: a single value, not a list
    assert ("Paul Chambers", "property") in {
        (lk.target, lk.kind) for lk in real_note("kepano-obsidian/References/Bass on Top.md").links
    }


def test_property_links_come_before_the_body_links_and_tags_are_no_links():
    # kepano-obsidian/Notes/2023-09-12 Meeting with Steph.md
    note = real_note("kepano-obsidian/Notes/2023-09-12 Meeting with Steph.md")
    assert [(lk.target, lk.kind) for lk in note.links] == [
        ("Meetings", "property"),
        ("Obsidian", "property"),
        ("Steph Ango", "property"),
        ("Emergence", "property"),
        ("Out of Control", "link"),
        ("Emergence", "link"),
    ]
    # kepano-obsidian/Templates/Book Template.md: `tags: [to-read]` stays a tag
    template = real_note("kepano-obsidian/Templates/Book Template.md")
    assert [(lk.target, lk.kind) for lk in template.links] == [("Books", "property")]
    assert template.tags == ["to-read"]


def test_logseq_page_properties_are_not_read_twice():
    # logseq-docs/pages/Export.md: `type:: [[Feature]]` is prose Logseq reads as a link, not YAML frontmatter
    note = real_note("logseq-docs/pages/Export.md")
    assert [lk.target for lk in note.links].count("Feature") == 1
    assert all(lk.kind != "property" for lk in note.links)


def test_markdown_links_to_notes_resolve_relative_to_the_note():
    # foam-docs/user/getting-started/navigation.md: its "next steps" list
    note = real_note("foam-docs/user/getting-started/navigation.md")
    assert [(lk.target, lk.kind) for lk in note.links if "/" in lk.target] == [
        ("user/recipes/search-and-navigate-notes", "link"),
        ("user/features/graph-view", "link"),
        ("user/features/backlinking", "link"),
        ("user/features/templates", "link"),
        ("user/features/tags", "link"),
    ]
    # logseq-docs/db-version-changes.md: `./` and a heading
    changes = real_note("logseq-docs/db-version-changes.md")
    assert ("db-version", "nodes") in {(lk.target, lk.heading) for lk in changes.links}


def test_addresses_files_and_paths_out_of_the_vault_are_no_note_links():
    # logseq-docs/pages/Contributing.md (a GitHub page ending in .md), foam-docs/dev/contribution-guide.md (a file
    # above the vault), foam-docs/user/recipes/capture-notes-with-drafts-pro.md (a URL-encoded web page); an image
    text = (
        "- [Docker Web App Guide](https://github.com/logseq/logseq/blob/master/docs/Docker%20Web%20App%20Guide.md)\n"
        "The contribution guide has moved to [CONTRIBUTING.md](../../CONTRIBUTING.md) at the repository root.\n"
        "- [A writing inbox](https://notes.andymatuschak.org/A%20writing%20inbox%20for%20transient%20notes)\n"
        "![image](../assets/image_1650196318967_0.png) [mail](mailto:someone@example.org)\n"
    )
    assert parse_note("dev/contribution-guide.md", text).links == []


def test_url_encoded_and_angle_bracket_markdown_links_name_the_note():
    # kepano-obsidian/Notes/2023-09-12 Meeting with Steph.md, its wikilinks written as Obsidian's Markdown links
    text = (
        "- Discussed the book [Out of Control](../References/Out%20of%20Control.md) on the topic of "
        "[Emergence](<../References/Emergence.md#Complex systems>)\n"
        "- ![Cover](/References/Out%20of%20Control.md)\n"
    )
    links = parse_note("Notes/2023-09-12 Meeting with Steph.md", text).links
    assert [(lk.target, lk.heading, lk.kind) for lk in links] == [
        ("References/Out of Control", "", "link"),
        ("References/Emergence", "Complex systems", "link"),
        ("References/Out of Control", "", "embed"),
    ]


def test_block_links_keep_the_block_and_name_the_note():
    # foam-docs/user/features/block-anchors.md, its examples out of their code fences
    text = (
        "Use `[[note-name#^blockid]]` to link directly to a block:\n\n[[research-notes#^key-insight]]\n"
        "[[research-notes#^list-ref]]\n\nAdd an alias for display text:\n\n"
        "[[research-notes#^key-insight|See the key insight]]\n\n![[research-notes#^key-insight]]\n"
    )
    links = parse_note("user/features/block-anchors.md", text).links
    assert [(lk.target, lk.heading, lk.alias, lk.kind, lk.block_id) for lk in links] == [
        ("research-notes", "", "", "link", "key-insight"),
        ("research-notes", "", "", "link", "list-ref"),
        ("research-notes", "", "See the key insight", "link", "key-insight"),
        ("research-notes", "", "", "embed", "key-insight"),
    ]


FENCE_LINE = re.compile(r"^[ \t>]*(?:(?:[-*+]|\d+[.)])[ \t]+)*(`{3,}|~{3,})(.*)$")


def fences_closed(text: str) -> bool:
    opened = None
    for line in text.split("\n"):
        found = FENCE_LINE.match(line)
        if found is None or found.group(1) in found.group(2):
            continue
        if opened is None:
            opened = found.group(1)
        elif found.group(1).startswith(opened) and not found.group(2).strip():
            opened = None
    return opened is None


def test_a_long_code_block_is_split_into_fenced_pieces_that_say_so():
    # foam-docs/user/recipes/capture-notes-with-drafts-pro.md: a 100-line JavaScript action
    body = (CORPORA / "foam-docs/user/recipes/capture-notes-with-drafts-pro.md").read_text(encoding="utf-8")
    code = re.search(r"^```javascript\n(.*?)^```$", body, re.M | re.S)
    assert code is not None and len(code.group(0)) > 2000
    chunks = chunk_note("Capture Notes With Drafts Pro", body, max_chars=1000)
    pieces = [c for c in chunks if "(code, part" in c.heading]
    assert len(pieces) >= 3
    for number, piece in enumerate(pieces, 1):
        assert piece.heading.endswith(f"Code for Drafts Action (code, part {number} of {len(pieces)})")
        assert piece.embed_text.startswith("Capture Notes With Drafts Pro — ") and "(code, part" in piece.embed_text
        assert piece.text.startswith("```javascript\n") and piece.text.endswith("\n```")
        assert len(piece.embed_text) <= 1000
    rejoined = "".join(piece.text[len("```javascript\n") : -len("```")] for piece in pieces)
    assert rejoined == code.group(1)  # nothing lost, nothing added, in order
    assert all(fences_closed(c.text) for c in chunks)


def test_a_long_table_is_split_between_rows_each_piece_with_its_header():
    # foam-docs/user/features/templates.md: the table of template variables
    body = (CORPORA / "foam-docs/user/features/templates.md").read_text(encoding="utf-8")
    rows = [line for line in body.split("\n") if line.startswith("| `FOAM_")]
    header = body.split("\n")[body.split("\n").index(rows[0]) - 2 : body.split("\n").index(rows[0])]
    chunks = chunk_note("Note Templates", body, max_chars=1000)
    pieces = [c for c in chunks if "(table, part" in c.heading]
    assert len(pieces) >= 2
    for piece in pieces:
        assert piece.text.split("\n")[:2] == header
    for row in rows:  # each row whole, in exactly one chunk
        assert sum(row in c.text.split("\n") for c in chunks) == 1, row


def test_a_long_callout_repeats_its_title_line_in_every_piece():
    # kepano-obsidian/References/The Machine Stops.md, its quotes as an Obsidian callout
    note = (CORPORA / "kepano-obsidian/References/The Machine Stops.md").read_text(encoding="utf-8")
    quote = note[note.index("> There were") :]
    body = "## Quotes\n\n> [!quote] The Machine Stops\n" + quote + "\n\nAfter the callout.\n"
    chunks = chunk_note("The Machine Stops", body, max_chars=600)
    pieces = [c for c in chunks if "(callout, part" in c.heading]
    assert len(pieces) >= 2
    assert all(c.text.startswith("> [!quote] The Machine Stops\n> ") for c in pieces)
    assert chunks[-1].text == "After the callout."


def test_a_block_too_long_for_a_chunk_keeps_its_lines_when_it_is_cut():
    # logseq-docs/pages/Markdown.md: a list item longer than a chunk, its block properties each on a line
    body = (CORPORA / "logseq-docs/pages/Markdown.md").read_text(encoding="utf-8")
    cut = [c.text for c in chunk_note("Markdown", body, max_chars=1000) if "done:: 1621594005775" in c.text]
    assert len(cut) == 1
    assert "- How can I get a _block-uuid_ ?\n\t\t  done:: 1621594005775\n\t\t  now:: 1621585437721\n" in cut[0]
    # nowhere in the three vaults are two property lines run together into one
    run_together = re.compile(r"\b[a-z-]+:: \S+ +[a-z-]+:: ")
    for path in (p for vault in VAULTS for p in sorted((CORPORA / vault).rglob("*.md"))):
        text = path.read_text(encoding="utf-8-sig")
        for chunk in chunk_note(path.stem, text, max_chars=1000):
            assert not run_together.search(chunk.text), (str(path), chunk.text[:200])


def test_a_logseq_code_block_in_a_list_item_stays_whole_with_its_section():
    # logseq-docs/pages/Calculator.md: each example is a ```calc block inside an outline item
    body = (CORPORA / "logseq-docs/pages/Calculator.md").read_text(encoding="utf-8")
    chunks = chunk_note("Calculator", body, max_chars=1000)
    number_bases = [c for c in chunks if "0x10 + 0x10" in c.text]
    assert len(number_bases) == 1
    assert "- ### Example\n- ```calc\n  0x10 + 0x10" in number_bases[0].text
    assert "  :dec\t\t\t\t# and back to decimal\n  ```" in number_bases[0].text
    assert all(fences_closed(c.text) for c in chunks)


def _blocks_of(body: str) -> list[tuple[str, str]]:
    lines = body.split("\n")
    found = []
    for token in MarkdownIt("commonmark").enable("table").parse(body):
        kind = {"fence": "fence", "table_open": "table", "blockquote_open": "quote", "list_item_open": "item"}
        if token.type in kind and token.map:
            found.append((kind[token.type], textwrap.dedent("\n".join(lines[token.map[0] : token.map[1]])).strip()))
    return found


def _shape(text: str) -> str:
    """Text without indentation or blank lines: a nested block reads the same once its chunk is dedented."""
    return "\n".join(line.strip() for line in text.split("\n") if line.strip())


def test_every_block_of_the_real_vaults_that_fits_a_chunk_is_kept_whole():
    checked = 0
    for path in (p for vault in VAULTS for p in sorted((CORPORA / vault).rglob("*.md"))):
        text = path.read_text(encoding="utf-8-sig")
        note = parse_note(path.name, text)
        chunks = chunk_note(note.title, text, max_chars=1000)
        assert all(fences_closed(c.text) for c in chunks), path
        shapes = [_shape(c.text) for c in chunks]
        budget = 1000 - min(len(note.title), 150) - 64
        shown = with_block_references_shown(split_frontmatter(text)[1], {})  # a labelled reference reads as its label
        for kind, block in _blocks_of(without_link_definitions(without_comments(shown))):
            if len(block) <= budget:
                checked += 1
                assert any(_shape(block) in shape for shape in shapes), (str(path), kind, block[:80])
    assert checked > 7000  # fences, tables, quotes and list items of the three vaults


def test_a_note_is_titled_by_its_file_name_not_by_a_heading_in_it():
    def title_of(vault: str, path: str) -> str:
        return parse_note(path, (CORPORA / vault / path).read_text(encoding="utf-8")).title

    # an author page whose sections are `## Books`, `# Clippings`, `# Podcast episodes`
    assert title_of("kepano-obsidian", "References/Kevin Kelly.md") == "Kevin Kelly"
    # Logseq feature pages whose first heading is `## Usage`; a namespaced page by the page name of its file's name
    assert title_of("logseq-docs", "pages/Snap to grid.md") == "Snap to grid"
    assert title_of("logseq-docs", "pages/Whiteboard___Element locking.md") == "Whiteboard/Element locking"
    # a heading that opens a note without Logseq properties names it, as Foam names its notes; links as labels
    assert title_of("logseq-docs", "README.md") == "docs.logseq.com"
    assert title_of("foam-docs", "user/features/graph-view.md") == "Graph Visualization"
    # a `title::` property still names the page
    assert title_of("logseq-docs", "pages/page_embed.md") == "Page embed"


def test_link_definitions_the_page_hides_are_in_no_passage():
    """`[label]: target "title"` lines (Foam ends its notes with a block of them) show nothing on the page, so no
    passage quotes them; the text around them is kept."""
    hidden = 0
    for vault in VAULTS:
        for path in sorted((CORPORA / vault).rglob("*.md")):
            text = path.read_text(encoding="utf-8")
            env: dict = {}
            MarkdownIt("commonmark").parse(split_frontmatter(text)[1], env)
            labels = {label.lower() for label in env.get("references", {})}
            if not labels:
                continue
            lines = [
                line.strip().lower() for c in chunk_note(path.stem, text, max_chars=1000) for line in c.text.split("\n")
            ]
            assert not [line for line in lines if any(line.startswith(f"[{label}]:") for label in labels)], path
            hidden += len(labels)
    assert hidden > 150  # 181 in foam-docs
    text = "A sentence.\n[kept]: as-text.md\n\n[gone]: hidden.md 'Hidden'\n\n```\n[code]: stays.md\n```\n"
    assert [c.text for c in chunk_note("Note", text, max_chars=1000)] == [
        "A sentence.\n[kept]: as-text.md\n\n```\n[code]: stays.md\n```"
    ]


def test_a_byline_is_the_labelled_paragraph_under_the_title_never_a_label_further_down():
    # samples/vault/engineering/ADR-007 Choosing pgvector.md: its first chunk opens with the title and the byline
    opening = (
        "# ADR-007 Choosing pgvector\n\n**Date:** 20 February 2024. **Decided by:** Maren Vogt, after a two-week "
        "spike by Priya Raman.\n\n## Context\n\nThe ask panel and semantic search need nearest-neighbour lookup."
    )
    assert byline_of(opening) == (
        "**Date:** 20 February 2024. **Decided by:** Maren Vogt, after a two-week spike by Priya Raman."
    )
    # foam-docs opens with prose and says "**Note:**" or "**Tip:**" further down: no note of the three has a byline
    openings = [
        chunks[0].text
        for vault in VAULTS
        for path in sorted((CORPORA / vault).rglob("*.md"))
        if (chunks := chunk_note(path.stem, path.read_text(encoding="utf-8", errors="replace"), max_chars=1500))
    ]
    labelled = [text for text in openings if re.search(r"^\*\*[A-Z][\w ]{0,30}:\*\*", text, re.M)]
    assert len(openings) > 400 and labelled  # the labels are there, below a first paragraph of prose
    assert [byline_of(text) for text in openings if byline_of(text)] == []


def test_a_decision_is_the_first_paragraph_of_the_section_that_heads_it():
    # samples/vault/engineering/ADR-009 Job Queue.md: its decision section is a chunk of its own
    text = (
        "# ADR-009 Job Queue\n\n## Options\n\n- **Celery** with Redis as broker.\n\n## Decision\n\nCelery with "
        "Redis. Redis is needed anyway, and team familiarity won.\n\n## Consequences\n\nSettings are in Celery Notes."
    )
    said = "Celery with Redis. Redis is needed anyway, and team familiarity won."
    decided = [c for c in chunk_note("ADR-009 Job Queue", text, max_chars=60) if _decides(c.heading, c.text)]
    assert [decision_of(c.text, c.heading) for c in decided] == [said]  # the section shares a passage
    decided = [c for c in chunk_note("ADR-009 Job Queue", text, max_chars=30) if _decides(c.heading, c.text)]
    assert [decision_of(c.text, c.heading) for c in decided] == [said]  # the section opens a passage
    # the three real vaults: a "Conclusion" in logseq-docs and foam-docs, each read as its first paragraph of prose,
    # and no section whose heading only starts with such a word ("Decisional …") or says it later ("Proposed, not
    # decided")
    concluded = {}
    for vault in VAULTS:
        for path in sorted((CORPORA / vault).rglob("*.md")):
            body = path.read_text(encoding="utf-8", errors="replace")
            for chunk in chunk_note(path.stem, body, max_chars=1500):
                if _decides(chunk.heading, chunk.text) and (said := decision_of(chunk.text, chunk.heading)):
                    concluded.setdefault(path.name, said)
    # foam-docs' outline.md shows "# Conclusion" in an example's code block: no section of its own
    assert sorted(concluded) == ["Plugins 02 - Build a mind map plugin.md"]
    for said in concluded.values():
        assert said and len(said) <= 400 and not said.lstrip().startswith("#"), said
    assert (
        "we walk through building a simple but powerful mind map plugin"
        in concluded["Plugins 02 - Build a mind map plugin.md"]
    )
    for heading in (
        "ADR > Proposed, not decided",
        "Notes > Decisional trees",
        "ADR > Decision Drivers",
        "Decision Log",
    ):
        assert not _decision_heading(heading), heading
    for heading in ("Embedding Model Shortlist > Decision for v1", "ADR > Decision Outcome", "Conclusion"):
        assert _decision_heading(heading), heading
    assert decision_of("## Decision\n\n## Consequences\n\nSettings are in Celery Notes.") == ""  # it says nothing


def _decision_heading(path: str) -> bool:
    return re.search(DECISION_HEADING_PATH, path, re.I) is not None


def _decides(path: str, text: str) -> bool:
    """As the candidates' statement finds the passage that holds a note's decision."""
    return _decision_heading(path) or re.search(DECISION_HEADING_LINE, text, re.I) is not None


def test_a_line_heading_a_list_starts_the_chunk_its_list_starts():
    path = CORPORA / "kepano-obsidian" / "References" / "Brown butter nectarine tart.md"
    chunks = chunk_note("Brown butter nectarine tart", path.read_text(encoding="utf-8"), max_chars=1000)
    steps = next(c for c in chunks if "Preheat oven to 425F/220C" in c.text)
    assert steps.text.startswith("Making and blind-baking the crust\n\n1. Preheat oven")
    assert not any(c.text.rstrip().endswith("Making and blind-baking the crust") for c in chunks)


def test_a_line_heading_a_list_stays_where_the_list_would_not_fit_with_it():
    intro = "An introduction that says a good deal about the tart and its history. " * 6
    budget = 1000 - len("Tart") - 64
    steps = "\n".join(f"{n}. Step {n} of the recipe, with enough words to make the list long." for n in range(1, 14))
    steps += "\n14. Rest."
    while len(steps) < budget - 8:
        steps += " Rest."
    assert len(steps) <= budget < len(f"Making the crust\n\n{steps}")  # the list fits a chunk, not with its line
    chunks = chunk_note("Tart", f"{intro}\n\nMaking the crust\n\n{steps}\n", max_chars=1000)
    assert all(len(c.text) <= budget for c in chunks)
    assert "".join(c.text for c in chunks).count("Making the crust") == 1
