"""Wikilinks and embeds on the page: `[[Note#Heading|alias]]` becomes a link, `![[Note]]` the embedded note.

Which `[[…]]` are links is decided on the source, with the same code/math/comment spans the note parser used, so
the page links exactly what the parser stored. Each such link is swapped for a marker (a private-use character and
its index) that an inline rule turns into a token; Markdown syntax inside a wikilink (`|` in a table, `*` in a
name) can then never be misread."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from django.urls import reverse
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from apps.notes.markdown import WIKILINK
from apps.notes.media import ATTACHMENT_EXTENSIONS, extension_of
from apps.notes.rendering.files import VaultFiles, embed_html, label_and_size
from apps.notes.selectors import attachment_url
from apps.notes.syntax import BLOCK_UUID, EMBED_CLOSE, EMBED_OPEN, hidden_spans
from apps.notes.text import heading_id

MARKER_OPEN, MARKER_CLOSE = "\ue000", "\ue001"
_MARKER = re.compile(f"{MARKER_OPEN}(\\d+){MARKER_CLOSE}")
# Logseq's `{{embed [[Page]]}}`, `{{embed ((uuid))}}`, `[label](((uuid)))`, `[label]([[Page]])` and `((uuid))`, or a
# wikilink.
_LOGSEQ_REFERENCE = re.compile(
    rf"{EMBED_OPEN}(?:(?P<page>\[\[[^\[\]\n]+\]\])|\(\((?P<embedded>{BLOCK_UUID})\)\)){EMBED_CLOSE}"
    rf"|\[(?P<label>[^\[\]\n]*)\]\(\(\((?P<labelled>{BLOCK_UUID})\)\)\)"
    rf"|(?<![!\\])\[(?P<page_label>[^\[\]\n]+)\]\((?P<labelled_page>\[\[[^\[\]|\n]+\]\])\)"
    rf"|\(\((?P<referenced>{BLOCK_UUID})\)\)"
    rf"|(?P<wikilink>{WIKILINK.pattern})"
)
_VERBATIM = frozenset({"fence", "code_block", "code_inline", "math_inline", "math_inline_double", "math_block"})


@dataclass(frozen=True)
class WrittenLink:
    target: str
    heading: str
    alias: str
    embed: bool
    source: str  # as written
    block: str = ""  # a Logseq block reference's uuid: the target is the note holding that block

    @property
    def is_attachment(self) -> bool:
        """Whether it names a file rather than a note: by its extension, as Obsidian decides."""
        return extension_of(self.target) in ATTACHMENT_EXTENSIONS


@dataclass
class Page:
    """One note being rendered: where its wikilinks point, how its embeds are shown, where the files it names are
    found, and the prefix of the ids it gives headings, blocks and footnotes (embedded notes get their own, so ids
    stay unique on the page)."""

    note_id: int | None
    targets: dict[str, int | None]
    embed: Callable[[WrittenLink], str]
    files: VaultFiles = field(default_factory=VaultFiles)
    id_prefix: str = ""
    written: list[WrittenLink] = field(default_factory=list)
    logseq: bool = False  # block references and `{{embed …}}` are links too
    quote: Callable[[WrittenLink], str] = lambda link: ""  # the text of the block a reference names

    def target_of(self, link: WrittenLink) -> int | None:
        return self.note_id if not link.target else self.targets.get(link.target.lower())


def anchor(heading: str) -> str:
    """The fragment a `#heading` or `#^block` of a wikilink points at (the last part of `#a#b`)."""
    last = heading.split("#")[-1].strip()
    return f"^{last[1:].lower()}" if last.startswith("^") else heading_id(last)


def mark_wikilinks(body: str, page: Page) -> str:
    """`body` with every wikilink outside code, math and comments replaced by a marker; `page.written` lists them.

    A marker character already in the note can only name one of the note's own links, so it is left alone."""
    verbatim = hidden_spans(body)
    starts = [span.start for span in verbatim]

    def marker(link: WrittenLink) -> str:
        page.written.append(link)
        return f"{MARKER_OPEN}{len(page.written) - 1}{MARKER_CLOSE}"

    def replace(match: re.Match[str]) -> str:
        index = bisect.bisect_right(starts, match.start()) - 1
        if index >= 0 and verbatim[index].end > match.start():
            return match.group(0)
        if not page.logseq or match.group("wikilink") is not None:
            return marker(_wikilink_of(match.group("wikilink") if page.logseq else match.group(0)))
        if match.group("page") is not None:  # `{{embed [[Page]]}}` is `![[Page]]`
            return marker(_wikilink_of(f"!{match.group('page')}"))
        if match.group("labelled_page") is not None:  # `[label]([[Page]])` is `[[Page|label]]`
            link = _wikilink_of(match.group("labelled_page"))
            return marker(WrittenLink(link.target, link.heading, match.group("page_label").strip(), False, match[0]))
        block = next(match.group(name) for name in ("embedded", "labelled", "referenced") if match.group(name))
        embed = match.group("embedded") is not None
        alias = match.group("label") or ""
        return marker(WrittenLink(block.lower(), f"^{block.lower()}", alias, embed, match[0], block=block.lower()))

    return (_LOGSEQ_REFERENCE if page.logseq else WIKILINK).sub(replace, body)


