"""Plain text out of Markdown, for reading sentences: wikilinks shown as their labels, emphasis and code marks
dropped, each line and list item on its own."""

from __future__ import annotations

import re
from collections.abc import Callable

from apps.notes.blocks import Block, block_tree
from apps.notes.markdown import ADDRESS, INLINE_LINK, INLINE_TAG, LOGSEQ_TAG, WIKILINK
from apps.notes.syntax import (
    BLOCK_LEVEL,
    HTML_PARTS,
    LEFT_OUT,
    SHOWN,
    VOID,
    code_block_lines,
    logseq_hides,
    verbatim_test,
)

# Single-mark emphasis around words ("*quanto basta*", "_really_"): opened after a space or an opening mark and closed
# before one, around a letter or digit at each end, so a mark in a word, a path or a glob stays ("snake_case",
# "src/*.py", "_config_.yml", ".../wiki/_Foo_"); code spans are left as written.
EMPHASIS = re.compile(r"(?<![^\s(\[\"'“‘])[*_](?=[^\W_])([^*_\n]*?[^\W_])[*_](?=[\s,;:!?)\]\"'’”]|[.](?:\s|$)|$)")
CODE_SPAN = re.compile(r"(?<!\\)(`+)(.+?)\1")  # an escaped backtick "\\`" opens none
# Logseq's cloze, a phrase the reader hides to recall it: `{{cloze @white999 on Discord}}` says "@white999 on Discord".
CLOZE = re.compile(r"\{\{\s*cloze\s+([^{}\n]*?)\s*\}\}")
# Logseq's macros, in two braces or three (`{{youtube JCldJBZGQLQ}}`, `{{{embed [[Page]]}}}`): its name (in a search
# snippet, maybe marked as a match: `{{«youtube» …}}`) and arguments.
LOGSEQ_MACRO = re.compile(
    r"\{\{(?P<third_brace>\{)?\s*(?P<marked>«)?(?P<name>[A-Za-z][\w-]*)(?(marked)»)"
    r"(?:[ \t]+(?P<arguments>[^{}\n]*?))?\s*\}\}(?(third_brace)\})"
)
# What the page shows for a macro that shows a thing: a reader reads that it is there. An embed shows what it names.
MACRO_SHOWS = {
    "youtube": "YouTube video",
    "video": "video",
    "vimeo": "Vimeo video",
    "bilibili": "Bilibili video",
    "tweet": "tweet",
    "twitter": "tweet",
    "youtube-timestamp": "YouTube timestamp",
    "pdf": "PDF",
}
# Logseq's `key:: value` under a block or atop a page (its key maybe a snippet's «match»).
LOGSEQ_PROPERTY = re.compile(
    r"^(?P<opening>[ \t>]*(?:[-*+][ \t]+)?)(?P<key>«?[A-Za-z][\w.«»-]*)::(?:[ \t]+(?P<value>.*))?$"
)
# An org block's `#+BEGIN_NOTE` and `#+END_NOTE`: the page draws the block, not its markers.
ORG_MARKER = re.compile(r"^[ \t>]*(?:[-*+][ \t]+)?#\+(?:BEGIN|END)_\w+", re.I)
# An embedded file the page shows as a view of other notes, by its kind: `![[Books.base]]` is Books (a base view).
VIEW_KINDS = {".base": "a base view", ".canvas": "a canvas"}
# Logseq's link to a page with words of its own: `[continue with the lesson]([[How to create pages]])`.
LABELLED_PAGE_LINK = re.compile(r"(?<![!\\])\[([^\[\]\n]+)\]\(\[\[[^\[\]\n]+\]\]\)")
# A wikilink, or an embed when "!" opens it after no letter ("Done![[Next]]" is an exclamation and a link); inside a
# table Obsidian writes the alias's pipe escaped.
WIKILINK_SHOWN = re.compile(
    r"(?P<embed>(?<!\w)!)?\[\[(?P<target>[^\]|#]+?)(?:#[^\]|]*)?(?:\\?\|(?P<label>[^\]]+))?\]\]"
)
# "![[photo.png|300]]": an embed's size, not words to read.
EMBED_SIZE = re.compile(r"\d+(?:x\d+)?")
# An image or other media a line shows ("![image.png](../assets/image_1687.png){:height 560, :width 960}", Logseq's
# size after it): read as its description, and as nothing when that only names its file.
MARKDOWN_IMAGE = re.compile(r"(?<!\\)!\[(?P<label>[^\[\]\n]*)\]\([^()\n]*\)(?:\{:[^{}\n]*\})?")
# HTML a note writes, for emphasis or layout ("<u><b>links</b></u>", "<kbd>Ctrl</kbd>+<kbd>P</kbd>", a table of
# contributors): the page shows its words (`rendering.html`); a line break, a picture, a cell or any other block parts
# the words around it. Only HTML's own names: "<note-name>" or "<YOUR_TOKEN>" is a placeholder the reader fills in,
# and stays.
_HTML_APART = sorted((BLOCK_LEVEL | LEFT_OUT | VOID | HTML_PARTS) | {"iframe", "video", "audio"}, key=len, reverse=True)
_HTML_WITHIN = sorted(SHOWN - BLOCK_LEVEL - VOID - HTML_PARTS, key=len, reverse=True)
INLINE_HTML = re.compile(
    rf"</?(?:(?P<apart>{'|'.join(_HTML_APART)})|{'|'.join(_HTML_WITHIN)})(?:\s[^<>]*)?/?>",
    re.I,
)
GAP = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)")
MEDIA_FILE = re.compile(r"\.(?:png|jpe?g|gif|svg|webp|bmp|avif|tiff?|heic|pdf|mp4|mov|webm|mp3|m4a|wav|ogg)\s*$", re.I)
# A backslash before ASCII punctuation shows the mark itself ("\\-" an empty cell's dash, "snake\\_case"). While
# the line is read, an escaped mark is held as one of Unicode's 32 noncharacters, one for each of the 32 marks, which
# no text carries, so that no rule takes it for Markdown.
ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
MARKS = "".join(chr(c) for c in range(0x21, 0x7F) if not chr(c).isalnum())
HOLD = str.maketrans(MARKS, "".join(chr(0xFDD0 + i) for i in range(len(MARKS))))
RELEASE = {held: mark for mark, held in HOLD.items()}


