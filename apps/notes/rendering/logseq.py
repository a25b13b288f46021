"""Logseq's own syntax on a note page: page properties, block properties, org-style blocks, `{{embed …}}` and
`((block references))`, shown as Logseq shows them.

Only a page that reads as Logseq's gets this: one that opens with `key:: value` page properties, or an outline
(every line at the margin a bullet, or a heading block: a heading, its own lines at the margin under it and its
children indented under them, as Logseq writes a block that opens with a heading). An Obsidian note writing
Dataview's `key:: value` fields in its prose, or a Foam note, renders as it always did. Everything here works on
the source before Markdown parsing, leaving code alone, so the rest of the page (wikilinks, callouts, code)
handles the result."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from apps.notes.markdown import PROPERTY, page_properties
from apps.notes.syntax import code_block_lines, logseq_hides
from apps.notes.text import outside_code

_PAGE_PROPERTY = re.compile(r"^[A-Za-z][\w-]*::[ \t]*.*$")
# A block's `key:: value` line, maybe opening the block (`- query-table:: true`): the ones Logseq hides are dropped
# (`logseq.order-list-type:: number` numbers the block), and a block's `id::` names it, as `^id` does.
_PROPERTY_LINE = re.compile(r"^(?P<bullet>[ \t]*(?:[-*][ \t]+)?)(?P<key>[A-Za-z][\w.-]*)::[ \t]*(?P<value>.*?)[ \t]*$")
_BULLET = re.compile(r"^[ \t]*[-*](?:[ \t]|$)")
_NUMBERED = re.compile(r"^[ \t]*logseq\.order-list-type::[ \t]*number[ \t]*$", re.I)
_HEADING = re.compile(r"^[ \t]*(?:[-*][ \t]+)?#{1,6}[ \t]")
_FENCE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?:```|~~~)")
# A block's own `key:: value` lines, under its text or as the block itself (`- type:: [[Command]]`).
_BLOCK_PROPERTY = re.compile(r"^([ \t]*(?:[-*][ \t]+)?)([A-Za-z][\w-]*)::[ \t]+(?=\S)")
PROPERTY_OPEN, PROPERTY_CLOSE = "\ue002", "\ue003"
_PROPERTY_MARK = re.compile(f"^{PROPERTY_OPEN}([^{PROPERTY_CLOSE}]+){PROPERTY_CLOSE} ?")
_MARGIN_HEADING = re.compile(r"^#{1,6}[ \t]+\S")
_NEW_MARGIN_BLOCK = re.compile(r"^(?:[-*](?:[ \t]|$)|#{1,6}[ \t]|```|~~~)")
_NEW_BLOCK = re.compile(r"^[ \t]*(?:[-*][ \t]|[-*]?$|```|~~~|#\+)")
_ORG_BLOCK = re.compile(r"^([ \t]*)([-*][ \t]+)?#\+BEGIN_([A-Za-z]+)(?:[ \t]+(.*?))?[ \t]*$")
# Org blocks shown as callouts of Obsidian's types (the callouts plugin draws them); QUOTE is a plain quote.
_CALLOUT_OF = {
    "note": "note",
    "tip": "tip",
    "important": "important",
    "warning": "warning",
    "caution": "caution",
    "pinned": "note",
    "center": "",
    "quote": "",
}
_VERBATIM = {"src", "example", "query", "export"}
# A block's `heading:: true` (or a level, `heading:: 3`) under its first line.
_HEADING_PROPERTY = re.compile(r"^[ \t]*heading::[ \t]*(true|[1-6])[ \t]*$", re.I)
_BULLET_TEXT = re.compile(r"^([ \t]*[-*][ \t]+)(\S.*)$")
# An image as Logseq writes it: its path may hold spaces ("../assets/pages_one year in logseq_0.png"), which
# CommonMark takes only inside <…>, and its size follows it ("{:height 557, :width 518}").
_IMAGE = re.compile(r"!\[(?P<alt>[^\[\]\n]*)\]\((?P<path>[^()<>\n]+?)\)(?P<size>\{:[^{}\n]*\})?")
_WIDTH = re.compile(r":width\s+(\d{1,5})")


def is_logseq_page(body: str) -> bool:
    """Whether `body` (frontmatter removed) reads as a Logseq page: page properties first, or an outline, its
    heading blocks written at the margin too."""
    lines = body.split("\n")
    written = [index for index, line in enumerate(lines) if line.strip()]
    if written and _PAGE_PROPERTY.match(lines[written[0]]):
        return True
    margin = [index for index in written if not _indented(lines[index])]
    bullets = {index for index in margin if lines[index].startswith("- ") or lines[index].rstrip() == "-"}
    heading_blocks = {line for index in margin for line in _heading_block(lines, index)}
    return bool(bullets) and all(index in bullets or index in heading_blocks for index in margin)


def _heading_block(lines: list[str], index: int) -> range:
    """The lines at the margin of the Logseq block a heading at the margin opens, the heading's first, when its
    children follow them indented (where Markdown would write what follows a heading at the margin): Logseq writes
    a heading block so, its own lines (its properties and text) at the margin under it. Empty when `lines[index]`
    opens no such block."""
    if not _MARGIN_HEADING.match(lines[index]):
        return range(0)
    end = index + 1
    while (
        end < len(lines)
        and lines[end].strip()
        and not _indented(lines[end])
        and not _NEW_MARGIN_BLOCK.match(lines[end])
    ):
        end += 1
    if end == index + 1:  # only children under it, maybe after a blank line
        following = next((line for line in lines[end:] if line.strip()), "")
    else:
        following = lines[end] if end < len(lines) else ""
    return range(index, end) if _indented(following) else range(0)


def _indented(line: str) -> bool:
    return line[:1] in {" ", "\t"}


def split_page_properties(body: str) -> tuple[dict[str, Any], str]:
    """The page properties a Logseq page opens with (read as the note parser reads them) and the rest of it."""
    lines = body.split("\n")
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    end = start
    while end < len(lines) and _PAGE_PROPERTY.match(lines[end]) and PROPERTY.match(lines[end]):
        end += 1
    if end == start:
        return {}, body
    return page_properties("\n".join(lines[start:end])), "\n".join(lines[end:])


def logseq_markdown(body: str) -> str:
    """`body` of a Logseq page as Markdown the page parser shows: org blocks become fences, callouts and quotes,
    the blocks Logseq numbers an ordered list's items, and the block properties Logseq hides (`id::`,
    `collapsed::`) are dropped, a block's id becoming the `^id` that ends its text (so a reference's link has an
    anchor to go to). Code is left as written."""
    lines = body.split("\n")
    code = code_block_lines(body)
    numbered = _Numbered(lines, code)
    own_lines = range(0)  # of the heading block at the margin being written
    shown: list[str] = []
    block_id = ""  # waits for the end of the block's text
    waiting: _PropertiesFirst | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        if block_id and (index in code or _NEW_BLOCK.match(line)):
            shown[-1] += f" ^{block_id}"
            block_id = ""
        if waiting is not None and (index in code or not _hidden_own_property(line)):
            if line.strip() and _own_line(line, _indent(waiting.bullet)):  # the block's first shown line takes it
                line = waiting.bullet + line.lstrip()
                numbered.move_bullet(waiting.index, index)
                in_text = index not in code and _ends_in_text(line) and not _ORG_BLOCK.match(line)
                block_id = waiting.block_id if in_text else ""
            else:  # nothing of its own to show
                shown.append(numbered.written(waiting.index, waiting.bullet.rstrip()))
            waiting = None
        opening = _ORG_BLOCK.match(line)
        if opening is not None:
            end = _end_of_block(lines, index, opening.group(3))
            if end is not None:
                if shown and shown[-1].lstrip().startswith(">"):  # two quotes in a row stay two
                    shown.append("")
                shown += _org_block(lines[index + 1 : end], opening)
                index = end + 1
                continue
        if index not in code and (heading_block := _heading_block(lines, index)):
            own_lines = heading_block[1:]
            line = f"- {line}"
        elif index in own_lines:  # under the heading's bullet now
            line = f"  {line}"
        heading = _HEADING_PROPERTY.match(line) if index not in code and shown else None
        if heading is not None and (bullet := _BULLET_TEXT.match(shown[-1])) and not _HEADING.match(shown[-1]):
            # "- Getting Started" over "  heading:: true": Logseq draws the block as a heading, and shows no property
            level = int(heading.group(1)) if heading.group(1).isdigit() else 2
            shown[-1] = f"{bullet.group(1)}{'#' * min(max(level, 1), 6)} {bullet.group(2)}"
            index += 1
            continue
        hidden = _hidden_property(line) if index not in code else None
        is_id = hidden is not None and hidden["key"].lower() == "id" and " " not in hidden["value"]
        block = hidden["value"].lower() if hidden is not None and is_id else ""
        if hidden is not None and hidden["bullet"].strip():
            waiting = _PropertiesFirst(index, hidden["bullet"], block_id=block)
            index += 1
            continue
        if hidden is not None:
            if waiting is not None:
                waiting.block_id = waiting.block_id or block
            elif block and shown and (index - 1) not in code:
                heading_alone = _HEADING.match(shown[-1]) and not _text_follows(lines, index, code)
                if heading_alone:  # the id names the heading
                    indent = line[: len(line) - len(line.lstrip())]
                    shown.append(numbered.written(index, f"{indent}^{block}"))
                elif _ends_in_text(shown[-1]) or _HEADING.match(shown[-1]):  # it ends the block's text
                    block_id = block
            index += 1
            continue
        if index not in code:
            line = outside_code(_BLOCK_PROPERTY.sub(_property_mark, line), lambda text: _IMAGE.sub(_image, text))
        shown.append(numbered.written(index, line))
        index += 1
    if waiting is not None:
        shown.append(numbered.written(waiting.index, waiting.bullet.rstrip()))
    if block_id:
        shown[-1] += f" ^{block_id}"
    return "\n".join(shown)


@dataclass
class _PropertiesFirst:
    """A block that opens with properties Logseq hides (`- query-table:: true` over its query): its bullet waits
    for the block's first line that is shown, since a bullet alone under a paragraph would make that a heading."""

    index: int  # of the bullet's line
    bullet: str  # its indent and marker
    block_id: str = ""  # its `id::`


