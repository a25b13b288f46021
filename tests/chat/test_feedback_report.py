"""Staff audit what the team's votes say about each note: confirmations, uses, rejections, corrections, the last
signal and the trend, on a page and as CSV, read-only; nobody else sees it."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from apps.chat.models import ContextItem
from apps.feedback.models import Feedback
from apps.feedback.report import feedback_report_csv, note_feedback_report
from apps.notes.models import Correction, Note
from tests.factories import api, make_user, make_vault, share

pytestmark = pytest.mark.django_db

QUESTION = "What is a PTW and when do I need one?"


@pytest.fixture
def staff_client() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("report-reader", password="x-long-password-1"))
    return client


def _vote(user, item_id, signal, text="", status=201):
    response = api(user).post(
        "/api/feedback/", {"context_item": item_id, "signal": signal, "text": text}, format="json"
    )
    assert response.status_code == status, response.content


def _two_notes_shown(sample):
    helpful, weak = list(_shown(sample.owner, sample).values())[:2]
    return helpful, weak


def _shown(user, vault):
    """note → the first item of it `user` was shown for QUESTION."""
    reply = api(user).post("/api/chat/", {"vaults": [vault.pk], "message": QUESTION}, format="json").json()
    firsts: dict[int, dict] = {}
    for item in reply["context"] + reply["candidates"]:
        firsts.setdefault(item["note"], item)
    return firsts


def _rows_by_note(rows):
    return {row.note: row for row in rows}


def test_the_report_counts_votes_and_corrections_per_note_with_their_trend(sample, staff_client, monkeypatch):
    helpful, weak = _two_notes_shown(sample)
    first_reader, second_reader = make_user("report-reader-1"), make_user("report-reader-2")
    share(sample, "reader", user=first_reader)
    share(sample, "reader", user=second_reader)
    theirs, others = _shown(first_reader, sample), _shown(second_reader, sample)
    _vote(sample.owner, helpful["id"], "used")
    _vote(sample.owner, helpful["id"], "confirm")  # one choice per person: the confirm replaces the use
    _vote(sample.owner, helpful["id"], "confirm", status=200)  # pressed twice: one vote
    _vote(first_reader, theirs[helpful["note"]]["id"], "used")
    _vote(sample.owner, weak["id"], "reject")
    _vote(sample.owner, weak["id"], "not_relevant")
    weak_item = ContextItem.objects.get(pk=weak["id"])
    _vote(sample.owner, weak["id"], "correct", text="The permit is issued by facilities, not the helpdesk.")
    _vote(second_reader, others[weak["note"]]["id"], "not_relevant")
    # the first reader's rejection was given six weeks ago: the window before the last thirty days (a vote, once
    # given, is never edited: its time is the clock's when it was given)
    six_weeks_ago = timezone.now() - timedelta(days=42)
    monkeypatch.setattr(timezone, "now", lambda: six_weeks_ago)
    _vote(first_reader, theirs[weak["note"]]["id"], "reject")
    monkeypatch.undo()
    assert Feedback.objects.filter(user=sample.owner, withdrawn_at__isnull=False).count() == 3  # replaced

    staff = User.objects.get(username="report-reader")
    rows = _rows_by_note(note_feedback_report(user=staff))
    good, bad = rows[helpful["note"]], rows[weak["note"]]
    assert (good.confirms, good.used, good.rejections, good.corrections) == (1, 1, 0, 0)
    assert (good.net_recent, good.net_before, good.trend) == (2, 0, "better")
    assert (bad.confirms, bad.used, bad.rejections, bad.corrections) == (0, 0, 2, 1)
    assert (bad.net_recent, bad.net_before, bad.trend) == (-2, -1, "worse")
    assert Correction.objects.get(note_id=weak["note"]).status == "applied"
    assert bad.path == weak_item.path and bad.vault == sample.name
    last_vote = Feedback.objects.filter(context_item_id=weak["id"]).order_by("-created_at").first()
    assert bad.last_signal_at >= last_vote.created_at
    assert list(rows).index(bad.note) < list(rows).index(good.note)  # the weakest note comes first

    page = staff_client.get("/admin/feedback-report/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.index(f'data-note="{bad.note}"') < html.index(f'data-note="{good.note}"')
    assert bad.path in html and good.path in html and "worse" in html and "better" in html
    assert "facilities" not in html and weak_item.text[:60] not in html  # counts, not what was said or shown
    assert "/admin/feedback-report/" in staff_client.get("/admin/").content.decode()  # reachable from the index


def test_the_csv_download_holds_the_page_s_rows(sample, staff_client):
    helpful, weak = _two_notes_shown(sample)
    _vote(sample.owner, helpful["id"], "confirm")
    _vote(sample.owner, weak["id"], "not_useful")

    download = staff_client.get("/admin/feedback-report.csv")
    assert download.status_code == 200 and download["Content-Type"].startswith("text/csv")
    assert "attachment" in download["Content-Disposition"]
    table = list(csv.DictReader(io.StringIO(download.content.decode())))
    staff = User.objects.get(username="report-reader")
    rows = note_feedback_report(user=staff)
    assert [int(line["note"]) for line in table] == [row.note for row in rows]
    assert download.content.decode() == feedback_report_csv(rows)
    by_note = {int(line["note"]): line for line in table}
    assert by_note[weak["note"]]["rejections"] == "1" and by_note[weak["note"]]["trend"] == "worse"
    assert by_note[helpful["note"]]["confirms"] == "1" and by_note[helpful["note"]]["path"] == helpful["path"]

    # narrowed to one vault: its notes only, on the page and in the download
    other = make_vault(make_user(), "Quiet vault")
    narrowed = staff_client.get(f"/admin/feedback-report.csv?vault={sample.pk}").content.decode()
    assert narrowed == feedback_report_csv(note_feedback_report(user=staff, vault_id=sample.pk))
    assert {line["vault_id"] for line in csv.DictReader(io.StringIO(narrowed))} == {str(sample.pk)}
    quiet = staff_client.get(f"/admin/feedback-report.csv?vault={other.pk}").content.decode()
    assert list(csv.DictReader(io.StringIO(quiet))) == []
    page = staff_client.get(f"/admin/feedback-report/?vault={other.pk}").content.decode()
    assert "No note has been voted on or corrected yet." in page and f"?vault={other.pk}" in page
    assert staff_client.get("/admin/feedback-report/?vault=%C2%B2").status_code == 200  # not an id: every vault


def test_a_title_that_looks_like_a_formula_is_not_run_by_a_spreadsheet(sample, staff_client):
    helpful, _ = _two_notes_shown(sample)
    _vote(sample.owner, helpful["id"], "confirm")
    Note.objects.filter(pk=helpful["note"]).update(title='=HYPERLINK("http://x.example","y")')
    table = list(csv.DictReader(io.StringIO(staff_client.get("/admin/feedback-report.csv").content.decode())))
    title = next(line["title"] for line in table if int(line["note"]) == helpful["note"])
    assert title == '\'=HYPERLINK("http://x.example","y")'


def test_only_staff_who_observe_notes_see_the_report_and_nothing_is_changed_there(sample, staff_client):
    helpful, _ = _two_notes_shown(sample)
    _vote(sample.owner, helpful["id"], "confirm")
    reader, staff_without_rights = make_user(), make_user()
    staff_without_rights.is_staff = True
    staff_without_rights.save()
    for url in ("/admin/feedback-report/", "/admin/feedback-report.csv"):
        anonymous = Client().get(url)
        assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
        signed_in = Client()
        signed_in.force_login(reader)  # the vault's own owner is no exception: not staff
        assert signed_in.get(url).status_code == 302
        owner = Client()
        owner.force_login(sample.owner)
        assert owner.get(url).status_code == 302
        no_rights = Client()
        no_rights.force_login(staff_without_rights)
        assert no_rights.get(url).status_code == 403
        assert staff_client.post(url, {"note": helpful["note"]}).status_code == 405
    html = staff_client.get("/admin/feedback-report/").content.decode()
    forms = re.findall(r"<form[^>]*>", html)
    assert all('action="/admin/logout/"' in form for form in forms), forms  # the admin's sign-out only
    assert "<input" not in html.split('id="feedback-report"', 1)[1]
