"""A cited passage's link opens the note page at the heading the passage stands under, whatever the heading holds
(a tag, a wikilink, a link): the page's heading id and the link's fragment are made the same way."""

from __future__ import annotations

import re

import pytest

from apps.chat.models import ContextItem
from apps.chat.services.chat import item_href
from apps.notes.markdown import chunk_note, parse_note
from apps.notes.models import Note, NoteLink
from apps.notes.rendering import render_note
from tests.corpora import CORPORA, VAULTS


def _ids(note: Note) -> set[str]:
    return set(re.findall(r' id="([^"]+)"', render_note(note, []).html))


def _section_links(title: str, body: str) -> dict[str, str]:
    """Each chunk's heading path → the fragment of the link the chat gives a passage of that chunk."""
    links = {}
    for chunk in chunk_note(title, body, max_chars=1800):
        href = item_href(ContextItem(note_id=1, heading=chunk.heading, title=title))
        if "#" in href:
            links[chunk.heading] = href.split("#", 1)[1]
    return links


@pytest.mark.parametrize(
    ("heading", "fragment"),
    [
        ("Deploy #ops", "deploy-ops"),
        ("See [[Other note]]", "see-other-note"),
        ("See [[Other note#Setup|the setup]]", "see-the-setup"),
        ("Read [the guide](https://example.org/guide)", "read-the-guide"),
        ("`make` **twice**", "make-twice"),
    ],
)
def test_a_cited_section_opens_at_its_heading_when_the_heading_has_a_tag_or_a_link(heading, fragment):
    body = f"## {heading}\n\nRun the deploy script after the review.\n"
    links = _section_links("Runbook", body)
    assert links == {heading: fragment}
    assert fragment in _ids(Note(pk=1, path="Runbook.md", title="Runbook", body=body))


def test_every_section_of_the_real_vaults_is_linked_to_its_heading_on_the_page():
    checked = 0
    for vault in VAULTS:
        for path in sorted((CORPORA / vault).rglob("*.md")):
            text = path.read_text(encoding="utf-8")
            parsed = parse_note(str(path.relative_to(CORPORA / vault)), text)
            links = _section_links(parsed.title, text)
            if not links:
                continue
            ids = _ids(Note(pk=1, path=parsed.path, title=parsed.title, body=text))
            for heading, fragment in links.items():
                assert fragment in ids, f"{vault}/{parsed.path}: {heading!r} is linked as #{fragment}"
                checked += 1
    assert checked > 300  # a heading with a link, such as logseq-docs/README.md's, among them


def test_a_repeated_heading_has_an_id_of_its_own_and_a_link_naming_it_reaches_the_first():
    # logseq-docs writes "### Example" twice on Calculator.md and "## Examples" thrice on its embedding page
    calculator = (CORPORA / "logseq-docs/pages/Calculator.md").read_text(encoding="utf-8")
    html = render_note(Note(pk=1, path="pages/Calculator.md", title="Calculator", body=calculator), []).html
    assert re.findall(r'<h3 id="(example[^"]*)">Example</h3>', html) == ["example", "example-1"]
    media = (CORPORA / "logseq-docs/pages/Embed Media - Audio, Photos, Videos.md").read_text(encoding="utf-8")
    html = render_note(Note(pk=2, path="pages/Embed Media.md", title="Embed Media", body=media), []).html
    assert re.findall(r'<h2 id="(examples[^"]*)">Examples</h2>', html) == ["examples", "examples-1", "examples-2"]

    # a heading whose own text ends as a repeat's id would, and the repeat after it, each keep an id of their own
    html = render_note(Note(pk=3, path="n.md", title="n", body="# Step\n# Step 1\n# Step\n"), []).html
    assert re.findall(r'<h1 id="([^"]+)"', html) == ["step", "step-1", "step-2"]

    # the chat's link to a passage under "Example", and a wikilink to [[Calculator#Example]], name it by its text
    assert item_href(ContextItem(note_id=1, heading="Example", title="Calculator")) == "/notes/1/#example"
    linking = Note(pk=4, path="Sums.md", title="Sums", body="See [[Calculator#Example]].")
    calculator_link = NoteLink(target_text="Calculator", target_id=1)
    assert 'href="/notes/1/#example"' in render_note(linking, [calculator_link]).html
