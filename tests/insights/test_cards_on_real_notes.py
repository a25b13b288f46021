"""What the insights cards say of a handful of real notes (the shared foam, Logseq and Obsidian vaults): an
import's first write is no rewrite, a task shown as syntax or named in a sentence is no open work, and two notes
that say the same thing do not disagree."""

from __future__ import annotations

import shutil

import pytest

from apps.insights.cards import cards_build, cards_write
from apps.librarian.services import reenrich
from tests.corpora import CORPORA
from tests.factories import api, import_folder, make_note

pytestmark = pytest.mark.django_db
FOAM = CORPORA / "foam-docs"
LOGSEQ = CORPORA / "logseq-docs"


def _shown(vault) -> dict[str, list[dict]]:  # type: ignore[no-untyped-def]
    cards_build(vault_id=vault.pk)
    cards_write(vault_id=vault.pk)
    response = api(vault.owner).get(f"/api/insights/?vault={vault.pk}")
    return {entry["kind"]: entry["cards"] for entry in response.json()["lists"]}


def test_an_imported_note_is_said_rewritten_only_once_its_text_changed(vault, tmp_path):
    folder = tmp_path / "Vault"
    shutil.copytree(CORPORA / "kepano-obsidian" / "Categories", folder, ignore=lambda _, names: sorted(names)[3:])
    import_folder(vault, folder, follow_up=False)

    first = _shown(vault)["recency"]
    assert len(first) == 3
    assert all(c["title"].endswith("is new") and " was imported on " in c["narrative"] for c in first), first

    edited = sorted(folder.iterdir())[0]
    edited.write_text(edited.read_text(encoding="utf-8") + "\nA line added since.\n", encoding="utf-8")
    import_folder(vault, folder, follow_up=False)  # the same source again: one file changed, two unchanged
    said = {c["title"]: c["narrative"] for c in _shown(vault)["recency"]}
    rewritten = [title for title, narrative in said.items() if " was rewritten on " in narrative]
    assert rewritten == [f"“{edited.stem}” changed"], said
    assert sum(" was imported on " in narrative for narrative in said.values()) == 2, said


def test_open_work_is_tasks_not_task_syntax_or_sentences_about_tasks(vault):
    for path in [  # task syntax in code blocks, sentences naming TODOs, Logseq's example tasks
        "user/recipes/predefined-user-snippets.md",
        "user/features/templates.md",
        "user/features/daily-notes.md",
        "user/getting-started/installation.md",
        "user/getting-started/recommended-extensions.md",
        "user/features/wikilinks.md",
    ]:
        make_note(vault, path, (FOAM / path).read_text(encoding="utf-8-sig"), embed=False)
    for name in ["Tasks.md", "Namespaces.md"]:
        make_note(vault, f"pages/{name}", (LOGSEQ / "pages" / name).read_text(encoding="utf-8"), embed=False)

    (card,) = _shown(vault)["actionability"]
    assert card["title"] == "Open work in “Namespaces”"
    assert card["narrative"].startswith(
        "“Namespaces” holds 1 open task, such as “Document this feature. Close "
        "https://github.com/logseq/docs/issues/58 when done #docs”."
    )


def test_notes_that_say_the_same_are_no_contradiction(vault):
    for path in [  # two pairs the model-free Librarian's contrastive sentences once matched as disagreeing
        "index.md",
        "user/getting-started/get-started-with-vscode.md",
        "user/recipes/migrating-from-obsidian.md",
        "user/getting-started/first-workspace.md",
    ]:
        make_note(vault, path, (FOAM / path).read_text(encoding="utf-8-sig"), embed=False)
    reenrich(vaults=[vault], everything=True)

    assert _shown(vault)["contradiction"] == []
