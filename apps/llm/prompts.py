"""Prompt building blocks shared by every room that sends text to a model."""

from __future__ import annotations

import html
import unicodedata


def quote(text: str) -> str:
    """Text made safe to sit between prompt delimiters: no tag of any spelling can close or open one."""
    return html.escape(unicodedata.normalize("NFKC", text), quote=True)