def _image(found: re.Match[str]) -> str:
    """A Logseq image as the page parser reads one: its path in <…>, its width as Obsidian's `|300` (the height
    follows from the picture)."""
    path, size = found["path"].strip(), found["size"] or ""
    if " " not in path and not size:
        return found[0]
    width = _WIDTH.search(size)
    alt = f"{found['alt']}|{width.group(1)}" if width else found["alt"]
    return f"![{alt}](<{path}>)" if " " in path else f"![{alt}]({path})"


class _Numbered:
    """The blocks Logseq numbers (`logseq.order-list-type:: number`), written as items of an ordered list: a run of
    such siblings is numbered 1, 2, 3 … as Logseq numbers it, and a bullet among them starts the count again."""

    def __init__(self, lines: list[str], code: set[int]) -> None:
        self.bullets: dict[int, str] = {}  # a numbered block's first line → its indent
        self.own: dict[int, str] = {}  # a line of a numbered block after its first → the block's indent
        for index, line in enumerate(lines):
            bullet = _BULLET.match(line) if index not in code else None
            if bullet is None:
                continue
            depth, following = _indent(line), index + 1
            while following < len(lines) and (
                following in code or not lines[following].strip() or _own_line(lines[following], depth)
            ):
                following += 1
            own = range(index + 1, following)
            if any(_NUMBERED.match(lines[at]) for at in own if at not in code):
                indent = line[: len(line) - len(line.lstrip())]
                self.bullets[index] = indent
                self.own.update(dict.fromkeys(own, indent))

    def move_bullet(self, start: int, to: int) -> None:
        """The bullet of line `start` is written on line `to`, the first of its block shown."""
        if start in self.bullets:
            self.bullets[to] = self.bullets.pop(start)
            self.own.pop(to, None)

    def written(self, index: int, line: str) -> str:
        """`line` (line `index` of the page, its Markdown as shown) in the ordered list: `1.` for the bullet, and a
        block's other lines one column further in, under the item's wider marker, so they stay in the item."""
        indent = self.bullets.get(index)
        if indent is not None:
            return f"{indent}1.{line[len(indent) + 1 :]}"
        indent = self.own.get(index)
        if indent is not None and line.startswith(indent):
            return f"{indent} {line[len(indent) :]}"
        return line


