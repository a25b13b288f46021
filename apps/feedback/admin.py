"""The feedback report in the admin: per note, what the team's votes said, as a page and as CSV. Read-only like the
rest of the admin: it counts votes and corrections, shows a note's vault, path and title, and changes nothing."""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils import timezone
from django.views.decorators.http import require_safe

from apps.feedback.report import (
    TREND_WINDOW,
    feedback_report_csv,
    may_see_feedback_report,
    note_feedback_report,
)


def _vault_asked(request: HttpRequest) -> int | None:
    """The `?vault=` a staff member narrowed the report to; anything but an id is ignored."""
    asked = request.GET.get("vault", "")
    return int(asked) if asked.isascii() and asked.isdigit() and len(asked) < 19 else None


@require_safe
def feedback_report_page(request: HttpRequest) -> HttpResponse:
    if not may_see_feedback_report(request.user):  # type: ignore[arg-type]
        raise PermissionDenied
    vault_id = _vault_asked(request)
    rows = note_feedback_report(user=request.user, vault_id=vault_id)  # type: ignore[arg-type]
    context = {
        **admin.site.each_context(request),
        "title": "Feedback by note",
        "rows": rows,
        "vault_id": vault_id,
        "window_days": TREND_WINDOW.days,
    }
    return TemplateResponse(request, "admin/feedback_report.html", context)


@require_safe
def feedback_report_download(request: HttpRequest) -> HttpResponse:
    if not may_see_feedback_report(request.user):  # type: ignore[arg-type]
        raise PermissionDenied
    rows = note_feedback_report(user=request.user, vault_id=_vault_asked(request))  # type: ignore[arg-type]
    response = HttpResponse(feedback_report_csv(rows), content_type="text/csv; charset=utf-8")
    stamp = timezone.now().strftime("%Y-%m-%d")
    response["Content-Disposition"] = f'attachment; filename="feedback-by-note-{stamp}.csv"'
    return response


# Mounted under /admin/ by the project's URLs, behind the admin's own sign-in (staff only).
feedback_report_urls: list[URLPattern] = [
    path("feedback-report/", admin.site.admin_view(feedback_report_page), name="feedback-report"),
    path("feedback-report.csv", admin.site.admin_view(feedback_report_download), name="feedback-report-csv"),
]
