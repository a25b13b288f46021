"""What a username may be: it is shown on pages, in share lists and in the audit log, and typed to sign in.

`username_rule` is the one check: the API and single sign-on call it through `validate_username`, the admin's user
forms carry it on their username field, and the User model's username field carries it in place of Django's wider
default (which allows `+` and 150 characters), so `createsuperuser` and any `full_clean` keep it too."""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError

USERNAME_MAX_CHARS = 64
USERNAME = re.compile(r"[^\W_]|[._@-]")  # letters and digits of any script, and . _ - @
USERNAME_RULE = f"1 to {USERNAME_MAX_CHARS} letters, digits and . _ - @"


def username_rule(username: str) -> None:
    """Raises a ValidationError saying which part of the rule `username` (already stripped) breaks."""
    if not username:
        raise ValidationError("A username is required.", code="required")
    if len(username) > USERNAME_MAX_CHARS:
        raise ValidationError(f"A username has at most {USERNAME_MAX_CHARS} characters.", code="max_length")
    if not all(USERNAME.fullmatch(char) for char in username):
        raise ValidationError("A username has only letters, digits and . _ - or @.", code="invalid")


def validate_username(username: str) -> str:
    """The stripped username, or a 400-worthy ValidationError saying which rule it breaks."""
    username = (username or "").strip()
    try:
        username_rule(username)
    except ValidationError as exc:
        raise ValidationError({"username": exc.messages}) from exc
    return username