def _own_line(line: str, depth: int) -> bool:
    """Whether `line` goes on with the block whose bullet is indented `depth`: further in, and not a child's bullet."""
    return _indent(line) > depth and not _BULLET.match(line)


def _hidden_property(line: str) -> re.Match[str] | None:
    """`line` read as a property Logseq hides (its bullet, if it opens a block, its key and value), else None."""
    found = _PROPERTY_LINE.match(line)
    return found if found is not None and logseq_hides(found["key"]) else None


def _hidden_own_property(line: str) -> bool:
    """Whether `line` is a property Logseq hides under a block's first line."""
    found = _hidden_property(line)
    return found is not None and not found["bullet"].strip()


def _text_follows(lines: list[str], index: int, code: set[int]) -> bool:
    """Whether the block of the property line `lines[index]` goes on with text of its own after its properties."""
    following = index + 1
    while following < len(lines) and following not in code and _hidden_own_property(lines[following]):
        following += 1
    if following >= len(lines) or following in code:
        return False
    return bool(lines[following].strip()) and not _NEW_BLOCK.match(lines[following])


def _ends_in_text(line: str) -> bool:
    """Whether `^id` may end this line: text, not a heading (whose anchor is its slug) nor a fence."""
    return bool(line.strip()) and not _HEADING.match(line) and not _FENCE.match(line)