def plain_line(line: str) -> str:
    return _plain(line).strip(" -*>#\t").translate(RELEASE)


def plain_cell(cell: str) -> str:
    """A table cell as plain text: a cell has no list or quote marks to strip, so "`--fix`" stays "--fix"; a cell
    of dashes alone ("-", "—", an escaped "\\-") is an empty one."""
    text = _plain(cell).strip().translate(RELEASE)
    return text if text.strip(" -–—*>#") else ""


def _plain(line: str) -> str:
    """The line's text with its Markdown read; an escaped mark is still held (`RELEASE` gives it back)."""
    line = outside_code(line, _shown)  # code shows links, pictures and tags as written
    line = outside_code(line, lambda text: ESCAPED.sub(lambda mark: mark[1].translate(HOLD), text))
    line = outside_code(line, lambda text: EMPHASIS.sub(r"\1", re.sub(r"(\*\*|__)", "", text)), marks=False)
    return line.replace("`", "")


def _shown(text: str) -> str:
    """Text outside code as the page shows it: a cloze and a labelled page link by their words, a picture by its
    description, a wikilink by its label, inline HTML by its words; where a picture or a tag showed no words, those
    around it stand one space apart."""
    shown = CLOZE.sub(r"\1", LABELLED_PAGE_LINK.sub(r"\1", text))
    shown = LOGSEQ_MACRO.sub(_macro_text, shown)
    before = shown
    shown = MARKDOWN_IMAGE.sub(lambda image: _description(image["label"]), shown)
    shown = WIKILINK_SHOWN.sub(_wikilink_text, shown)
    shown = INLINE_HTML.sub(lambda tag: " " if tag["apart"] else "", shown)
    return GAP.sub(" ", shown) if shown != before else shown


def _macro_text(macro: re.Match[str]) -> str:
    """What a Logseq macro shows, in words: a video as "YouTube video", an embed as what it names; any other macro
    as written."""
    name = macro["name"].lower()
    if name in MACRO_SHOWS:
        return f"«{MACRO_SHOWS[name]}»" if macro["marked"] else MACRO_SHOWS[name]
    if name == "embed":
        return macro["arguments"] or ""
    return macro[0]


def _description(label: str) -> str:
    label = label.strip()
    return "" if MEDIA_FILE.search(label) else label


def _wikilink_text(link: re.Match[str]) -> str:
    """A link's label, else its target; an embed's size is no label, and an embedded picture with no label of
    its own shows no words ("![[Pasted image 2023.png]]")."""
    label = link["label"]
    if label is None or (link["embed"] and EMBED_SIZE.fullmatch(label.strip())):
        if link["embed"] and MEDIA_FILE.search(link["target"]):
            return ""
        stem, dot, extension = link["target"].rpartition(".")
        kind = VIEW_KINDS.get(f"{dot}{extension}".lower()) if link["embed"] and stem else None
        return f"{stem} ({kind})" if kind else link["target"]
    return label


