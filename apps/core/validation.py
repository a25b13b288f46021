"""Validation of free text a person types (search queries, chat messages): one set of rules and messages."""

from __future__ import annotations

from django.core.exceptions import ValidationError


def validate_text(text: str, *, field: str, limit: int, empty: str) -> str:
    """The stripped text, or a 400-worthy ValidationError on `field` saying what is wrong."""
    text = (text or "").strip()
    if not text:
        raise ValidationError({field: [empty]})
    if len(text) > limit:
        raise ValidationError({field: [f"the {_noun(field)} has {len(text)} characters; the limit is {limit}"]})
    if "\x00" in text:
        raise ValidationError({field: [f"the {_noun(field)} contains a NUL character"]})
    return text


def is_id(value: str) -> bool:
    """A database id as typed in a URL or form: ASCII digits only (`"²".isdigit()` is true; `int("²")` fails)."""
    return value.isascii() and value.isdecimal() and len(value) < 19


def vault_param(value: str | None) -> int:
    """The `?vault=` of a read that names one vault: its id, or a 400-worthy ValidationError."""
    if not is_id(value or ""):
        raise ValidationError({"vault": ["name a vault by its numeric id"]})
    return int(str(value))


def _noun(field: str) -> str:
    return {"q": "query"}.get(field, field)
