"""Logseq's hiccup on a note page: a Logseq block may write HTML as a Clojure vector (`[:div [:img {:src "…"}]]`,
`[:code "x"]`, `[:a {:href "…"} "label"]`), which Logseq draws as that HTML. The page draws it so, only as far as a
note's own HTML is drawn (`html`): the tags of text and tables, cleaned by nh3. A picture, a player or a frame shows
as a Markdown picture does (`files`): a file of the vault in place, one on another site as a link, never loaded.

What does not read whole as hiccup (a bracket never closed, a list `(…)` of code) stays text, as does hiccup
anywhere but on a Logseq page."""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.common.normalize_url import normalizeLink, validateLink
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from apps.notes.rendering.files import file_html, image_html
from apps.notes.rendering.html import clean_html
from apps.notes.rendering.wikilinks import Page, as_written
from apps.notes.syntax import BLOCK_LEVEL, VOID

# An element's tag (`:div.text-sm#intro`), a key or a value (`:controls`, `:_blank`), each ending where data does.
_TAG_KEYWORD = re.compile(r":([A-Za-z][\w-]*(?:[.#][\w-]+)*)(?=[\s,\[\]{}\"]|$)")
_KEYWORD = re.compile(r":([A-Za-z_][\w.-]*)(?=[\s,\[\]{}\"]|$)")
_ATOM = re.compile(r"[\w.+-]+(?=[\s,\[\]{}\"]|$)")  # a number, true, false, nil
_TAG = re.compile(r"[a-z][a-z0-9-]*")
_ATTRIBUTE = re.compile(r"[A-Za-z][\w-]*")
_SPACE = frozenset(" \t\r\n,")  # a comma is space in Clojure
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_MAX_DEPTH = 32
# The characters of hiccup one page may read, tried or drawn: a note of many brackets that never close stays cheap.
_PAGE_BUDGET = 200_000
# Tags whose `:src` names what they show: a picture, a player, a frame.
_FILES = frozenset({"img", "audio", "video", "iframe", "source", "embed", "object"})
# Where a file's HTML goes once the rest is cleaned (nh3 would drop its tags).
_FILE_OPEN, _FILE_CLOSE = "\ue004", "\ue005"
_FILE = re.compile(f"{_FILE_OPEN}(\\d+){_FILE_CLOSE}")
_BREAKS = frozenset({"softbreak", "hardbreak"})


@dataclass(frozen=True)
class Element:
    tag: str  # as written: `div.text-sm`
    attributes: dict[str, str]
    children: list[Element | str]

    @property
    def name(self) -> str:
        """The HTML tag: `div` for `:div.text-sm#intro`."""
        return re.split(r"[.#]", self.tag, maxsplit=1)[0].lower()


class _NotHiccup(Exception):
    pass


class _Reader:
    """Reads one hiccup element of `text` between `start` and `end`: vectors, maps, strings, keywords, numbers."""

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text, self.pos, self.end = text, start, end

    def element(self, depth: int = 0) -> Element:
        if depth > _MAX_DEPTH or not self.text.startswith("[", self.pos):
            raise _NotHiccup
        self.pos += 1
        tag = self._keyword(_TAG_KEYWORD)
        attributes: dict[str, str] = {}
        children: list[Element | str] = []
        if self._following() == "{":
            attributes = {key: value for key, value in self._map(depth).items() if isinstance(value, str)}
        while self._following() != "]":
            children.append(self._child(depth))
        self.pos += 1
        return Element(tag, attributes, children)

    def _child(self, depth: int) -> Element | str:
        following = self._following()
        if following == "[":
            return self.element(depth + 1)
        if following == '"':
            return self._string()
        atom = self._atom()
        return "" if atom == "nil" else atom

    def _map(self, depth: int) -> dict[str, str | None]:
        """`{:src "…" :controls true}`; a nested map's value (`:style {:color "red"}`) is None."""
        self.pos += 1
        found: dict[str, str | None] = {}
        while self._following() != "}":
            key = self._keyword()
            following = self._following()
            if following == "{":
                if depth > _MAX_DEPTH:
                    raise _NotHiccup
                self._map(depth + 1)
                found[key] = None
            elif following == '"':
                found[key] = self._string()
            elif following == ":":
                found[key] = self._keyword()
            else:
                found[key] = self._atom()
        self.pos += 1
        return found

    def _keyword(self, keyword: re.Pattern[str] = _KEYWORD) -> str:
        found = keyword.match(self.text, self.pos, self.end)
        if found is None:
            raise _NotHiccup
        self.pos = found.end()
        return found.group(1)

    def _string(self) -> str:
        out: list[str] = []
        self.pos += 1
        while self.pos < self.end:
            character = self.text[self.pos]
            if character == '"':
                self.pos += 1
                return "".join(out)
            if character == "\\" and self.pos + 1 < self.end:
                self.pos += 1
                character = _ESCAPES.get(self.text[self.pos], self.text[self.pos])
            out.append(character)
            self.pos += 1
        raise _NotHiccup

    def _atom(self) -> str:
        found = _ATOM.match(self.text, self.pos, self.end)
        if found is None:  # a keyword among the children (`[:page :type]`), a symbol, code: not hiccup
            raise _NotHiccup
        self.pos = found.end()
        return found.group(0)

    def _following(self) -> str:
        """The next character that is not space."""
        while self.pos < self.end and self.text[self.pos] in _SPACE:
            self.pos += 1
        if self.pos >= self.end:
            raise _NotHiccup
        return self.text[self.pos]


