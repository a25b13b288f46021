"""An answer as the page shows it: Markdown rendered to HTML with raw HTML escaped, and each `[n]` that cites a
passage turned into a link to its note. Rendered on the server, for the streamed text so far and for the finished
answer alike, so the page never parses model output itself."""

from __future__ import annotations

import functools
import re
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from apps.notes.text import MEDIA_FILE

CITATION = re.compile(r"\[(\d+)\]")
_TAG = re.compile(r"(<[^>]*>)")
_CODE_OPEN = re.compile(r"^<(code|pre)\b")
_CODE_CLOSE = re.compile(r"^</(code|pre)>")


# A link with no scheme and no root ("../features/tags.md") is relative to the note it was quoted from, which the
# answer's page is not: it shows as its words.
_RELATIVE = re.compile(r"^(?![a-z][a-z0-9+.-]*:|/|#)", re.I)


@functools.cache
def _parser() -> MarkdownIt:
    # html off: any tag a model or a note's passage writes is shown as text; markdown-it refuses javascript:, vbscript:,
    # file: and non-image data: links by itself
    parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    parser.add_render_rule("link_open", _link_open)
    parser.add_render_rule("link_close", _link_close)
    parser.add_render_rule("image", _image)
    return parser


def _link_open(renderer: Any, tokens: list[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    shown = not _RELATIVE.match(str(tokens[idx].attrGet("href") or ""))
    env.setdefault("links", []).append(shown)
    return str(renderer.renderToken(tokens, idx, options, env)) if shown else ""


def _link_close(renderer: Any, tokens: list[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    shown = env.get("links", [True]).pop() if env.get("links") else True
    return str(renderer.renderToken(tokens, idx, options, env)) if shown else ""


def _image(renderer: Any, tokens: list[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    # A note's image is quoted as its description: its path is relative to the note, and the page loads no image a
    # note or a model names from elsewhere.
    described = tokens[idx].content.strip()
    return "" if MEDIA_FILE.search(described) else escapeHtml(described)  # a file name alone says nothing


def answer_html(text: str, cited: dict[int, tuple[str, str]]) -> str:
    """`cited`: citation number → (link, path) of the passages the answer may cite; other `[n]` stay text."""
    rendered = _parser().render(text)
    out: list[str] = []
    in_code = 0
    for part in _TAG.split(rendered):
        if part.startswith("<"):
            in_code += 1 if _CODE_OPEN.match(part) else -1 if _CODE_CLOSE.match(part) else 0
            out.append(part)
        elif in_code:
            out.append(part)
        else:
            out.append(CITATION.sub(lambda m: _citation_link(m, cited), part))
    return "".join(out)


def _citation_link(match: re.Match[str], cited: dict[int, tuple[str, str]]) -> str:
    number = int(match.group(1))
    if number not in cited:
        return match.group(0)
    href, path = cited[number]
    return f'<a class="cite" href="{escapeHtml(href)}" title="{escapeHtml(path)}">[{number}]</a>'
