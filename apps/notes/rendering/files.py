"""A vault's files on a note page: `![[photo.png|300]]`, `![[doc.pdf#page=2]]`, `![alt](assets/x.png)` and
`[report](files/report.pdf)` point at the attachment's URL and show it as its bytes say it is shown.

Names are resolved in the vault of the note that writes them (an embedded note's files are its own vault's, which
the reader was checked for when the note was loaded), relative to that note's path first. The type that decides
how a file is shown is the one sniffed from its bytes, never the name: a raster image is an <img>, a PDF the
browser's viewer, audio and video their players; SVG (it can hold script), canvases, bases and text are links.

An image on another site is not loaded: it would tell that site who reads the note and when. It is shown as a
link with its address instead, unless the deployment lists its host in IMAGE_HOSTS (the page's
Content-Security-Policy lets the browser fetch from exactly those hosts, over HTTPS)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from django.conf import settings
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from apps.notes.media import ATTACHMENT_EXTENSIONS, EmbedKind, embed_kind, extension_of
from apps.notes.models import Attachment
from apps.notes.selectors import attachment_for, attachment_url

if TYPE_CHECKING:
    from apps.notes.rendering.wikilinks import Page

# `![[photo.png|300]]`, `![[photo.png|300x200]]`, `![alt|300](photo.png)`: Obsidian's size after the last `|`.
_SIZE = re.compile(r"^(\d{1,5})(?:x(\d{1,5}))?$")
_PAGE = re.compile(r"^page=(\d{1,6})$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")

Found = dict[tuple[int, str, str], Attachment | None]


@dataclass
class VaultFiles:
    """The files one rendered note names, looked up in its vault (each name once per page)."""

    vault_id: int | None = None
    note_path: str = ""
    found: Found = field(default_factory=dict)

    def find(self, name: str) -> Attachment | None:
        if self.vault_id is None:
            return None
        key = (self.vault_id, self.note_path, name)
        if key not in self.found:
            self.found[key] = attachment_for(vault_id=self.vault_id, name=name, relative_to=self.note_path)
        return self.found[key]


@dataclass(frozen=True)
class Size:
    width: str = ""
    height: str = ""

    def attributes(self) -> str:
        return (f' width="{self.width}"' if self.width else "") + (f' height="{self.height}"' if self.height else "")


def label_and_size(text: str) -> tuple[str, Size]:
    """`caption|300x200` → ("caption", 300×200); `300` → ("", 300 wide); text without a size is all label."""
    label, _, last = text.rpartition("|")
    found = _SIZE.match(last.strip())
    if found is None:
        return text.strip(), Size()
    return label.strip(), Size(found.group(1), found.group(2) or "")


def is_external(address: str) -> bool:
    """An address with a scheme (`https:`, `mailto:`) or a host (`//cdn…`): not a file of the vault."""
    return bool(_SCHEME.match(address.strip()))


def _allowed_image(address: str) -> bool:
    parts = urlsplit(address.strip())
    return parts.scheme == "https" and (parts.hostname or "") in settings.IMAGE_HOSTS


def embed_html(attachment: Attachment | None, *, name: str, label: str, size: Size, fragment: str) -> str:
    """How an embedded file shows in place; a name that finds no file is marked, as an unresolved link is."""
    shown = escapeHtml(label or name)
    if attachment is None:
        return f'<span class="embed-file embed-unresolved" title="no file with this name in the vault">{shown}</span>'
    url = escapeHtml(attachment_url(attachment))
    file_name = escapeHtml(attachment.path.rsplit("/", 1)[-1])
    link = f'<a class="internal-file" href="{url}">{shown}</a>'
    kind = embed_kind(attachment.media_type)
    if kind is EmbedKind.IMAGE:
        return f'<img class="embed-image" src="{url}" alt="{shown}" loading="lazy"{size.attributes()}>'
    if kind is EmbedKind.PDF:
        page = _PAGE.match(fragment.strip())
        start = f"#page={page.group(1)}" if page else ""
        return (
            f'<span class="embed-file embed-pdf"><object data="{url}{start}" type="application/pdf"'
            f' title="{file_name}">{link}</object>'
            f'<a class="embed-download" href="{url}" download="{file_name}">Download {file_name}</a></span>'
        )
    if kind in (EmbedKind.AUDIO, EmbedKind.VIDEO):
        tag = "audio" if kind is EmbedKind.AUDIO else "video"
        player = f'<{tag} controls preload="metadata" src="{url}"{size.attributes()}>{link}</{tag}>'
        return f'<span class="embed-file embed-{tag}">{player}</span>'
    return f'<a class="internal-file embed-file-link" href="{url}">{shown}</a>'


def image_html(source: str, alt: str, page: Page | None) -> str:
    """A picture a note shows by its address (`![alt](source)`, Logseq's `[:img {:src …}]`; the address one the
    parser accepts): from a host the deployment allows, the picture; from another site, a link to it; a file of the
    vault, in place."""
    if _allowed_image(source):
        size_alt, size = label_and_size(alt)
        return f'<img class="remote-image" src="{escapeHtml(source)}" alt="{escapeHtml(size_alt)}"{size.attributes()}>'
    return file_html(source, alt, page, picture=True)


def file_html(source: str, alt: str, page: Page | None, *, picture: bool = False) -> str:
    """A file a note shows by its address: one on another site as a link to it, never loaded; one of the vault in
    place, as its bytes say it is shown."""
    if is_external(source):
        shown = escapeHtml(f"{alt} ({source})" if alt.strip() else source)
        kind, what = ("external-image", "An image") if picture else ("external-file", "A file")
        title = f"{what} on another site: not loaded, so that site cannot see who reads this note"
        return f'<a class="{kind}" href="{escapeHtml(source)}" rel="noopener noreferrer" title="{title}">{shown}</a>'
    name, _, fragment = unquote(source).partition("#")
    label, size = label_and_size(alt)
    attachment = page.files.find(name) if page is not None else None
    return embed_html(attachment, name=name, label=label, size=size, fragment=fragment)


def _render_image(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)  # type: ignore[attr-defined]
    return image_html(str(token.attrGet("src") or ""), alt, env.get("page"))


def _render_link_open(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    """A Markdown link to a file of the vault (`[report](files/report.pdf)`) goes to the file."""
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    page: Page | None = env.get("page")
    if page is not None and href and not href.startswith("#") and not is_external(href):
        path, _, fragment = unquote(href).partition("#")
        if extension_of(path) in ATTACHMENT_EXTENSIONS and (attachment := page.files.find(path)) is not None:
            token.attrSet("href", attachment_url(attachment) + (f"#{fragment}" if fragment else ""))
            token.attrJoin("class", "internal-file")
    return self.renderToken(tokens, idx, options, env)  # type: ignore[attr-defined]


def files_plugin(md: MarkdownIt) -> None:
    md.add_render_rule("image", _render_image)
    md.add_render_rule("link_open", _render_link_open)
