"""The one Markdown parser of note pages: CommonMark, its raw HTML cleaned (`html`), plus what Obsidian adds.

Footnotes and math are mdit-py-plugins' (`footnotes`, `math` give them our HTML); wikilinks, embeds, files, tags,
callouts, the marks in `blocks`, Logseq's block properties and its hiccup are ours, each saying why. Two plugins
are left out on purpose: front_matter, because the frontmatter is cut off before parsing by the reader the note
parser uses (`split_frontmatter`), and amsmath, because Obsidian draws `\begin{align}` and its kin only inside `$$`,
never bare in the text."""

from __future__ import annotations

import functools

from linkify_it import LinkifyIt
from markdown_it import MarkdownIt

from apps.notes.rendering.blocks import blocks_plugin
from apps.notes.rendering.callouts import callouts_plugin
from apps.notes.rendering.files import files_plugin
from apps.notes.rendering.footnotes import footnotes_plugin
from apps.notes.rendering.hiccup import hiccup_plugin
from apps.notes.rendering.html import html_plugin
from apps.notes.rendering.logseq import logseq_plugin
from apps.notes.rendering.math import math_plugin
from apps.notes.rendering.tags import tags_plugin
from apps.notes.rendering.wikilinks import Page, mark_wikilinks, wikilinks_plugin


@functools.cache
def address_finder() -> LinkifyIt:
    """What finds the bare web addresses the note page makes links, in the body and in property values. Only
    written schemes count: fuzzy matching would turn a file name such as README.md (Moldova's domain) or a
    username@host into a link, and a scheme-less //host is too often a comment."""
    return LinkifyIt(options={"fuzzy_link": False, "fuzzy_email": False, "fuzzy_ip": False}).add("//", None)


@functools.cache
def note_parser() -> MarkdownIt:
    # html on, drawn by `html_plugin` only as far as nh3 cleans it: a <script> or an onerror= in a note is shown as
    # text or dropped, never run; markdown-it also refuses javascript:, vbscript:, file: and data: link targets.
    # breaks on: Obsidian (its "strict line breaks" off by default) shows a single newline inside a paragraph as a
    # line break.
    # linkify on: Obsidian and Logseq make a bare https:// or mailto: address a link (`address_finder`). Links are
    # made from text only, never inside code or math.
    options = {"html": True, "linkify": True, "breaks": True}
    md = MarkdownIt("commonmark", options).enable(["table", "strikethrough", "linkify"])
    md.linkify = address_finder()
    plugins = (wikilinks_plugin, files_plugin, math_plugin, footnotes_plugin, callouts_plugin, blocks_plugin)
    for plugin in (*plugins, tags_plugin, logseq_plugin, hiccup_plugin, html_plugin):
        md.use(plugin)
    return md


def render_body(body: str, page: Page) -> str:
    """HTML of a note's body (frontmatter and comments already removed) as `page` links and embeds it."""
    return note_parser().render(mark_wikilinks(body, page), {"page": page})