def block_of(body: str, block_id: str) -> str | None:
    """The block of a Logseq page whose `id::` is `block_id`, with its children, dedented; None if none."""
    lines = body.split("\n")
    wanted = re.compile(rf"^[ \t]*id::[ \t]*{re.escape(block_id)}[ \t]*$", re.I)
    found = next((index for index, line in enumerate(lines) if wanted.match(line)), None)
    if found is None:
        return None
    opens = (index for index in range(found, -1, -1) if _BULLET.match(lines[index]) or _heading_block(lines, index))
    start = next(opens, 0)
    depth = _indent(lines[start])
    end = _heading_block(lines, start).stop or start + 1  # a heading block's own lines are at its margin
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > depth):
        end += 1
    return textwrap.dedent("\n".join(lines[start:end]).expandtabs(4)).strip("\n")


def block_text(block: str) -> str:
    """The first line of a block (`- text`): what a `((reference))` to it shows."""
    first = block.lstrip().split("\n", 1)[0]
    return re.sub(r"^(?:[-*][ \t]+)?(?:#{1,6}[ \t]+)?", "", first).strip()


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _property_mark(found: re.Match[str]) -> str:
    return f"{found.group(1)}{PROPERTY_OPEN}{found.group(2)}{PROPERTY_CLOSE} "


_BREAKS = frozenset({"softbreak", "hardbreak"})


def _block_properties(state: StateCore) -> None:
    """Each run of marked property lines of a block becomes one small box of its own, a line per property: its key,
    then its value (links and marks in the value rendered as anywhere else). The box sits on lines of its own, so
    the line breaks around and between its properties (which `breaks` would draw as blank lines) are dropped."""
    for token in state.tokens:
        if token.type == "inline" and token.children:
            token.children = _with_property_boxes(token.children)


def _with_property_boxes(children: list[Token]) -> list[Token]:
    lines: list[list[Token]] = [[]]
    breaks: list[Token] = []  # breaks[i] ends lines[i]
    for child in children:
        if child.type in _BREAKS:
            breaks.append(child)
            lines.append([])
        else:
            lines[-1].append(child)
    marks = [_PROPERTY_MARK.match(line[0].content) if line and line[0].type == "text" else None for line in lines]
    out: list[Token] = []
    for index, line in enumerate(lines):
        found = marks[index]
        if found is None:
            out += line
        else:
            if index == 0 or marks[index - 1] is None:
                out.append(Token("block_properties_open", "", 1))
            line[0].content = line[0].content[found.end() :]
            out += [Token("block_property_open", "", 1, meta={"key": found.group(1)}), *line]
            out.append(Token("block_property_close", "", -1))
            if index == len(lines) - 1 or marks[index + 1] is None:
                out.append(Token("block_properties_close", "", -1))
        if index < len(breaks) and found is None and marks[index + 1] is None:
            out.append(breaks[index])
    return out


def _render_properties_open(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return '<span class="block-properties">'


def _render_property_open(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    key = escapeHtml(tokens[idx].meta["key"])
    return f'<span class="block-property"><span class="block-property-key">{key}</span> '


def _render_close(self: object, tokens: list[Token], idx: int, options: object, env: dict) -> str:
    return "</span>"


def logseq_plugin(md: MarkdownIt) -> None:
    md.core.ruler.push("block_properties", _block_properties)
    md.add_render_rule("block_properties_open", _render_properties_open)
    md.add_render_rule("block_property_open", _render_property_open)
    md.add_render_rule("block_property_close", _render_close)
    md.add_render_rule("block_properties_close", _render_close)


def _end_of_block(lines: list[str], start: int, kind: str) -> int | None:
    closing = f"#+END_{kind.upper()}"
    for index in range(start + 1, len(lines)):
        if lines[index].strip().lstrip("-* \t").upper().startswith(closing):
            return index
    return None


def _org_block(inside: list[str], opening: re.Match[str]) -> list[str]:
    """The lines of one `#+BEGIN_X … #+END_X` block as Markdown, at the place in the outline it was written."""
    indent, bullet, kind = opening.group(1), opening.group(2) or "", opening.group(3).lower()
    continuation = indent + (" " * len(bullet) if bullet else "")
    body = [line[len(continuation) :] if line.startswith(continuation) else line.lstrip() for line in inside]
    if kind in _VERBATIM or kind not in _CALLOUT_OF:
        info = (opening.group(4) or "").split()[0:1] if kind == "src" else [kind]
        fence = "~~~~" if any(line.lstrip().startswith("```") for line in body) else "```"
        first = f"{indent}{bullet}{fence}{''.join(info)}"
        return [first, *(continuation + line for line in body), continuation + fence]
    callout = _CALLOUT_OF[kind]
    first = f"{indent}{bullet}> [!{callout}]" if callout else f"{indent}{bullet}>"
    # The closing `>` ends the quote's paragraph, so the next line is not read as part of it.
    return [first, *(f"{continuation}> {line}".rstrip() for line in body), f"{continuation}>"]