def read_hiccup(text: str, start: int = 0, end: int | None = None) -> tuple[Element | None, int]:
    """The hiccup element written at `text[start]` (`[` and a keyword), None if what is written there is not one
    whole; and how far it was read."""
    reader = _Reader(text, start, len(text) if end is None else end)
    try:
        return reader.element(), reader.pos
    except _NotHiccup:
        return None, reader.pos


def hiccup_html(element: Element, page: Page | None) -> str:
    """`element` as the page draws it: cleaned as a note's HTML is, its files shown as a Markdown picture is."""
    files: list[str] = []
    html = clean_html(_html(element, page, files))
    return _FILE.sub(lambda found: files[int(found.group(1))] if int(found.group(1)) < len(files) else "", html)


def _html(element: Element, page: Page | None, files: list[str]) -> str:
    name = element.name
    if name in _FILES:
        source = normalizeLink(element.attributes.get("src", "").strip())
        if not source or not validateLink(source):
            return ""
        label = _text(element.attributes.get("alt") or element.attributes.get("title") or "", page)
        files.append(image_html(source, label, page) if name == "img" else file_html(source, label, page))
        return f"{_FILE_OPEN}{len(files) - 1}{_FILE_CLOSE}"
    attributes = "".join(
        f' {key}="{escapeHtml(_text(value, page))}"'
        for key, value in element.attributes.items()
        if _ATTRIBUTE.fullmatch(key)
    )
    inner = "".join(
        _html(child, page, files) if isinstance(child, Element) else escapeHtml(_text(child, page))
        for child in element.children
    )
    if not _TAG.fullmatch(name):  # `:my/thing`: no HTML tag, its content only
        return inner
    return f"<{name}{attributes}>" if name in VOID else f"<{name}{attributes}>{inner}</{name}>"


def _text(text: str, page: Page | None) -> str:
    """A string of the hiccup as written (a wikilink in it is text), holding no mark of where a file goes."""
    written = as_written(text, page) if page is not None else text
    return written.replace(_FILE_OPEN, "").replace(_FILE_CLOSE, "")


def _hiccup(state: StateInline, silent: bool) -> bool:
    page = state.env.get("page")
    if page is None or not page.logseq or not state.src.startswith("[:", state.pos):
        return False
    budget = state.env.get("hiccup_budget", _PAGE_BUDGET)
    if budget <= 0:
        return False
    element, read_to = read_hiccup(state.src, state.pos, state.posMax)
    state.env["hiccup_budget"] = budget - (read_to - state.pos)
    if element is None:
        return False
    if not silent:
        state.push("hiccup", "", 0).meta = {"element": element}
    state.pos = read_to
    return True


def _hiccup_blocks(state: StateCore) -> None:
    """A paragraph that is only hiccup drawing a block (`[:div …]`, `[:h2 …]` over `[:p …]`) is those blocks, not a
    paragraph holding them, nor broken by lines between them."""
    tokens = state.tokens
    for index in range(1, len(tokens) - 1):
        inline = tokens[index]
        if inline.type != "inline" or tokens[index - 1].type != "paragraph_open":
            continue
        children = inline.children or []
        shown = [c for c in children if c.type not in _BREAKS and not (c.type == "text" and not c.content.strip())]
        only_hiccup = bool(shown) and all(c.type == "hiccup" for c in shown)
        if only_hiccup and any(c.meta["element"].name in BLOCK_LEVEL for c in shown):
            tokens[index - 1].hidden = tokens[index + 1].hidden = True
            inline.children = shown


def _render_hiccup(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return hiccup_html(tokens[idx].meta["element"], env.get("page"))


def hiccup_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("link", "hiccup", _hiccup)
    md.core.ruler.push("hiccup_blocks", _hiccup_blocks)
    md.add_render_rule("hiccup", _render_hiccup)
