"""Parse an Obsidian note: frontmatter, title, tags, aliases, wikilinks, and heading-aware chunks."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import yaml

WIKILINK = re.compile(r"!?\[\[([^\[\]\|#\n]*)(?:#([^\[\]\|\n]*))?(?:\|([^\[\]\n]*))?\]\]")
INLINE_TAG = re.compile(r"(?<![\w/#&])#([A-Za-z][\w/-]*)")
# Linear on purpose: `(.+?)\s*#*\s*$` backtracks cubically on a heading padded with spaces (a CPU DoS).
HEADING = re.compile(r"^(#{1,6})[ \t]+(\S.*)$")
FENCE = re.compile(r"^\s*(```|~~~)")


class NoteFormatError(ValueError):
    """The file cannot become a note (broken frontmatter, binary content…); the message says why."""


@dataclass(frozen=True)
class Link:
    target: str
    heading: str
    alias: str


@dataclass(frozen=True)
class ChunkDraft:
    ordinal: int
    heading: str
    text: str
    embed_text: str
    content_hash: str


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


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def decode_note_bytes(raw: bytes, *, max_bytes: int) -> str:
    """Bytes of a file → text, or NoteFormatError with a reason a person understands."""
    if len(raw) > max_bytes:
        raise NoteFormatError(f"file is larger than the {max_bytes // 1024} KiB limit")
    if b"\x00" in raw[:8192]:
        raise NoteFormatError("binary file (contains NUL bytes), not a Markdown note")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NoteFormatError(f"not valid UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})") from exc
    return text


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_json_safe(v) for v in value]
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def heading_match(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line, closing #s and spaces removed; None for other lines."""
    match = HEADING.match(line)
    if match is None:
        return None
    text = match.group(2).rstrip().rstrip("#").rstrip() or match.group(2).strip()
    return len(match.group(1)), text


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].strip() in {"---", "..."}:
            raw = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :])
            try:
                data = yaml.safe_load(raw) if raw.strip() else {}
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f" at line {mark.line + 2}" if mark is not None else ""
                raise NoteFormatError(f"broken YAML frontmatter{where}: {getattr(exc, 'problem', exc)}") from exc
            if data is None:
                data = {}
            if not isinstance(data, dict):
                raise NoteFormatError("frontmatter must be a mapping of keys to values")
            return _json_safe(data), body
    raise NoteFormatError("frontmatter starts with '---' but is never closed")


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [part for part in re.split(r"[,\s]+", value) if part]
    if isinstance(value, list):
        return [str(item) for item in value if item is not None and str(item).strip()]
    return [str(value)]


def _without_code(body: str) -> str:
    kept, in_fence = [], False
    for line in body.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            kept.append(re.sub(r"`[^`\n]*`", " ", line))
    return "\n".join(kept)


def parse_note(path: str, text: str) -> ParsedNote:
    """Parse a note's full text (frontmatter included). Raises NoteFormatError."""
    frontmatter, body = split_frontmatter(text)
    prose = _without_code(body)
    title = str(frontmatter.get("title") or "").strip()
    if not title:
        for line in prose.split("\n"):
            heading = heading_match(line)
            if heading and heading[0] == 1:
                title = heading[1]
                break
    stem = PurePosixPath(path).stem
    title = (title or stem)[:500]
    tags = [t.lstrip("#") for t in _as_list(frontmatter.get("tags") or frontmatter.get("tag"))]
    for tag in INLINE_TAG.findall(prose):
        if tag not in tags:
            tags.append(tag)
    aliases = (
        _as_list(frontmatter.get("aliases") or frontmatter.get("alias"))
        if not isinstance(frontmatter.get("aliases"), str)
        else [str(frontmatter["aliases"])]
    )
    links = [
        Link(target=m.group(1).strip(), heading=(m.group(2) or "").strip(), alias=(m.group(3) or "").strip())
        for m in WIKILINK.finditer(prose)
    ]
    note = ParsedNote(
        path=path,
        title=title,
        body=text,
        frontmatter=frontmatter,
        tags=[t[:200] for t in tags],
        aliases=[a[:500] for a in aliases],
        links=links,
        content_hash=sha256(text),
    )
    note.link_keys = link_keys(path, title, note.aliases)
    return note


def link_keys(path: str, title: str, aliases: list[str]) -> list[str]:
    pure = PurePosixPath(path)
    without_ext = str(pure.with_suffix("")) if pure.suffix.lower() == ".md" else str(pure)
    keys = {path, without_ext, pure.name, pure.stem, title, *aliases}
    return sorted({k.strip().lower()[:500] for k in keys if k and k.strip()})


def _blocks(body: str) -> list[tuple[str, str]]:
    """(heading path, paragraph) blocks; a heading line starts a new block and updates the path."""
    headings: list[tuple[int, str]] = []
    blocks: list[tuple[str, str]] = []
    current: list[str] = []
    in_fence = False

    def flush() -> None:
        text = "\n".join(current).strip()
        if text:
            blocks.append((" > ".join(h for _, h in headings), text))
        current.clear()

    for line in body.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else heading_match(line)
        if heading:
            flush()
            level = heading[0]
            headings[:] = [(lvl, h) for lvl, h in headings if lvl < level] + [heading]
            blocks.append((" > ".join(h for _, h in headings), ""))  # marks a heading boundary
        elif not line.strip() and not in_fence:
            flush()
        else:
            current.append(line)
    flush()
    return blocks


def _split_long(text: str, limit: int) -> list[str]:
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    sentences = re.split(r"(?<=[.!?])\s+|\n", text)
    buffer = ""
    for sentence in sentences:
        while len(sentence) > limit:  # a single enormous "sentence": cut hard
            if buffer:
                pieces.append(buffer)
                buffer = ""
            pieces.append(sentence[:limit])
            sentence = sentence[limit:]
        if buffer and len(buffer) + 1 + len(sentence) > limit:
            pieces.append(buffer)
            buffer = sentence
        else:
            buffer = f"{buffer} {sentence}".strip()
    if buffer:
        pieces.append(buffer)
    return pieces


def embed_input(title: str, heading: str, text: str) -> str:
    """What the embedding model reads for a chunk: where it sits (title, heading), then its text."""
    header = title if not heading else f"{title[:150]} — {heading[:60]}"
    return f"{header}\n{text}"


def chunk_note(title: str, body_with_frontmatter: str, *, max_chars: int) -> list[ChunkDraft]:
    """Cut a note into chunks of at most `max_chars` (embedding input included) at heading/paragraph bounds."""
    _, body = split_frontmatter(body_with_frontmatter)
    budget = max(200, max_chars - min(len(title), 150) - 60)
    chunks: list[tuple[str, str]] = []
    heading, buffer = "", ""
    for block_heading, text in _blocks(body):
        if not text:  # heading boundary: cut unless the current chunk is still small
            if len(buffer) >= budget // 3:
                chunks.append((heading, buffer))
                buffer = ""
            if not buffer:
                heading = block_heading
            continue
        for piece in _split_long(text, budget):
            if buffer and len(buffer) + 2 + len(piece) > budget:
                chunks.append((heading, buffer))
                buffer, heading = "", block_heading
            if not buffer:
                heading = block_heading
            buffer = f"{buffer}\n\n{piece}" if buffer else piece
    if buffer:
        chunks.append((heading, buffer))
    if not chunks:
        chunks.append(("", title))
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
            )
        )
    return drafts