def _wikilink_of(written: str) -> WrittenLink:
    found = WIKILINK.fullmatch(written)
    assert found is not None  # `written` is a match of WIKILINK
    target = found.group(1).strip()
    heading, alias = (found.group(2) or "").strip(), (found.group(3) or "").strip()
    return WrittenLink(target, heading, alias, embed=written[0] == "!", source=written)


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != MARKER_OPEN:
        return False
    found = _MARKER.match(state.src, state.pos, state.posMax)
    page = state.env.get("page")
    if found is None or page is None or int(found.group(1)) >= len(page.written):
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.meta = {"link": page.written[int(found.group(1))]}
    state.pos = found.end()
    return True


def as_written(text: str, page: Page) -> str:
    """`text` of the page's source with each wikilink marker swapped back for the link as written."""

    def written(found: re.Match[str]) -> str:
        index = int(found.group(1))
        return page.written[index].source if index < len(page.written) else found.group(0)

    return _MARKER.sub(written, text)


def _restore_verbatim(state: StateCore) -> None:
    """Code and math show a wikilink as written. The note parser reads the outline Logseq indents under a heading
    as prose, which CommonMark makes a code block: its links were marked, and are unmarked here."""
    page = state.env["page"]
    for token in state.tokens:
        for part in [token, *(token.children or [])]:
            if part.type in _VERBATIM and MARKER_OPEN in part.content:
                part.content = as_written(part.content, page)


def _unwrap_lone_embeds(state: StateCore) -> None:
    """A paragraph that is only an embedded note is that note (a block), not a paragraph holding it."""
    tokens, page = state.tokens, state.env["page"]
    for index in range(1, len(tokens) - 1):
        children = [c for c in tokens[index].children or [] if not (c.type == "text" and not c.content.strip())]
        if tokens[index - 1].type != "paragraph_open" or len(children) != 1 or children[0].type != "wikilink":
            continue
        link = children[0].meta["link"]
        if link.embed and page.target_of(link) is not None:
            tokens[index - 1].hidden = tokens[index + 1].hidden = True


def link_html(link: WrittenLink, page: Page) -> str:
    """A written link as the page shows it: to its note (or its heading), to the vault's file it names, or marked
    unresolved."""
    text = link.alias or (f"{link.target} › {link.heading}" if link.heading and link.target else link.target)
    text = escapeHtml(text or link.heading)
    target_id = page.target_of(link)
    if target_id is None and link.is_attachment and (attachment := page.files.find(link.target)) is not None:
        fragment = f"#{link.heading}" if link.heading else ""
        href = escapeHtml(attachment_url(attachment) + fragment)
        return f'<a class="internal-file" href="{href}">{escapeHtml(link.alias or link.target)}</a>'
    if target_id is None and link.block:  # `[label](((uuid)))` to a block no note holds: its label
        return text
    if target_id is None and link.is_attachment:  # a missing file, not a note someone could write
        return f'<a class="unresolved" title="no file with this name in the vault">{text}</a>'
    if target_id is None:
        return f'<a class="unresolved" title="no note with this name yet">{text}</a>'
    fragment = f"#{anchor(link.heading)}" if link.heading else ""
    href = escapeHtml(f"{reverse('note-page', args=[target_id])}{fragment}")
    return f'<a class="internal" href="{href}">{text}</a>'


def _render_wikilink(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    link: WrittenLink = tokens[idx].meta["link"]
    page: Page = env["page"]
    if link.block and not link.embed and not link.alias:
        return page.quote(link)
    if not link.embed:
        return link_html(link, page)
    if link.is_attachment and page.target_of(link) is None:  # a note named `x.json` is still that note
        label, size = label_and_size(link.alias)
        attachment = page.files.find(link.target)
        return embed_html(attachment, name=link.target, label=label, size=size, fragment=link.heading)
    return page.embed(link)


def wikilinks_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.inline.add_terminator_char(MARKER_OPEN)
    md.core.ruler.push("unwrap_lone_embeds", _unwrap_lone_embeds)
    md.core.ruler.push("restore_verbatim", _restore_verbatim)
    md.add_render_rule("wikilink", _render_wikilink)
