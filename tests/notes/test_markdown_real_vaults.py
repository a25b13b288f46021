"""Parsing real vaults: links, tags, properties and block ids are what their authors meant, never read out of
code, math or comments. Excerpts come from /work/shared/corpora (each cites its file); the last test parses
every note there."""

from __future__ import annotations

from apps.notes.markdown import Link, chunk_note, parse_note
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
