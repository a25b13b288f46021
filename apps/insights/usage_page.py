"""The staff discovery page: model calls per tier per day and vault, the day's budgets, and what the calls bought
(concepts formed, accepted, calls per accepted concept). Counts only: no label or note of any vault."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils import timezone
from django.views.decorators.http import require_safe

from apps.insights.budgets import usage_report

DAYS_SHOWN = 30


@require_safe
def discovery_usage_page(request: HttpRequest) -> HttpResponse:
    report = usage_report(since=timezone.localdate() - timedelta(days=DAYS_SHOWN))
    context = {
        **admin.site.each_context(request),
        "title": "Discovery",
        "report": report,
        "budgets": settings.DISCOVERY_DAILY_CALLS,
        "days_shown": DAYS_SHOWN,
    }
    return TemplateResponse(request, "admin/discovery.html", context)


# Mounted under /admin/ by the project's URLs, behind the admin's own sign-in (staff only).
discovery_urls: list[URLPattern] = [
    path("discovery/", admin.site.admin_view(discovery_usage_page), name="discovery-usage-page")
]