def outside_code(line: str, change: Callable[[str], str], *, marks: bool = True) -> str:
    """`line` with `change` made to its text outside code spans; the code spans keep their backticks unless `marks`
    is false."""
    pieces = CODE_SPAN.split(line)  # text, then for each code span its marks and its code, then text again
    out = []
    for i, piece in enumerate(pieces):
        if i % 3 == 0:
            out.append(change(piece))
        elif i % 3 == 1:
            out.append(piece if marks else "")
        else:
            out.append(piece + pieces[i - 1] if marks else piece)
    return "".join(out)


# Marks a page draws as something else: a task's box (`- [ ]`, `- [x]`, Obsidian's `- [-]`) and a callout's
# `[!type]`, whose title (else its type) heads the callout.
_TASK_BOX = re.compile(r"^([ \t>]*(?:[-*+]|\d+[.)])[ \t]+)\[[^\]\n]\](?:[ \t]+|$)")
_CALLOUT_MARK = re.compile(r"^([ \t>]*)\[!([\w-]+)\][+-]?[ \t]*(.*)$")
_ROW_OPENING = re.compile(r"^[ \t>]*")  # a row's indent and quote marks
_TABLE_OPENING = re.compile(r"^[ \t>]*(?:(?:[-*+]|\d+[.)])[ \t]+)?")  # the first row may open a list item too
_CELL_BORDER = re.compile(r"(?<!\\)\|")  # `\|` is a pipe in a cell (`[[Note\|alias]]` in Obsidian's tables)


def readable_text(text: str) -> str:
    """A Markdown passage as readable text on one line: links by their labels (inside code as written), pictures by
    their descriptions (`plain_line`), emphasis and code marks dropped, a task without its box, a callout by its
    title, and a table as its cells (`a · b`), row after row (`; `). Logseq's syntax reads as its page shows it: a
    property as `key: value` (none Logseq keeps for itself), a macro as what it shows, no org block's markers."""
    in_code = verbatim_test(text)
    labelled = INLINE_LINK.sub(lambda link: link[0] if in_code(link.start()) or link["embed"] else link["label"], text)
    lines = labelled.splitlines()
    code = code_block_lines("\n".join(lines))
    tables = {table.start: table.end for table in _tables(block_tree(lines))}
    said, index = [], 0
    while index < len(lines):
        if index in tables:
            said.append(_table_text(lines[index : tables[index]]))
            index = tables[index]
            continue
        raw = lines[index]
        if index not in code:
            raw = _TASK_BOX.sub(r"\1", _CALLOUT_MARK.sub(_callout_title, _property_shown(raw)))
        if index in code or not ORG_MARKER.match(raw):
            said.append(plain_line(raw))
        index += 1
    return " ".join(line for line in said if line)


def _property_shown(line: str) -> str:
    """A Logseq property line as a reader reads it, `key: value`; one Logseq keeps for itself (`id::`, `card-…::`)
    says nothing."""
    found = LOGSEQ_PROPERTY.match(line)
    if found is None:
        return line
    if logseq_hides(re.sub("[«»]", "", found["key"])):
        return ""
    return f"{found['opening']}{found['key']}: {found['value'] or ''}".rstrip()


def _tables(blocks: list[Block]) -> list[Block]:
    return [table for block in blocks for table in ([block] if block.kind == "table" else _tables(block.children))]


def _table_text(rows: list[str]) -> str:
    """A table's header and body rows (its second row, the delimiter, is drawn as none) as their cells' text."""
    said = []
    for index, row in enumerate(rows[:1] + rows[2:]):
        written = (_TABLE_OPENING if index == 0 else _ROW_OPENING).sub("", row).strip()
        cells = _CELL_BORDER.split(written.removeprefix("|").removesuffix("|"))
        shown = [plain_cell(cell).replace("\\|", "|") for cell in cells]
        said.append(" · ".join(cell for cell in shown if cell))
    return "; ".join(row for row in said if row)


def _callout_title(found: re.Match[str]) -> str:
    return f"{found.group(1)}{found.group(3) or found.group(2).capitalize()}"


def heading_id(heading: str) -> str:
    """The id a note page gives the heading written `heading` (its Markdown, as a chunk's heading path holds it),
    and so the fragment of every link to that section: its words as read (links by their labels, a tag by its
    name), lowercased and joined by hyphens."""
    return re.sub(r"[^\w-]+", "-", readable_text(heading).lower()).strip("-")


