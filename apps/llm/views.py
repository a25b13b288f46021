"""The Models page (staff): each slot's model, server and key variable, its latest call, and a Test button."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from apps.core.auth import actor
from apps.core.local_models import is_local
from apps.llm.connections import SLOTS, Connection, connections
from apps.llm.embeddings import current_model
from apps.llm.models import ModelUsage
from apps.llm.selectors import latest_calls, latest_purpose
from apps.llm.services import TEST_PURPOSE
from apps.llm.tasks import try_model

SLOT_WORDS = {
    "chat": "Chat: the answers people read",
    "reasoning": "Reasoning: summaries, research and what is kept",
    "scoring": "Scoring: many quick relevance judgements",
    "embedding": "Embedding: the vectors search compares",
}
REQUESTED = "model_tests_requested"  # session: slot → (the latest test's id when asked, when asked)
TEST_PATIENCE = timedelta(minutes=2)


@dataclass(frozen=True)
class SlotRow:
    connection: Connection
    words: str
    local: bool
    last_call: ModelUsage | None
    last_test: ModelUsage | None
    test_state: str  # "waiting": asked for, not recorded yet; "not run": no worker took it within TEST_PATIENCE


def _staff(request: HttpRequest) -> None:
    if not (request.user.is_active and request.user.is_staff):
        raise PermissionDenied("the Models page is for staff")


@login_required
def models_page(request: HttpRequest) -> HttpResponse:
    _staff(request)
    requested: dict[str, list] = request.session.get(REQUESTED, {})
    if request.method == "POST":
        slot = request.POST.get("slot", "")
        if slot not in SLOTS:
            context = _context(requested, error=f"There is no model slot called {slot!r}.")
            return render(request, "models.html", context, status=400)
        # the worker's row is known by its id, never by comparing two machines' clocks
        before = latest_purpose(slot, TEST_PURPOSE)
        request.session[REQUESTED] = {**requested, slot: [before.pk if before else 0, timezone.now().isoformat()]}
        try_model.delay(slot, actor(request).pk)
        return redirect("models-page")
    return render(request, "models.html", _context(requested))


def _context(requested: dict[str, list], error: str = "") -> dict[str, object]:
    slots = connections(embedding_model=current_model())
    calls = latest_calls({conn.slot: conn.model for conn in slots})
    rows = []
    for conn in slots:
        test = latest_purpose(conn.slot, TEST_PURPOSE)
        rows.append(
            SlotRow(
                connection=conn,
                words=SLOT_WORDS[conn.slot],
                local=is_local(conn.model),
                last_call=calls.get(conn.slot),
                last_test=test,
                test_state=_test_state(requested.get(conn.slot), test),
            )
        )
    return {"rows": rows, "refresh": any(row.test_state == "waiting" for row in rows), "error": error}


def _test_state(asked: list | None, test: ModelUsage | None) -> str:
    if asked is None or (test is not None and test.pk > int(asked[0])):
        return ""
    when = parse_datetime(str(asked[1]))
    return "waiting" if when is not None and timezone.now() - when < TEST_PATIENCE else "not run"
