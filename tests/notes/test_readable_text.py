"""A passage quoted as text on a card or in the answer picker reads as its page shows it."""

from __future__ import annotations

from apps.notes.text import readable_text


def test_a_link_reads_as_its_label_and_a_link_written_in_code_stays_as_written():
    passage = (
        "See [the install guide](https://example.org/install) first.\n"
        "- Write `[label](https://example.org)` to link, or **bold** for emphasis."
    )
    assert readable_text(passage) == (
        "See the install guide first. Write [label](https://example.org) to link, or bold for emphasis."
    )


def test_emphasis_of_one_mark_reads_as_its_words_on_real_notes_and_marks_inside_words_stay():
    from tests.corpora import CORPORA

    text = (CORPORA / "kepano-obsidian/Clippings/Buy wisely.md").read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if line.startswith("*Cost per use* is a heuristic"))
    assert readable_text(line).startswith("Cost per use is a heuristic")
    assert (
        readable_text("- parmigiano, black pepper, salt *quanto basta*")
        == "parmigiano, black pepper, salt quanto basta"
    )
    assert readable_text("name files in snake_case_form, 2 * 3 * 4") == "name files in snake_case_form, 2 * 3 * 4"
    assert readable_text("Run `pytest tests/*.py` on `_config_.yml`, see src/*.py") == (
        "Run pytest tests/*.py on _config_.yml, see src/*.py"
    )


def test_a_logseq_link_to_a_page_with_words_of_its_own_reads_as_its_words_on_real_pages():
    from tests.corpora import CORPORA

    text = (CORPORA / "logseq-docs/pages/Getting started with the Journals page.md").read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if "[continue with the lesson on how to create pages.]" in line)
    assert readable_text(line) == (
        "Once you feel more comfortable with Logseq, continue with the lesson on how to create pages."
    )


def test_a_table_reads_as_its_cells_row_after_row_on_a_real_page():
    from tests.corpora import CORPORA

    text = (CORPORA / "logseq-docs/pages/Calculator.md").read_text(encoding="utf-8")
    start = text.index("- |Function name|")
    readable = readable_text(text[start : text.index("\n- ", start)])  # the block holding the table
    assert readable.startswith("Function name · Description; sqrt · square root; log · common logarithm (base 10);")
    assert "|" not in readable and "--" not in readable
    # Obsidian escapes the pipe of a wikilink's alias inside a table
    assert readable_text("| Who | Role |\n| --- | --- |\n| [[Ana Lima\\|Ana]] | lead \\| owner |") == (
        "Who · Role; Ana · lead | owner"
    )
    assert readable_text("1. | Step | Time |\n   | --- | --- |\n   | Proof | 2 h |") == "Step · Time; Proof · 2 h"


def test_a_task_reads_without_its_box_and_a_callout_by_its_title():
    from tests.corpora import CORPORA

    text = (CORPORA / "kepano-obsidian/Notes/Minimal Theme.md").read_text(encoding="utf-8")
    tasks = "\n".join(line for line in text.splitlines() if line.startswith("- ["))
    assert readable_text(tasks) == "Color schemes E-ink mode Mobile support"
    assert readable_text("- [ ] Buy flour\n  - [-] Buy yeast\n1. [/] Proof") == "Buy flour Buy yeast 1. Proof"
    # none of the three vaults has a callout: these are Obsidian's documented forms
    assert readable_text("> [!warning] Mind the *oven*\n> It runs hot.") == "Mind the oven It runs hot."
    assert readable_text("> [!Example]-\n> - [x] Fold the dough") == "Example Fold the dough"
    # code keeps them as written
    assert readable_text("```\n- [ ] later\n> [!note]\n```") == "[ ] later [!note]"


def test_an_escaped_mark_reads_as_the_mark_and_an_embed_as_the_note_it_shows_on_real_notes():
    from tests.corpora import CORPORA

    shortcuts = (CORPORA / "foam-docs/user/getting-started/keyboard-shortcuts.md").read_text(encoding="utf-8")
    table = shortcuts[shortcuts.index("| Shortcut") : shortcuts.index("| `ctrl+shift+f`")]
    readable = readable_text(table)
    # the author's "\-" is a dash in an empty cell: no backslash, no stray dash
    assert "\\" not in readable and " - " not in readable
    assert "alt+c · markdown.extension.checkTaskList · Markdown All in One · Toggle TODO items." in readable
    tips = (CORPORA / "logseq-docs/pages/tips_and_tricks.md").read_text(encoding="utf-8")
    line = next(line for line in tips.splitlines() if "snake\\_case\\_text" in line)
    assert readable_text(line).endswith(
        "for example snake\\_case\\_text will be displayed as snake_case_text."
    )  # in code as written, outside it as shown
    genre = (CORPORA / "kepano-obsidian/Templates/Genre Template.md").read_text(encoding="utf-8")
    assert readable_text(genre.split("---")[-1]) == "Genre (a base view)"  # what an embedded base is, not its file
    assert readable_text("See ![[Trips.base#Location]] and ![[Ana Lima|Ana]]") == "See Trips (a base view) and Ana"
    # a picture reads as its description; its size, or a file name alone, says nothing
    assert readable_text("![[photo.png|300]] and ![[map.png\\|640x480]] or ![[map.png|The map]]") == "and or The map"
    # an escaped mark that opens or closes the line is shown too; a character of an icon font is left as it is
    assert readable_text("\\# not a heading, \\*not emphasis\\*") == "# not a heading, *not emphasis*"
    assert readable_text("icon \ue041 here, `code \ue02a`, and \\`not code\\`") == (
        "icon \ue041 here, code \ue02a, and `not code`"
    )


