"""A note's properties as Obsidian's Properties view shows them: a list as separate items, a wikilink or a web
address in a value as a link, a date as a date, a checkbox as a checkbox, and an empty value as an empty field."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from apps.notes.markdown import WIKILINK
from apps.notes.rendering.parser import address_finder, note_parser
from apps.notes.rendering.wikilinks import Page, WrittenLink, link_html

# YAML dates reach the note as text (`2023-09-12`, `2023-09-12T10:30`): Obsidian's date and date & time properties.
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?")


@dataclass(frozen=True)
class ShownProperty:
    key: str
    values: list[SafeString]  # HTML of each value; empty for an empty property
    is_list: bool  # its values are items (chips), as Obsidian shows a list property


def shown_properties(frontmatter: dict[str, Any], page: Page) -> list[ShownProperty]:
    """The note's properties in the order written, their wikilinks pointing where `page` resolves them."""
    shown = []
    for key, value in frontmatter.items():
        items = value if isinstance(value, list) else [value]
        values = [_value_html(item, page) for item in items if not _is_empty(item)]
        shown.append(ShownProperty(key=str(key), values=values, is_list=isinstance(value, list)))
    return shown


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _value_html(value: Any, page: Page) -> SafeString:
    if isinstance(value, bool):
        return format_html('<input type="checkbox" disabled{}>', " checked" if value else "")
    if isinstance(value, dict):  # a nested mapping, which Obsidian shows as its text
        return mark_safe(", ".join(f"{escape(k)}: {_value_html(v, page)}" for k, v in value.items()))  # noqa: S308
    if isinstance(value, list):
        return mark_safe(", ".join(_value_html(item, page) for item in value))  # noqa: S308 - each part escaped
    text = str(value)
    if _DATE.fullmatch(text.strip()) and (moment := _moment(text.strip())) is not None:
        shown = moment.strftime("%b %-d, %Y %H:%M" if isinstance(moment, datetime.datetime) else "%b %-d, %Y")
        return format_html('<time datetime="{}">{}</time>', text.strip(), shown)
    return _text_html(text, page)


def _moment(text: str) -> datetime.date | datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(text) if len(text) > 10 else datetime.date.fromisoformat(text)
    except ValueError:  # 2023-02-30 is text that looks like a date
        return None


def _text_html(text: str, page: Page) -> SafeString:
    """Text with each `[[wikilink]]` and bare address in it a link, the rest escaped."""
    parts, end = [], 0
    for match in WIKILINK.finditer(text):
        target = match.group(1).strip()
        heading, alias = (match.group(2) or "").strip(), (match.group(3) or "").strip()
        if not target and not heading:
            continue
        written = WrittenLink(target, heading, alias, embed=False, source=match[0])
        parts += [_bare_links_html(text[end : match.start()]), link_html(written, page)]
        end = match.end()
    parts.append(_bare_links_html(text[end:]))
    return mark_safe("".join(parts))  # noqa: S308 - the text escaped, the links built from escaped parts


def _bare_links_html(text: str) -> str:
    """Text escaped, each address the note body would make a link (the parser's linkify) a link here too."""
    parser = note_parser()
    parts, end = [], 0
    for found in address_finder().match(text) or ():
        href = parser.normalizeLink(found.url)
        if not parser.validateLink(href):
            continue
        parts += [escape(text[end : found.index]), format_html('<a href="{}">{}</a>', href, found.text)]
        end = found.last_index
    parts.append(escape(text[end:]))
    return "".join(parts)
