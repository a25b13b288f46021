"""`manage.py import_vault` on a real vault, its output going into a log rather than a terminal."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command

from apps.core.progress import IN_A_LOG
from apps.notes.models import Note
from tests.corpora import CORPORA

pytestmark = pytest.mark.django_db(transaction=True)

DONE = re.compile(r"\| (\d+)/(\d+) \[")
ELAPSED = re.compile(r"\[(\d+):(\d\d)")


def _bars(lines: list[str]) -> list[list[int]]:
    """The seconds each drawing of each bar shows as elapsed, one list per bar (a new bar starts again from 0)."""
    bars: list[list[int]] = []
    for line in lines:
        found = ELAPSED.search(line)
        seconds = int(found.group(1)) * 60 + int(found.group(2)) if found else 0
        if not bars or seconds < bars[-1][-1] or " 0file " in line or " 0chunk " in line:
            bars.append([])
        bars[-1].append(seconds)
    return bars


def test_an_import_written_into_a_log_draws_each_bar_every_few_seconds_and_ends_with_the_full_counts(
    owner, vault, capsys
):
    folder = CORPORA / "foam-docs"
    stdout = io.StringIO()

    call_command("import_vault", str(folder), vault=str(vault.pk), user=owner.username, stdout=stdout)

    lines = [line for line in re.split(r"[\r\n]", capsys.readouterr().err) if line.startswith("importing ")]
    # a log holds each bar's first and last drawing and, between them, one per interval, not one per file or chunk
    for drawn in _bars(lines):
        between = drawn[1:-1]
        gaps = [later - earlier for earlier, later in zip(drawn, between, strict=False)]
        assert all(gap >= IN_A_LOG - 1 for gap in gaps), (drawn, lines)  # the clock shows whole seconds
    reading = [line for line in lines if "reading files" in line]
    embedding = [line for line in lines if "embedding chunks" in line]
    done, total = map(int, DONE.search(reading[-1]).groups())
    assert done == total == Note.objects.filter(vault=vault).count() + len(re.findall(r"skipped", stdout.getvalue()))
    done, total = map(int, DONE.search(embedding[-1]).groups())
    assert done == total > 100
    assert len(lines) < total / 10
