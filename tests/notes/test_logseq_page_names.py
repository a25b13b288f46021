"""A real Logseq page (logseq-docs, from /work/shared/corpora) saved as `pages/a___b.md` is the namespaced page
`a/b`: named so, and the page its `[[a/b]]` links open."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from apps.notes.models import Note, NoteLink
from tests.corpora import CORPORA
from tests.factories import import_folder, make_user, make_vault

pytestmark = pytest.mark.django_db

LOGSEQ = CORPORA / "logseq-docs"


def _import(tmp_path: Path, *paths: str):
    for path in paths:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(LOGSEQ / path, tmp_path / path)
    vault = make_vault(make_user(), "logseq")
    assert import_folder(vault, tmp_path).status == "succeeded"
    return vault


def test_a_namespaced_page_is_named_and_linked_as_logseq_shows_it(tmp_path):
    vault = _import(
        tmp_path,
        "pages/Tasks.md",
        "pages/setting___enable timetracking.md",
        "pages/Whiteboard___Action Bar___Reload.md",
    )
    setting = Note.objects.get(vault=vault, path="pages/setting___enable timetracking.md")
    assert setting.title == "setting/enable timetracking"
    assert Note.objects.get(vault=vault, path="pages/Whiteboard___Action Bar___Reload.md").title == (
        "Whiteboard/Action Bar/Reload"
    )
    link = NoteLink.objects.get(source__path="pages/Tasks.md", target_text="setting/enable timetracking")
    assert link.target == setting
