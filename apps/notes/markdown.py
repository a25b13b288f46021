"""Parse a note (Obsidian, Logseq, Foam): frontmatter and page properties, title, tags, aliases, links, block ids,
and heading-aware chunks. Structure is read from prose only (see `syntax`): code, math and comments hold none."""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import posixpath
import re
import textwrap
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

import yaml

from apps.notes.blocks import Block, block_lines, block_tree, piece_name, split_block
from apps.notes.syntax import (
    BLOCK_UUID,
    code_block_lines,
    prose_only,
    with_block_references_shown,
    without_comments,
    without_link_definitions,
)

# `[[Note#Heading|alias]]`: its target, heading and alias. Inside a table Obsidian writes the alias's pipe escaped,
# `[[Jazz\|jazz alias]]`, and reads it so anywhere: the backslash is part of neither the name nor the heading.
WIKILINK = re.compile(
    r"!?\[\[((?:[^\[\]\|#\n\\]|\\(?!\|))*)(?:#((?:[^\[\]\|\n\\]|\\(?!\|))*))?(?:\\?\|([^\[\]\n]*))?\]\]"
)
# Not after a word, a path or `[` (a Logseq priority `[#A]`); digits alone (`#12043`) are an issue number.
INLINE_TAG = re.compile(r"(?<![\w/#&\[])#([\w-][\w/-]*)")
LOGSEQ_TAG = re.compile(r"(?<![\w/#&])#\[\[([^\[\]\n]+)\]\]")
# Where a `#` is part of an address, not a tag: URLs, Markdown link destinations, autolinks.
# An HTML tag a note writes (`<a href="#question-thomaskoppelaar" title="Answering Questions">`): its attributes are
# no words of the note, and a "#" in them is no tag.
HTML_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
ADDRESS = re.compile(r"[A-Za-z][\w+.-]*://[^\s<>()\[\]]*|\]\([^)\n]*\)|<[^<>\s]+>")
EMBED_MACRO = re.compile(r"\{\{\s*embed\s*$")
BLOCK_REF = re.compile(rf"\(\(({BLOCK_UUID})\)\)")
PROPERTY = re.compile(r"^[ \t]*(?:[-*][ \t]+)?([A-Za-z][\w-]*)::[ \t]*(.*?)[ \t]*$", re.M)
OBSIDIAN_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$", re.M)
# `[label]: path.md "Title"`, the definitions Foam writes at a note's foot, one per wikilink.
LINK_DEFINITION = re.compile(
    r"^ {0,3}\[([^\]\n]+)\]:[ \t]*<?([^\s>]+)>?(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$", re.M
)
# `[text](Other%20Note.md)`, `![alt](<folder/Note.md#Heading> "title")`: its embed mark, label and destination.
INLINE_LINK = re.compile(
    r"(?P<embed>!?)\[(?P<label>(?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
    r"\(\s*(?P<destination><[^<>\n]+>|[^\s()<>]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
URL_SCHEME = re.compile(r"^[A-Za-z][\w+.-]*:")  # https:, mailto:, obsidian:… an address, not a note
# Frontmatter keys Obsidian reads as tags and aliases: their values name no note.
NOT_LINK_PROPERTIES = {"tags", "tag", "aliases", "alias", "cssclasses", "cssclass"}
TEMPLATE_PLACEHOLDER = re.compile(r"(?<![\"'])(\{\{[^{}\n]*\}\})(?![\"'])")
# Linear on purpose: `(.+?)\s*#*\s*$` backtracks cubically on a heading padded with spaces (a CPU DoS).
HEADING = re.compile(r"^(#{1,6})[ \t]+(\S.*)$")


class NoteFormatError(ValueError):
    """The file cannot become a note (broken frontmatter, binary content…); the message says why."""


class FrontmatterRefused(Exception):
    """Frontmatter that is broken YAML, or would expand past the limits below once read: the note is kept without
    it, as Obsidian still shows the body of a note whose properties it cannot read."""


# Bounds on what frontmatter may become once read. Real frontmatter is a few dozen flat values; these leave room
# for generous property lists while a note of a few hundred bytes can no longer name gigabytes through aliases.
FRONTMATTER_MAX_ALIASES = 64
FRONTMATTER_MAX_DEPTH = 32
FRONTMATTER_MAX_VALUES = 10_000
FRONTMATTER_SPARE_CHARS = 64 * 1024  # converted text may exceed twice the YAML's own size by this much


class LinkKind:  # the values of models.LinkKind; parsing needs no database
    # [[note]], [[note#heading|alias]], [[#heading]] (target "": this note), [text](folder/note.md#heading)
    LINK = "link"
    EMBED = "embed"  # ![[note]], {{embed [[note]]}}, ![text](note.md)
    BLOCK = "block"  # ((uuid)): target is the block id, resolved to the note that declares it
    PROPERTY = "property"  # a wikilink in a frontmatter property (`categories: ["[[Books]]"]`), as Obsidian reads it


@dataclass(frozen=True)
class Link:
    target: str
    heading: str
    alias: str
    kind: str = LinkKind.LINK
    block_id: str = ""  # [[note#^block-id]]: the block within the note the link resolves to


@dataclass(frozen=True)
class ChunkDraft:
    ordinal: int
    heading: str
    text: str
    embed_text: str
    content_hash: str
    # The note's properties, searched with its first chunk when no chunk's text holds them: not shown, not embedded.
    properties: str = ""


@dataclass
class ParsedNote:
    path: str
    title: str
    body: str
    frontmatter: dict[str, Any]
    tags: list[str]
    aliases: list[str]
    links: list[Link]
    content_hash: str
    link_keys: list[str] = field(default_factory=list)
    block_ids: list[str] = field(default_factory=list)
    frontmatter_refused: str = ""  # why the frontmatter was dropped (broken, or too large once read); "" when kept


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def decode_note_bytes(raw: bytes, *, max_bytes: int) -> str:
    """Bytes of a file → text, or NoteFormatError with a reason a person understands."""
    if len(raw) > max_bytes:
        raise NoteFormatError(f"file is larger than the {max_bytes // 1024} KiB limit")
    nul = raw.find(b"\x00")
    if 0 <= nul < 8192:
        raise NoteFormatError("binary file (contains NUL bytes), not a Markdown note")
    if nul >= 0:
        raise NoteFormatError(f"contains a NUL character (byte {nul}), which a note cannot store")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NoteFormatError(f"not valid UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})") from exc
    return text


class _BoundedLoader(yaml.SafeLoader):
    """YAML that cannot grow past what it says: aliases are counted and nesting is bounded while the node graph is
    composed, before anything is built (an alias shares its node, so nine lines of aliases can name billions)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.aliases_used = 0
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self.aliases_used += 1
            if self.aliases_used > FRONTMATTER_MAX_ALIASES:
                raise FrontmatterRefused(f"frontmatter uses more than {FRONTMATTER_MAX_ALIASES} YAML aliases (*name)")
            return super().compose_node(parent, index)
        self.depth += 1
        try:
            if self.depth > FRONTMATTER_MAX_DEPTH:
                raise FrontmatterRefused(f"frontmatter is nested more than {FRONTMATTER_MAX_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


class _Conversion:
    """YAML values → JSON that PostgreSQL stores, within a budget of values and characters (aliases and shared
    nodes are expanded here, so the budget, not the YAML's size, bounds the result)."""

    def __init__(self, max_chars: int) -> None:
        self.values_left = FRONTMATTER_MAX_VALUES
        self.chars_left = max_chars

    def convert(self, value: Any, depth: int = 0) -> Any:
        self.values_left -= 1
        if self.values_left < 0:
            raise FrontmatterRefused(f"frontmatter expands to more than {FRONTMATTER_MAX_VALUES} values")
        if depth > FRONTMATTER_MAX_DEPTH:  # a recursive alias (`a: &a [*a]`) builds a list that holds itself
            raise FrontmatterRefused(f"frontmatter is nested more than {FRONTMATTER_MAX_DEPTH} levels deep")
        if isinstance(value, dict):
            return {self.text(str(k)): self.convert(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list | tuple | set):
            return [self.convert(v, depth + 1) for v in value]
        if isinstance(value, dt.date | dt.datetime | dt.time):
            return value.isoformat()
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)  # JSON, hence jsonb, has no infinity nor NaN
        if value is None or isinstance(value, bool | int | float):
            return value
        return self.text(str(value))

    def text(self, value: str) -> str:
        self.chars_left -= len(value)
        if self.chars_left < 0:
            raise FrontmatterRefused("frontmatter expands to far more text than it holds")
        return storable_text(value, where="frontmatter")


def storable_text(value: str, *, where: str) -> str:
    """`value` as PostgreSQL can store it: a YAML or JSON escaped surrogate pair (`"\\ud83c\\udf5e"`) becomes
    the character it encodes; a lone surrogate or a NUL character, which no text column holds, is a
    NoteFormatError."""
    if "\x00" in value:
        raise NoteFormatError(f"{where} holds a NUL character, which a note cannot store")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        try:
            return value.encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeDecodeError as exc:
            raise NoteFormatError(
                f"{where} holds a lone surrogate (an escape such as \\ud83c that is half of a character)"
            ) from exc
    return value


def heading_match(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line, closing #s and spaces removed; None for other lines."""
    match = HEADING.match(line)
    if match is None:
        return None
    text = match.group(2).rstrip().rstrip("#").rstrip() or match.group(2).strip()
    return len(match.group(1)), text


def read_frontmatter(text: str) -> tuple[dict[str, Any], str, str]:
    """(frontmatter, body, why the frontmatter was refused). Frontmatter that is broken YAML, or too large or too
    deeply nested once read, is refused and dropped rather than guessed at or expanded: the note keeps its text.
    Raises NoteFormatError for frontmatter that is never closed or holds what cannot be stored."""
    if not text.startswith("---"):
        return {}, text, ""
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text, ""
    for index in range(1, len(lines)):
        if lines[index].strip() in {"---", "..."}:
            raw = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :])
            try:
                return _frontmatter_data(raw), body, ""
            except FrontmatterRefused as exc:
                return {}, body, str(exc)
    raise NoteFormatError("frontmatter starts with '---' but is never closed")


def _frontmatter_data(raw: str) -> dict[str, Any]:
    try:
        data = _load_yaml(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise FrontmatterRefused(f"broken YAML frontmatter{where}: {getattr(exc, 'problem', exc)}") from exc
    except (ValueError, OverflowError) as exc:  # a value YAML matched but Python cannot build: `date: 2020-13-45`
        raise FrontmatterRefused(f"broken YAML frontmatter: {exc}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterRefused("frontmatter is not a mapping of keys to values")
    return _Conversion(max_chars=2 * len(raw) + FRONTMATTER_SPARE_CHARS).convert(data)


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter, body); frontmatter refused (broken, too large) is empty. Raises NoteFormatError."""
    frontmatter, body, _ = read_frontmatter(text)
    return frontmatter, body


def frontmatter_block(fields: dict[str, Any]) -> str:
    """`---` YAML `---` for a note the project writes, by a YAML emitter: text written by hand into YAML breaks
    on the first title a hand-made quoting rule did not foresee (an emoji escaped as a surrogate pair, a colon)."""
    return "---\n" + yaml.safe_dump(fields, allow_unicode=True, sort_keys=False, width=1_000_000) + "---\n"


def _load_yaml(raw: str) -> Any:
    if not raw.strip():
        return {}
    try:
        return yaml.load(raw, Loader=_BoundedLoader)  # noqa: S506 - a SafeLoader with limits
    except yaml.YAMLError:
        if "{{" not in raw:
            raise
    # A template's `created: {{date}}` is a placeholder the app fills in, which YAML reads as a nested mapping.
    return yaml.load(TEMPLATE_PLACEHOLDER.sub(r'"\1"', raw), Loader=_BoundedLoader)  # noqa: S506


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [part for part in re.split(r"[,\s]+", value) if part]
    if isinstance(value, list):
        return [str(item) for item in value if item is not None and str(item).strip()]
    return [str(value)]


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def _property_names(value: str) -> list[str]:
    """`[[a]], [[b c]]`, `#a, b` → names; a Logseq property value lists pages."""
    names = re.findall(r"\[\[([^\[\]\n]+)\]\]", value)
    rest = re.sub(r"\[\[[^\[\]\n]+\]\]", ",", value)
    names += [part.strip().lstrip("#").strip() for part in rest.split(",")]
    return [name for name in names if name]


def page_properties(prose: str) -> dict[str, Any]:
    """Logseq's `key:: value` lines at the top of a page, as frontmatter would hold them (tags and aliases as
    lists, every other value as written)."""
    properties: dict[str, Any] = {}
    for line in prose.lstrip("\n").split("\n"):
        match = PROPERTY.match(line)
        if match is None or line[:1] in {"-", "*", " ", "\t"}:
            break
        key, value = match.group(1).lower(), match.group(2)
        properties[key] = _property_names(value) if key in {"tags", "alias", "aliases"} else value
    return properties


def _tags(prose: str) -> list[str]:
    text = _blank(_blank(_blank(prose, HTML_TAG), LINK_DEFINITION), ADDRESS)
    found = [m.group(1).strip() for m in LOGSEQ_TAG.finditer(text)]
    text = _blank(_blank(text, LOGSEQ_TAG), WIKILINK)
    found += [tag.rstrip("/-") for tag in INLINE_TAG.findall(text) if re.search(r"[^\W\d_]", tag)]
    return [tag for tag in found if tag]


def _wikilink(match: re.Match[str], kind: str) -> Link | None:
    target, heading, alias = match.group(1).strip(), (match.group(2) or "").strip(), (match.group(3) or "").strip()
    if not target and not heading:
        return None
    if heading.startswith("^"):  # Obsidian's block reference: the link still resolves to the note
        return Link(target, "", alias, kind, block_id=heading[1:].strip())
    return Link(target, heading, alias, kind)


def note_path_target(folder: str, destination: str) -> tuple[str, str] | None:
    """(vault path without `.md`, fragment) a Markdown link destination names, relative to the linking note's
    folder (`/` first: from the vault's root); None for an address, a file that is no note, or a path that leaves
    the vault."""
    destination = destination.strip("<>").strip()
    if URL_SCHEME.match(destination):
        return None
    file, _, fragment = unquote(destination).partition("#")
    if not file.lower().endswith(".md"):
        return None
    joined = file.lstrip("/") if file.startswith("/") else posixpath.join(folder, file)
    target = posixpath.normpath(joined)
    if target.startswith("../") or target in {"..", "."}:
        return None
    return target[: -len(".md")], fragment.strip()


def property_links(frontmatter: dict[str, Any]) -> list[Link]:
    """Wikilinks in frontmatter values (strings, lists, nested mappings), in the order they are written."""

    def walk(value: Any) -> list[Link]:
        if isinstance(value, str):
            found = (_wikilink(m, LinkKind.PROPERTY) for m in WIKILINK.finditer(value))
            return [link for link in found if link is not None]
        if isinstance(value, dict):
            return [link for item in value.values() for link in walk(item)]
        if isinstance(value, list):
            return [link for item in value for link in walk(item)]
        return []

    return [
        link for key, value in frontmatter.items() if key.lower() not in NOT_LINK_PROPERTIES for link in walk(value)
    ]


def _links(path: str, prose: str) -> list[Link]:
    links: list[tuple[int, Link]] = []
    written: set[str] = set()
    for m in WIKILINK.finditer(prose):
        embed = m.group().startswith("!") or EMBED_MACRO.search(prose, max(0, m.start() - 20), m.start())
        link = _wikilink(m, LinkKind.EMBED if embed else LinkKind.LINK)
        if link is None:
            continue
        links.append((m.start(), link))
        written |= {link.target.lower(), m.group()[2:-2].strip().lower()} if not embed else {link.target.lower()}
    links += [(m.start(), Link(m.group(1).lower(), "", "", LinkKind.BLOCK)) for m in BLOCK_REF.finditer(prose)]
    folder = posixpath.dirname(path)
    for m in INLINE_LINK.finditer(_blank(prose, WIKILINK)):
        found = note_path_target(folder, m.group("destination"))
        if found is not None:
            kind = LinkKind.EMBED if m.group("embed") else LinkKind.LINK
            links.append((m.start(), Link(found[0], found[1], "", kind)))
    for m in LINK_DEFINITION.finditer(prose):
        label = m.group(1).strip()
        found = note_path_target(folder, m.group(2))
        if label.lower() in written or found is None:
            continue  # Foam's copy of a wikilink's target, or not a note
        links.append((m.start(), Link(found[0], found[1], "", LinkKind.LINK)))
    return [link for _, link in sorted(links, key=lambda pair: pair[0])]


def _block_ids(prose: str) -> list[str]:
    ids = [
        m.group(2).lower()
        for m in PROPERTY.finditer(prose)
        if m.group(1).lower() == "id" and BLOCK_REF.match(f"(({m.group(2)}))")
    ]
    ids += OBSIDIAN_BLOCK_ID.findall(prose)
    return list(dict.fromkeys(ids))


def link_labels(text: str) -> str:
    """Markdown links and images as their labels: `[#7512](https://…/7512)` reads `#7512`."""
    return INLINE_LINK.sub(lambda m: m.group("label"), text)


def opening_heading(prose: str) -> str:
    """The text of the level-1 heading the note opens with (its links read as their labels), or ''."""
    opening = next((line for line in prose.split("\n") if line.strip()), "")
    heading = heading_match(opening)
    if not heading or heading[0] != 1:
        return ""
    return link_labels(heading[1]).strip()


# How notes are read: raised whenever a change to the reading gives a stored note another title, other link
# names, properties, links or passages, so that notes stored under the older reading are read again
# (`apps/notes/services/rereading.py`) without a re-import, which leaves files it finds unchanged alone.
READING_VERSION = 7


def parse_note(path: str, text: str) -> ParsedNote:
    """Parse a note's full text (frontmatter included). Raises NoteFormatError."""
    frontmatter, body, refused = read_frontmatter(text)
    prose = prose_only(body)
    written_properties = property_links(frontmatter)  # Logseq's `key:: [[page]]` lines are read from the prose
    logseq_properties = page_properties(prose)
    for key, value in logseq_properties.items():
        frontmatter.setdefault(key, value)  # YAML frontmatter, where both exist, is what the app shows
    # A `title` property (Logseq's `title::`) names the note; else a `# heading` that opens a note that is not a
    # Logseq page, as Foam names its notes (an Obsidian note that opens so repeats its file's name); else the file, as
    # Obsidian and Logseq name it (a Logseq page by the page name its file name stands for). Any other heading names
    # a section, never the note.
    title = str(frontmatter.get("title") or "").strip()
    if not title and not logseq_properties:
        title = opening_heading(prose)
    title = (title or logseq_page_name(PurePosixPath(path).stem))[:500]
    tags = [t.lstrip("#") for t in _as_list(frontmatter.get("tags") or frontmatter.get("tag"))]
    for tag in _tags(prose):
        if tag not in tags:
            tags.append(tag)
    aliases = (
        _as_list(frontmatter.get("aliases") or frontmatter.get("alias"))
        if not isinstance(frontmatter.get("aliases") or frontmatter.get("alias"), str)
        else [str(frontmatter.get("aliases") or frontmatter.get("alias"))]
    )
    note = ParsedNote(
        path=path,
        title=title,
        body=text,
        frontmatter=frontmatter,
        tags=[t[:200] for t in tags],
        aliases=[a[:500] for a in aliases],
        links=written_properties + _links(path, prose),
        content_hash=sha256(text),
        block_ids=[b[:200] for b in _block_ids(prose)],
        frontmatter_refused=refused,
    )
    note.link_keys = link_keys(path, title, note.aliases)
    return note


def link_keys(path: str, title: str, aliases: list[str]) -> list[str]:
    pure = PurePosixPath(path)
    without_ext = str(pure.with_suffix("")) if pure.suffix.lower() == ".md" else str(pure)
    keys = {path, without_ext, pure.name, pure.stem, title, *aliases, logseq_page_name(pure.stem)}
    return sorted({k.strip().lower()[:500] for k in keys if k and k.strip()})


def logseq_page_name(stem: str) -> str:
    """The page name Logseq saved under this file name: `a___b` (`a%2Fb` in older graphs) is the namespaced page
    `a/b`, and `%3F` a `?` that no file name may hold. A note titled by its file is titled by this name, and links
    find it by it. A `.` stays a `.`: Logseq's docs have `custom.css.md` and `term.page title.md`, no namespaces."""
    return unquote(stem.replace("___", "/")).replace("\x00", "")  # `%00` names no character a key may hold


def _split_long(text: str, limit: int) -> list[str]:
    """`text` in pieces of at most `limit` characters, cut between sentences: a piece keeps its lines as written
    (an outline's property lines, a list's items), and only a sentence longer than a piece is cut anywhere."""
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    buffer = ""
    for line in text.split("\n"):
        for number, sentence in enumerate(re.split(r"(?<=[.!?])\s+", line.rstrip())):
            while len(sentence) > limit:  # a single enormous "sentence": cut hard
                if buffer.strip():
                    pieces.append(buffer)
                buffer = ""
                pieces.append(sentence[:limit])
                sentence = sentence[limit:]
            joiner = " " if number else "\n"
            if buffer and len(buffer) + len(joiner) + len(sentence) > limit:
                pieces.append(buffer)
                buffer = sentence
            else:
                buffer = f"{buffer}{joiner}{sentence}" if buffer else sentence
    if buffer.strip():
        pieces.append(buffer)
    return [piece.strip("\n") for piece in pieces if piece.strip()]


def embed_input(title: str, heading: str, text: str) -> str:
    """What the embedding model reads for a chunk: where it sits (title, heading), then its text. A long heading
    path keeps its end: the nearest heading, and a split block's "(code, part 2 of 3)", say most."""
    if len(heading) > 60:
        heading = "…" + heading[-59:]
    header = title if not heading else f"{title[:150]} — {heading}"
    return f"{header}\n{text}"


@dataclass(frozen=True)
class _Heading:
    level: int
    title: str
    line: str  # as written: kept in the text of a chunk that goes on past it


# What a chunk's heading says of a block too long for one chunk: "Install (code, part 2 of 3)".
PIECE_LABEL = re.compile(r"\s*\([^()]*, part \d+ of \d+\)$")


def piece_label(name: str, number: int, total: int) -> str:
    return f"({name}, part {number} of {total})"


@dataclass(frozen=True)
class _Passage:
    text: str
    joiner: str  # what stands between it and the passage before it in the same chunk
    piece: str = ""  # "(code, part 2 of 3)" for a piece of a block too long for one chunk: a chunk of its own


def _joiner(lines: list[str], start: int) -> str:
    return "\n\n" if start == 0 or not lines[start - 1].strip() else "\n"


def _passages(lines: list[str], block: Block, budget: int) -> Iterator[_Heading | _Passage]:
    """A block as headings and passages of at most `budget` characters where it can be: whole if it fits, else
    split along its structure (a list into items, an item into its paragraph and sub-items), and only then cut
    (`split_block`'s pieces; prose into sentences)."""
    if block.kind == "heading":
        yield _Heading(block.level, block.title, lines[block.start].strip())
        return
    text = "\n".join(block_lines(lines, block))
    if len(textwrap.dedent(text)) <= budget or not text.strip():  # chunks are dedented: nesting costs nothing
        if text.strip():
            yield _Passage(text, _joiner(lines, block.start))
    elif block.kind in {"list", "item"} and block.children:
        # A heading inside an item (Logseq's `- ## Usage`) stays text: naming chunks by these sections made
        # search on logseq-docs worse (generic headings such as "Usage" outweigh the passage in the ranking).
        for child in block.children:
            if child.kind == "heading":
                yield _Passage("\n".join(block_lines(lines, child)), _joiner(lines, child.start))
            else:
                yield from _passages(lines, child, budget)
    elif block.kind in {"fence", "code", "table", "quote"}:
        pieces = split_block(lines, block, budget)
        name = piece_name(lines, block)
        for number, piece in enumerate(pieces, 1):
            yield _Passage(piece, "\n\n", piece_label(name, number, len(pieces)) if len(pieces) > 1 else "")
    else:
        for number, piece in enumerate(_split_long(text, budget)):
            yield _Passage(piece, _joiner(lines, block.start) if number == 0 else "\n\n")


# A label in bold that opens the paragraph or one of its sentences: "**Author:** …", "**Date**: …"; not "See **Note:**"
BYLINE_LABEL = re.compile(r"(?:^|[.!?]\s+)\*\*[A-Z][\w ]{0,30}(?::\*\*|\*\*:)\s")
BYLINE_CHARS = 400  # a byline says who and when in a line or two; a longer paragraph is the note's prose


def byline_of(opening: str) -> str:
    """The note's byline: the first paragraph of its opening passage, after its title heading, when it labels who
    and when ("**Date:** 20 February 2024. **Decided by:** Maren Vogt."); "" when it has none, or when the passage
    opens a section first ("## Tips" and "**Tip:** …" under it). It belongs to every passage of the note, though only
    the first holds it."""
    text = opening.strip()
    title = HEADING.match(text.split("\n", 1)[0])
    if title and len(title.group(1)) == 1:
        text = text.split("\n", 1)[1].strip() if "\n" in text else ""
    paragraph = re.split(r"\n[ \t]*\n", text, maxsplit=1)[0].strip()
    if HEADING.match(paragraph.split("\n", 1)[0]):
        return ""
    return paragraph if BYLINE_LABEL.search(paragraph) and len(paragraph) <= BYLINE_CHARS else ""


# The heading under which a note says what it settled on ("## Decision", "## Decision for v1", "## Decision Outcome",
# "## Conclusion"), where the rest of such a note weighs the options; not "Decision Drivers", "Decisions So Far" or
# "Decision Log". As regular expressions PostgreSQL reads too (case aside): the last heading of a chunk's
# heading path ("ADR-009 Job Queue > Decision"), and such a heading's line in a chunk's text.
_DECIDED = r"((the|our|final) +)?(decisions?( +outcome)?|outcome|conclusions?|verdict)"


def _decided(rest: str) -> str:
    """The heading's words, and what may follow them ("— final", " for v1"), in characters `rest` allows."""
    return rf"{_DECIDED}( *[:(–—-]{rest}*| +for +{rest}*)?"


_NOT_A_NEW_LINE = r"[^\n]"
DECISION_HEADING = rf"\s*{_decided('.')}\s*"  # the heading's own words, whole
DECISION_HEADING_PATH = rf"(^|\s>)\s*{_decided('[^>]')}\s*$"
_DECISION_LINE = rf"\s*(-\s+)?#{{1,6}} +{_decided(_NOT_A_NEW_LINE)}\s*"
DECISION_HEADING_LINE = rf"(^|\n){_DECISION_LINE}(\n|$)"
_A_HEADING_LINE = re.compile(r"^\s*(?:-\s+)?#{1,6}\s")  # in an outline's item too ("- ## Notes")
DECISION_CHARS = 400  # what a note decided, in a paragraph or two sentences; a longer one is cut at a sentence


def decision_of(text: str, heading: str = "") -> str:
    """What a note decided, read from the passage that holds its decision section: the first paragraph under the
    section's heading ("## Decision" over "Celery with Redis. Redis is needed anyway, …"), or the passage's first
    when the passage opens the section (its `heading` path ends in it); "" when the section says nothing before the
    next heading, or its heading is only an example in a code block. A long paragraph is cut after its last sentence
    within `DECISION_CHARS`. It belongs to every passage of the note, though only one holds it."""
    lines = text.splitlines()
    code = code_block_lines(text)
    if re.search(DECISION_HEADING_PATH, heading, re.I):
        start = 0
    else:
        opening = (i for i, line in enumerate(lines) if i not in code and re.fullmatch(_DECISION_LINE, line, re.I))
        start = next(opening, -1) + 1
        if not start:
            return ""
    paragraph: list[str] = []
    for index in range(start, len(lines)):
        line = lines[index]
        if index not in code and _A_HEADING_LINE.match(line):
            break
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    said = "\n".join(paragraph)  # a list of decisions stays one
    if len(said) <= DECISION_CHARS:
        return said
    cut = said[:DECISION_CHARS]
    return cut.rsplit(". ", 1)[0].rstrip(".") + "." if ". " in cut else cut.rsplit(" ", 1)[0] + " …"


def properties_text(frontmatter: dict[str, Any]) -> str:
    """A note's properties as it reads them, one `key: value, value` line each (links by their shown name). An empty
    property keeps its key: a template's fields are what it says."""

    def values(value: Any) -> Iterator[str]:
        if isinstance(value, dict):
            for inner in value.values():
                yield from values(inner)
        elif isinstance(value, list):
            for inner in value:
                yield from values(inner)
        elif value is not None and str(value).strip():
            yield WIKILINK.sub(lambda m: m.group(3) or m.group(1), str(value)).strip()

    return "\n".join(
        f"{key}: {', '.join(v for v in values(value) if v)}".rstrip() for key, value in frontmatter.items()
    )


LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+\S")
_ENDS_A_STATEMENT = re.compile(r"[.!?](?:\s|$)")  # "Follows from ADR-009. Three queues:" says a statement first
LIST_HEADING_WORDS = 8  # a line longer than a heading is a sentence, even with its full stop forgotten


def heads_a_list(line: str, following: str) -> bool:
    """Whether a paragraph's one line heads the list after it as a heading would ("Making and blind-baking the
    crust", "Available options:" over "1. Preheat oven …"): short, no statement in it, not itself an item, a table's
    row, a heading or a property ("DEADLINE: <2021-05-29 Sat>", "name:: Deadline"). `following`: the next line that
    is not blank."""
    said = line.strip().rstrip(":").strip()
    if not said or line[:1].isspace() or LIST_ITEM.match(line) or said.startswith(("|", "#", ">", "!", "<")):
        return False
    if ":" in said:
        return False
    if _ENDS_A_STATEMENT.search(said) or len(said.split()) > LIST_HEADING_WORDS:
        return False
    return LIST_ITEM.match(following) is not None


def chunk_note(
    title: str, body_with_frontmatter: str, *, max_chars: int, shown_blocks: Mapping[str, str] | None = None
) -> list[ChunkDraft]:
    """Cut a note into chunks of at most `max_chars` (embedding input included) at heading and block bounds.

    A fenced block, table, callout or list item that fits in a chunk is never cut; one that does not is split
    into pieces that are each a chunk of their own, say so in their heading and stay valid Markdown. Only a piece
    of a table can be longer than `max_chars`: it repeats the table's header, and a row is never cut. Block
    references read as the text `shown_blocks` gives their blocks (by lowercased id)."""
    frontmatter, body = split_frontmatter(body_with_frontmatter)
    # Comments and link definitions are hidden on the page, and a block reference shows its block's text: a passage
    # cited as a source must be one the reader can find there.
    shown = with_block_references_shown(body, shown_blocks or {})
    lines = without_link_definitions(without_comments(shown)).split("\n")
    budget = max(200, max_chars - min(len(title), 150) - 64)  # the header: title, " — ", heading, newline
    chunks: list[tuple[str, str]] = []
    headings: list[_Heading] = []
    heading, buffer = "", ""

    def flush() -> None:
        nonlocal buffer
        if buffer.strip():
            chunks.append((heading, textwrap.dedent(buffer).strip("\n")))
        buffer = ""

    for block in block_tree(lines):
        for part in _passages(lines, block, budget):
            path = " > ".join(h.title for h in headings)
            if isinstance(part, _Heading):  # cut here unless the current chunk is still small
                if len(buffer) >= budget // 3 or len(buffer) + 2 + len(part.line) > budget:
                    flush()
                headings[:] = [h for h in headings if h.level < part.level] + [part]
                if not buffer:
                    heading = " > ".join(h.title for h in headings)
                elif part.line:  # the chunk's heading names where it starts: later headings stay in its text
                    buffer = f"{buffer}\n\n{part.line}"
            elif part.piece:
                flush()
                heading, buffer = f"{path} {part.piece}".strip(), part.text
                flush()
                heading = path
            else:
                if buffer and len(textwrap.dedent(f"{buffer}{part.joiner}{part.text}")) > budget:
                    *before, last = buffer.rsplit("\n\n", 1)
                    first_line = part.text.lstrip("\n").split("\n", 1)[0]
                    last = last.strip("\n")
                    carried = bool(before) and "\n" not in last and heads_a_list(last, first_line)
                    # carried only where the list still fits with it: a chunk is never longer than the budget
                    carried = carried and len(textwrap.dedent(f"{last}{part.joiner}{part.text}")) <= budget
                    buffer = before[0] if carried else buffer
                    flush()
                    if carried:  # the line heading the list starts the chunk the list starts
                        heading, buffer = path, last
                if not buffer:
                    heading = path
                buffer = f"{buffer}{part.joiner}{part.text}" if buffer else part.text
    flush()
    properties = properties_text(frontmatter)
    searched_properties = properties if chunks else ""
    if not chunks:  # a note made only of properties (a book, a film, a person) says what they say
        chunks += [("", piece) for piece in _split_long(properties, budget)] if properties else [("", title)]
    drafts = []
    for ordinal, (chunk_heading, text) in enumerate(chunks):
        embed_text = embed_input(title, chunk_heading, text)
        drafts.append(
            ChunkDraft(
                ordinal=ordinal,
                heading=chunk_heading[:500],
                text=text,
                embed_text=embed_text,
                content_hash=sha256(embed_text),
                properties=searched_properties if ordinal == 0 else "",
            )
        )
    return drafts