# A full stop after these is no sentence's end ("e.g. the daily note").
ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|vs|cf|approx|Dr|Mr|Mrs|Ms|Fig)\.$", re.IGNORECASE)


def split_sentences(line: str) -> list[str]:
    """A plain line's sentences (more than two characters each); an abbreviation's full stop ends none."""
    pieces: list[str] = []
    for piece in re.split(r"(?<=[.!?])\s+", line):
        if pieces and ABBREVIATIONS.search(pieces[-1]):
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return [p.strip() for p in pieces if len(p.strip()) > 2]


def sentences(text: str) -> list[str]:
    """Sentences of a Markdown text, each list item and line on its own (Markdown marks removed)."""
    out = []
    for line in text.splitlines():
        plain = plain_line(line)
        if plain and not plain.startswith("---"):
            out += split_sentences(plain)
    return out


# A paragraph's line that does not end a sentence (or a Markdown line break) was wrapped when the next line carries
# on in lower case (or with a link or an aside): one statement per line, as outliners write, is not joined, nor is
# a property (`type:: Feature`, `categories: Places`).
_ENDS_A_LINE = re.compile(r"[.!?:;]\s*$|  $|\\$")
_CARRIES_ON = re.compile(r"^\s*(?:[a-z]|\[[^\[\]]|\()")
_PROPERTY = re.compile(r"^\s*(?:[-*+]\s+)?[\w-]+::?(?:\s|$)")


def prose_lines(text: str) -> list[str]:
    """The lines of a Markdown text that are prose, in order: its paragraphs, in list items and quotes too, a
    paragraph's wrapped lines joined into one. Headings (in a list item too), code, HTML, tables and link definitions
    are what a page is built of, not what it says."""
    lines = text.split("\n")
    code = code_block_lines(text)
    out: list[str] = []

    def paragraphs(blocks: list[Block]) -> None:
        for block in blocks:
            if block.kind != "paragraph":
                paragraphs(block.children)
                continue
            wrapped = False
            for index in range(block.start, block.end):
                line = lines[index]
                if index in code:
                    wrapped = False
                    continue
                if wrapped and _CARRIES_ON.match(line) and not _PROPERTY.match(line):
                    out[-1] = f"{out[-1].rstrip()} {line.strip()}"
                else:
                    out.append(line)
                wrapped = not _ENDS_A_LINE.search(line) and not _PROPERTY.match(line)

    paragraphs(block_tree(lines))
    return out


# Links, tags and addresses name a page or a place; the marks, symbols and little words that list them say nothing.
_NAMES = (INLINE_LINK, LOGSEQ_TAG, WIKILINK, ADDRESS, INLINE_TAG)
_LABEL = re.compile(r"^\s*(?:[-*+]\s+)?[^:\[\]()]{1,40}?::?\s")
_LISTED = re.compile(r"^(?:\W|\b(?:and|or|except)\b)*$", re.IGNORECASE)
# A sentence has words in lower case: a property's value with fewer is a name, a title, a date or a number
# (`alias:: Reload`, `title:: Publishing (Desktop App Only)`, `rating: 7`).
_SENTENCE_WORDS = 3
# A comma-separated value whose every item is this short and capitalised lists names ("Tip: use it, then save"
# is a sentence).
_LISTED_ITEM_WORDS = 4


def names_only(line: str) -> bool:
    """Whether a Markdown line names pages rather than says something of them: a property whose value is no
    sentence (`type:: [[Command]]`, `categories: [[Places]]`, `alias:: Reload`), or links listed under a label or
    none (`- [[Foo]], [[Bar]]`, `Related: [[A]] · [[B]]`), or a property listing short items (`supports:: Reload,
    Url, Open`). A property whose value is prose (`description:: Draw in
    blocks using an embedded Excalidraw canvas`) says something."""
    words = line
    for name in _NAMES:
        words = name.sub(" ", words)
    if _PROPERTY.match(line):
        value = _PROPERTY.sub("", words, count=1)
        items = [item.split() for item in value.split(",")]
        if len(items) > 1 and all(0 < len(item) <= _LISTED_ITEM_WORDS and item[0][0].isupper() for item in items):
            return True  # `supports:: Reload, Url, Open, Link to page/block, Mobile context menu` lists names
        return sum(word[0].islower() for word in value.split()) < _SENTENCE_WORDS
    return words != line and bool(_LISTED.match(_LABEL.sub("", words, count=1)))