def test_a_picture_in_a_line_reads_as_its_description_and_a_file_name_as_nothing_on_a_real_page():
    from tests.corpora import CORPORA

    page = (CORPORA / "logseq-docs/pages/one year in logseq.md").read_text(encoding="utf-8")
    charlie = next(line for line in page.splitlines() if "**Charlie**" in line)
    assert readable_text(charlie) == "Charlie"  # no "![image.png](../assets/…)"
    sized = next(line for line in page.splitlines() if "{:height 557" in line)
    assert readable_text(sized) == ""  # "CleanShot 2021-03-20 at 18.15.54@2x.png" and Logseq's size
    changelog = (CORPORA / "logseq-docs/pages/Changelog.md").read_text(encoding="utf-8")
    demo = next(line for line in changelog.splitlines() if "![Demo Recording]" in line)
    assert readable_text(demo) == "Add PDF shape to Whiteboards #9743 Demo Recording"
    assert readable_text("Write `![a](b.png)` to show a picture") == "Write ![a](b.png) to show a picture"


def test_html_a_note_writes_inline_reads_as_its_words_and_a_placeholder_stays_on_a_real_page():
    from tests.corpora import CORPORA

    page = (CORPORA / "logseq-docs/pages/testimonials.md").read_text(encoding="utf-8")
    line = next(line for line in page.splitlines() if "<u><b><i>links</i></b></u>" in line)
    assert "random thoughts and links these snippets of thoughts." in readable_text(line)
    assert readable_text("Press <kbd>Ctrl</kbd>+<kbd>P</kbd>,<br>then paste <YOUR_TOKEN> or `<b>` here") == (
        "Press Ctrl+P, then paste <YOUR_TOKEN> or <b> here"
    )


def test_a_table_of_contributors_written_in_html_reads_as_their_names_as_its_page_shows_them():
    from django.conf import settings

    from apps.notes.markdown import chunk_note
    from tests.corpora import CORPORA

    index = (CORPORA / "foam-docs/index.md").read_text(encoding="utf-8")
    chunks = chunk_note("index", index, max_chars=int(settings.CHUNK_MAX_CHARS))
    table = next(chunk.text for chunk in chunks if "Jani Eväkallio" in chunk.text)
    assert readable_text(table) == "Jani Eväkallio 💻 📖 Joe Previte 💻 📖"
    assert not [chunk.text for chunk in chunks if "<" in readable_text(chunk.text)]
    assert readable_text("<details><summary>More</summary>Hidden</details> a<br>b <note-name> here") == (
        "More Hidden a b <note-name> here"
    )


def test_a_wikilink_written_in_code_stays_as_written_on_a_real_note():
    from tests.corpora import CORPORA

    anchors = (CORPORA / "foam-docs/user/features/block-anchors.md").read_text(encoding="utf-8")
    line = next(line for line in anchors.splitlines() if "to embed just that block inline" in line)
    # the syntax the sentence teaches, not the name of a note it would embed
    assert readable_text(line) == "Use ![[note-name#^blockid]] to embed just that block inline:"


def test_a_logseq_block_reads_without_the_properties_logseq_hides_on_real_pages():
    from tests.corpora import CORPORA

    queries = (CORPORA / "logseq-docs/pages/Queries.md").read_text(encoding="utf-8")
    start = queries.index("- **How to write queries?**")
    assert readable_text(queries[start : queries.index("\n\t-", start)]) == "How to write queries?"  # no created_at
    commands = (CORPORA / "logseq-docs/pages/Commands.md").read_text(encoding="utf-8")
    start = commands.index("\t- query-table:: true")
    settings = readable_text(commands[start : commands.index("#+BEGIN_QUERY", start)])
    assert settings == ""  # no "query-properties: [:name :page :description]"
    assert readable_text("- Ship it\n  owner:: [[Ana]]") == "Ship it owner: Ana"  # a property of the author's own
