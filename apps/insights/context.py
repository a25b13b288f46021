"""Every page's header shows how many things DesirePath noticed that the person has not opened yet."""

from __future__ import annotations

from django.http import HttpRequest

from apps.insights.selectors import notification_list


def noticed(request: HttpRequest) -> dict[str, int]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"noticed": notification_list(user=user, unread_only=True).count()}
