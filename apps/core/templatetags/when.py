"""How long ago something happened, as a person says it on a page."""

from __future__ import annotations

from datetime import datetime, timedelta

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

register = template.Library()

# timesince counts whole minutes, so anything newer reads "0 minutes"
JUST_NOW = timedelta(minutes=1)


@register.filter
def ago(moment: datetime | None) -> str:
    """Under a minute "just now", else as "3 minutes ago" or "2 hours, 5 minutes ago"."""
    if moment is None:
        return ""
    if timezone.now() - moment < JUST_NOW:
        return "just now"
    return f"{timesince(moment)} ago"
