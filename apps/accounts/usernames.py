"""What a username may be: it is shown on pages, in share lists and in the audit log, and typed to sign in."""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError

USERNAME_MAX_CHARS = 64
USERNAME = re.compile(r"[^\W_]|[._@-]")  # letters and digits of any script, and . _ - @


def validate_username(username: str) -> str:
    """The stripped username, or a 400-worthy ValidationError saying which rule it breaks."""
    username = (username or "").strip()
    if not username:
        raise ValidationError({"username": ["a username is required"]})
    if len(username) > USERNAME_MAX_CHARS:
        raise ValidationError({"username": [f"a username has at most {USERNAME_MAX_CHARS} characters"]})
    if not all(USERNAME.fullmatch(char) for char in username):
        raise ValidationError({"username": ["a username has only letters, digits and . _ - @"]})
    return username
