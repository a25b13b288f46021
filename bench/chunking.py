"""Measure how `chunk_note` cuts the three real vaults: chunk counts and sizes, and how many fenced code blocks,
tables, callouts and list items that would fit in one chunk end up cut across chunks (or flattened so they are no longer
Markdown), and how many chunks open a fence they never close.

Usage: .venv/bin/python bench/chunking.py [--max-chars 1000] [--json bench/results/chunking.json]
No database: it reads the corpora (tests/corpora.py finds them) and calls the parser directly."""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from markdown_it import MarkdownIt  # noqa: E402

from apps.notes.markdown import chunk_note, parse_note, split_frontmatter  # noqa: E402
from apps.notes.syntax import without_comments  # noqa: E402
from tests.corpora import CORPORA, VAULTS  # noqa: E402

# A fence line, after any indentation, blockquote marks and list bullets: (fence, what follows).
FENCE_LINE = re.compile(r"^[ \t>]*(?:(?:[-*+]|\d+[.)])[ \t]+)*(`{3,}|~{3,})(.*)$")
KINDS = ("fence", "table", "callout", "list item")


def _lines(text: str) -> list[str]:
    """Lines without indentation or blockquote marks, blanks dropped: a block reads the same nested or not."""
    out = []
    for line in text.split("\n"):
        stripped = line.strip()
        while stripped.startswith(">"):
            stripped = stripped[1:].strip()
        if stripped:
            out.append(stripped)
    return out


def _blocks(body: str) -> list[tuple[str, str]]:
    """(kind, text) of every fenced block, table, callout and list item of a body, nested ones included."""
    lines = body.split("\n")
    found = []
    for token in MarkdownIt("commonmark").enable("table").parse(body):
        if token.map is None:
            continue
        text = textwrap.dedent("\n".join(lines[token.map[0] : token.map[1]])).strip()  # chunks are dedented
        if token.type == "fence":
            found.append(("fence", text))
        elif token.type == "table_open":
            found.append(("table", text))
        elif token.type == "blockquote_open" and "[!" in lines[token.map[0]]:
            found.append(("callout", text))
        elif token.type == "list_item_open":
            found.append(("list item", text))
    return found


def _fence_balanced(text: str) -> bool:
    opened: str | None = None
    for line in text.split("\n"):
        found = FENCE_LINE.match(line)
        if found is None or found.group(1) in found.group(2):  # ```code``` on one line is a code span
            continue
        if opened is None:
            opened = found.group(1)
        elif found.group(1).startswith(opened) and not found.group(2).strip():
            opened = None
    return opened is None


def measure(vault: str, max_chars: int) -> dict[str, Any]:
    sizes: list[int] = []
    whole = dict.fromkeys(KINDS, 0)
    cut = dict.fromkeys(KINDS, 0)
    too_long = dict.fromkeys(KINDS, 0)
    unbalanced = 0
    notes = sorted((CORPORA / vault).rglob("*.md"))
    for path in notes:
        text = path.read_text(encoding="utf-8-sig")
        note = parse_note(str(path.relative_to(CORPORA / vault)), text)
        chunks = chunk_note(note.title, text, max_chars=max_chars)
        sizes += [len(c.embed_text) for c in chunks]
        unbalanced += sum(not _fence_balanced(c.text) for c in chunks)
        budget = max(200, max_chars - min(len(note.title), 150) - 64)
        joined = ["\n".join(_lines(c.text)) for c in chunks]
        for kind, block in _blocks(without_comments(split_frontmatter(text)[1])):
            if len(block) > budget:
                too_long[kind] += 1
                continue
            wanted = "\n".join(_lines(block))
            if any(wanted in chunk for chunk in joined):
                whole[kind] += 1
            else:
                cut[kind] += 1
    ordered = sorted(sizes)
    return {
        "notes": len(notes),
        "chunks": len(sizes),
        "chars_p10": ordered[len(ordered) // 10],
        "chars_median": int(statistics.median(ordered)),
        "chars_p90": ordered[len(ordered) * 9 // 10],
        "chars_max": ordered[-1],
        "over_max_chars": sum(size > max_chars for size in sizes),
        "under_200_chars": sum(size < 200 for size in sizes),
        "fitting_blocks_kept_whole": whole,
        "fitting_blocks_cut": cut,
        "blocks_longer_than_a_chunk": too_long,
        "chunks_with_an_unclosed_fence": unbalanced,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-chars", type=int, default=1000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report = {vault: measure(vault, args.max_chars) for vault in VAULTS}
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
