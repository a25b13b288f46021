"""`evaluate discovery`: a footstep log replayed day by day over a folder's vault, through the real detection,
screening and formation, reports what each tier did and the calls spent per accepted suggestion."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from apps.evaluation.discovery import read_log
from apps.insights.models import Footstep
from apps.vaults.models import Vault
from tests.factories import make_note, make_user, make_vault

pytestmark = pytest.mark.django_db


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(10):
        (folder / f"Routine {i}.md").write_text(f"# Routine {i}\nThe weekly routine number {i} of the plant room.\n")
    (folder / "Heat pump sizing.md").write_text(
        "# Heat pump sizing\nA heat pump is sized from the house's heat loss on the coldest day.\n"
        "An oversized heat pump short-cycles.\n"
    )
    (folder / "Inbox.md").write_text("# Inbox\nThings to sort later.\n")
    return folder


def _log(tmp_path: Path) -> Path:
    lines: list[dict] = [{"emerging": ["Heat pump sizing.md"]}]
    for day in range(8):  # a quiet background: three questions a day over two routine notes each
        for i in range(3):
            q = f"q{day}-{i}"
            lines += [{"day": day, "note": f"Routine {(day + i + k) % 10}.md", "question": q} for k in range(2)]
    lines += [{"day": 5, "note": "Heat pump sizing.md", "question": f"heat{i}"} for i in range(10)]
    lines += [{"day": 6, "note": "Inbox.md", "question": f"inbox{i}"} for i in range(10)]
    lines += [{"day": 6, "note": "Heat pump sizing.md", "from": "Routine 3.md"}]
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_replayed_log_reports_each_tier_and_the_calls_per_accepted_suggestion(tmp_path):
    out = tmp_path / "discovery.json"
    stdout = io.StringIO()
    call_command(
        "evaluate",
        "discovery",
        "--notes",
        str(_folder(tmp_path)),
        "--log",
        str(_log(tmp_path)),
        "--warmup",
        "3",
        "--json",
        str(out),
        stdout=stdout,
        stderr=io.StringIO(),
    )
    report = json.loads(out.read_text())
    assert report["days"] == 5 and [d["day"] for d in report["per_day"]] == [3, 4, 5, 6, 7]
    day5, day6 = report["per_day"][2], report["per_day"][3]
    assert day5["candidates"] >= 1 and day5["screening_calls"] == 1
    assert day6["screening_calls"] == 1 and report["dropped"].get("generic", 0) >= 1  # the inbox's burst
    concepts = {c["label"]: c for c in report["concepts"]}
    assert concepts["Heat pump sizing"]["accepted"] and "Inbox" not in concepts
    assert report["accepted"] == 1 and report["emerging"] == 1
    screening_days = sum(1 for d in report["per_day"] if d["candidates"])
    assert report["screening_calls"] == screening_days  # one call per day with candidates
    assert report["formation_calls"] == report["formed"]  # one call per survivor
    # The day's insight cards are prepared too, within their budgets (one narrative call a day at most), and cost.
    assert report["cards_shown"] >= 1 and 1 <= report["card_calls"] <= report["days"]
    assert all(d["card_calls"] <= 1 and d["collision_calls"] <= 1 for d in report["per_day"])
    tiers = ("screening_calls", "formation_calls", "collision_calls", "card_calls")
    assert report["calls"] == sum(report[tier] for tier in tiers)
    assert report["calls_per_accepted"] == report["calls"]
    assert "per accepted suggestion" in stdout.getvalue()
    assert not Vault.objects.filter(name="discovery replay").exists()  # the replay's vault is torn down


def test_a_log_line_without_a_source_is_refused_with_its_line(tmp_path):
    log = tmp_path / "bad.jsonl"
    log.write_text('{"day": 0, "note": "Inbox.md", "question": "q1"}\n{"day": 1, "note": "Inbox.md"}\n')
    with pytest.raises(CommandError, match=r"bad\.jsonl:2"):
        call_command(
            "evaluate", "discovery", "--notes", str(_folder(tmp_path)), "--log", str(log), stdout=io.StringIO()
        )


def test_a_vaults_recorded_footsteps_export_as_a_log_the_replay_reads(tmp_path):
    vault = make_vault(make_user(), "Recorded")
    hub = make_note(vault, "Hub.md", "# Hub\nText.", embed=False)
    other = make_note(vault, "Other.md", "# Other\nSee [[Hub]].", embed=False)
    start = timezone.now() - timedelta(days=3)
    Footstep.objects.create(vault=vault, note=hub, at=start, origin="question", message_id=41)
    Footstep.objects.create(vault=vault, note=hub, at=start + timedelta(days=2), origin="link", from_note=other)
    log = tmp_path / "recorded.jsonl"
    export = ["--export-vault", str(vault.pk), "--write-log", str(log)]
    call_command("evaluate", "discovery", *export, stdout=io.StringIO())
    steps, emerging = read_log(log)
    assert [(s.day, s.note, s.question, s.from_note) for s in steps] == [
        (0, "Hub.md", "m41", None),
        (2, "Hub.md", None, "Other.md"),
    ]
    assert emerging == set()
