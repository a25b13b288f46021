"""How a note the app writes (a filed answer, a blend) names another note in its Markdown: as Obsidian would, so the
name still leads somewhere once the vault is exported or opened in Obsidian. An app address (`/notes/<id>/`) leads
nowhere there."""

from __future__ import annotations

import re

from apps.notes.markdown import WIKILINK
from apps.notes.models import Note, NoteLink, Tier
from apps.notes.syntax import verbatim_test

# What a wikilink's target (a path) or label (a title) cannot hold, and the marks that would make a plain name a
# link or markup.
LINK_SYNTAX = re.compile(r"[\[\]|#^\n]")
LABEL_SYNTAX = re.compile(r"[\[\]|\n]")
MARKUP = re.compile(r"([\\`*\[\]<>])")


def note_reference(note: Note, *, title: str, home_vault_id: int, vault_name: str) -> str:
    """How a note written into the vault `home_vault_id` names `note` (known by `title`, in the vault `vault_name`):
    a wikilink when `note` is in that vault and a name finds it alone there, else its plain title; a wikilink to a
    note of another vault would dangle once the vault is exported, so that note is named with its vault."""
    if note.vault_id != home_vault_id:
        return f"{plain_markdown(title)} (in {plain_markdown(vault_name)})"
    return note_wikilink(note, title) or plain_markdown(title)


def note_wikilink(note: Note, title: str) -> str | None:
    """A wikilink that finds `note` alone in its vault, as Obsidian writes one: `[[name]]` by its file name, else
    `[[path/of/name|title]]`; None when no name finds it alone (another note answers to it too) or its path holds a
    character a wikilink cannot spell."""
    path = note.path.removesuffix(".md")
    if LINK_SYNTAX.search(path):
        return None
    others = Note.objects.filter(vault_id=note.vault_id, tier=Tier.HOT).exclude(pk=note.pk)
    names = dict.fromkeys([path.rsplit("/", 1)[-1], path])
    target = next((n for n in names if not others.filter(link_keys__contains=[n.lower()]).exists()), None)
    if target is None:
        return None
    label = re.sub(r"\s+", " ", LABEL_SYNTAX.sub(" ", title)).strip()
    return f"[[{target}]]" if label in ("", target) else f"[[{target}|{label}]]"


def plain_markdown(text: str) -> str:
    """`text` as Markdown shows it, never as a link or markup."""
    return MARKUP.sub(r"\\\1", text)


def links_within_its_vault_as_text(note: Note) -> str:
    """`note`'s text with each wikilink (or embed) that leads to a note of its own vault written as the words it
    shows: what a copy of it written into another vault says, where those links would lead nowhere or to another
    note of the same name."""
    resolved = NoteLink.objects.filter(source=note, target__vault_id=note.vault_id, target__tier=Tier.HOT)
    within = {target.lower() for target in resolved.values_list("target_text", flat=True)}
    if not within:
        return note.body
    in_verbatim = verbatim_test(note.body)

    def shown(found: re.Match[str]) -> str:
        target, heading, alias = (found.group(n) or "" for n in (1, 2, 3))
        if target.strip().lower() not in within or in_verbatim(found.start()):
            return found.group(0)
        name = target.strip().rsplit("/", 1)[-1]
        return plain_markdown(alias.strip() or (f"{name} > {heading.strip()}" if heading.strip() else name))

    return WIKILINK.sub(shown, note.body)
