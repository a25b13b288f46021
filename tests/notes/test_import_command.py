"""`manage.py import_vault` on a real vault, its output going into a log rather than a terminal."""

from __future__ import annotations

import io
import re
import time

import pytest
from django.core.management import call_command

from apps.core.progress import IN_A_LOG
from apps.notes.models import Note
from tests.corpora import CORPORA

pytestmark = pytest.mark.django_db(transaction=True)

DONE = re.compile(r"\| (\d+)/(\d+) \[")


def test_an_import_written_into_a_log_keeps_a_line_every_few_seconds_and_ends_with_the_full_counts(
    owner, vault, capsys
):
    folder = CORPORA / "foam-docs"
    stdout = io.StringIO()

    started = time.monotonic()
    call_command("import_vault", str(folder), vault=str(vault.pk), user=owner.username, stdout=stdout)
    took = time.monotonic() - started

    bars = [line for line in re.split(r"[\r\n]", capsys.readouterr().err) if line.startswith("importing ")]
    reading = [line for line in bars if "reading files" in line]
    embedding = [line for line in bars if "embedding chunks" in line]
    # a log holds each phase's first and last state and a line per interval between, not one per file or chunk
    assert len(bars) <= 4 + took / IN_A_LOG, bars
    done, total = map(int, DONE.search(reading[-1]).groups())
    assert done == total == Note.objects.filter(vault=vault).count() + len(re.findall(r"skipped", stdout.getvalue()))
    done, total = map(int, DONE.search(embedding[-1]).groups())
    assert done == total > 100
