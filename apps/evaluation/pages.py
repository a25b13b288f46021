"""The staff learning page: the latest learning-curve replay drawn with learning on and off (`evaluate locomo
--replay` keeps each run), and what the team's feedback did week by week. Counts only: no passage or question."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.db.models.functions import TruncWeek
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from apps.evaluation.models import LearningCurveRun
from apps.evaluation.replay import curve_svg
from apps.feedback.models import Feedback
from apps.feedback.report import HELPED, HURT, may_see_feedback_report
from apps.graph.models import WeightChange
from apps.vaults.models import Vault

WEEKS_SHOWN = 12
RUNS_LISTED = 10


def feedback_weeks(*, weeks: int = WEEKS_SHOWN) -> list[dict[str, object]]:
    """Per week, newest first: votes that said a passage helped, votes that said it did not (a vote taken back
    counts as neither, as on the feedback report), and weight changes, in the vaults that still exist (an
    evaluation's votes and ledger stay on record after its vaults are removed)."""
    since = timezone.now() - timedelta(weeks=weeks)
    vaults = Vault.objects.values("pk")
    votes = (
        Feedback.objects.filter(created_at__gte=since, vault_id__in=vaults, withdrawn_at__isnull=True)
        .annotate(week=TruncWeek("created_at"))
        .values("week")
        .annotate(helped=Count("id", filter=Q(signal__in=HELPED)), hurt=Count("id", filter=Q(signal__in=HURT)))
    )
    changes = (
        WeightChange.objects.filter(at__gte=since, vault_id__in=vaults)
        .annotate(week=TruncWeek("at"))
        .values("week")
        .annotate(changes=Count("id"))
    )
    rows: dict[datetime, dict[str, object]] = {}
    for row in votes:
        rows[row["week"]] = {"week": row["week"], "helped": row["helped"], "hurt": row["hurt"], "changes": 0}
    for row in changes:
        rows.setdefault(row["week"], {"week": row["week"], "helped": 0, "hurt": 0})["changes"] = row["changes"]
    return [rows[week] for week in sorted(rows, reverse=True)]


@require_safe
def learning_page(request: HttpRequest) -> HttpResponse:
    if not may_see_feedback_report(request.user):  # type: ignore[arg-type]
        raise PermissionDenied
    runs = list(LearningCurveRun.objects.all()[:RUNS_LISTED])
    latest = runs[0] if runs else None
    chart = ""
    if latest is not None:
        title = f"{latest.dataset}, {len(latest.conversations)} conversations: MRR while answering"
        chart = mark_safe(curve_svg(latest.curve, title=title, window=latest.window))  # noqa: S308 - escaped inside
    context = {
        **admin.site.each_context(request),
        "title": "Learning",
        "latest": latest,
        "chart": chart,
        "runs": runs,
        "weeks": feedback_weeks(),
        "weeks_shown": WEEKS_SHOWN,
    }
    return TemplateResponse(request, "admin/learning.html", context)


# Mounted under /admin/ by the project's URLs, behind the admin's own sign-in (staff only).
learning_urls: list[URLPattern] = [path("learning/", admin.site.admin_view(learning_page), name="learning-report")]
