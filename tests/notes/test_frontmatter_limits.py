"""Frontmatter that cannot be stored or would expand past any sensible size: a clear refusal for the writer, a
recorded reason for an import, never a server error nor a failed import."""

from __future__ import annotations

import io
import zipfile

import pytest

from apps.notes.markdown import NoteFormatError, parse_note
from apps.notes.models import FileOutcome, ImportStatus, Note
from apps.notes.services.ingest import import_job_create, import_job_run
from tests.factories import api


def _laughs(levels: int, width: int) -> str:
    """Nine lines of aliases that name width**levels strings (the billion laughs)."""
    names = "abcdefghijklmnop"
    lines = [f"a: &a [{','.join(['lol'] * width)}]"]
    lines += [f"{names[i]}: &{names[i]} [{','.join(['*' + names[i - 1]] * width)}]" for i in range(1, levels)]
    return "\n".join(lines)


ALIAS_BOMB = _laughs(9, 9)  # 9**9 strings from 72 aliases
WIDE_BOMB = _laughs(5, 12)  # 12**5 strings from only 48 aliases
SELF_HOLDING = "a: &a [*a]"  # a list that holds itself
DEEP = "a: " + "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    ("frontmatter", "reason"),
    [(ALIAS_BOMB, "aliases"), (WIDE_BOMB, "values"), (SELF_HOLDING, "nested"), (DEEP, "nested")],
    ids=["aliases", "wide", "self-holding", "deep"],
)
def test_frontmatter_that_would_explode_is_dropped_and_the_note_kept(frontmatter, reason):
    note = parse_note("Bomb.md", f"---\n{frontmatter}\n---\n# Kept\nThe body survives.\n")

    assert note.frontmatter == {}
    assert reason in note.frontmatter_refused
    assert note.title == "Kept" and "The body survives." in note.body


def test_escaped_surrogate_pairs_become_their_character_and_unstorable_text_is_refused():
    assert parse_note("x.md", '---\ntitle: "\\ud83c\\udf5e"\n---\nbody').title == "🍞"
    assert parse_note("x.md", '---\ntags: ["\\ud83c\\udf5e"]\n"\\ud83c\\udf5e": 1\n---\n').frontmatter == {
        "tags": ["🍞"],
        "🍞": 1,
    }
    with pytest.raises(NoteFormatError, match="lone surrogate"):
        parse_note("x.md", '---\ntitle: "\\ud83c"\n---\nbody')
    with pytest.raises(NoteFormatError, match="NUL"):
        parse_note("x.md", '---\ntitle: "a\\0b"\n---\nbody')
    impossible = parse_note("x.md", "---\ndate: 2020-13-45\n---\nbody")  # kept, its body read as Obsidian does
    assert impossible.frontmatter == {} and "month" in impossible.frontmatter_refused
    assert parse_note("x.md", "---\nweight: .inf\n---\nbody").frontmatter == {"weight": "inf"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("frontmatter", "message"),
    [
        ('title: "\\ud83c"', "lone surrogate"),
        ('title: "a\\0b"', "NUL"),
        ("created: 2020-13-45", "month must be in 1..12"),
        (ALIAS_BOMB, "aliases"),
    ],
    ids=["lone-surrogate", "nul", "bad-date", "alias-bomb"],
)
def test_the_api_refuses_unstorable_frontmatter_with_a_reason(vault, frontmatter, message):
    client = api(vault.owner)
    body = f"---\n{frontmatter}\n---\ntext"
    made = client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "Bad.md", "body": body}, format="json")
    assert made.status_code == 400 and message in str(made.json())
    assert not Note.objects.filter(vault=vault).exists()

    kept = client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "Kept.md", "body": "# Kept"}, format="json")
    updated = client.put(f"/api/notes/{kept.json()['id']}/", {"body": body}, format="json")
    assert updated.status_code == 400 and message in str(updated.json())
    assert Note.objects.get(vault=vault).body == "# Kept"


@pytest.mark.django_db
def test_the_api_stores_an_escaped_emoji_title_as_the_emoji(vault):
    body = '---\ntitle: "\\ud83c\\udf5e bread"\n---\ntext'
    made = api(vault.owner).post(f"/api/vaults/{vault.pk}/notes/", {"path": "Bread.md", "body": body}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["title"] == "🍞 bread"


@pytest.mark.django_db
def test_a_zip_import_skips_only_the_files_it_cannot_store(vault):
    # The first batch of files holds the unstorable ones: every note after them is imported too.
    good = {f"Vault/Note {i:03}.md": f"# Note {i}\nsee [[Note {i + 1:03}]]\n".encode() for i in range(66)}
    bad = {
        "Vault/Lone.md": b'---\ntitle: "\\ud83c"\n---\nhalf an emoji\n',
        "Vault/Nul escape.md": b'---\ntitle: "a\\0b"\n---\ntext\n',
        "Vault/Late nul.md": b"# Late\n" + b"words " * 2000 + b"\x00 after the first 8 KiB\n",
        "Vault/Bad date.md": b"---\ncreated: 2020-13-45\n---\ntext\n",
    }
    bomb = f"---\n{ALIAS_BOMB}\n---\n# Bomb\nthe body stays\n".encode()
    entries = dict(list(good.items())[:40]) | bad | {"Vault/Bomb.md": bomb} | dict(list(good.items())[40:])
    entries["Vault/Emoji.md"] = b'---\ntitle: "\\ud83c\\udf5e"\n---\nbread\n'
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)

    job = import_job_run(job_id=import_job_create(actor=vault.owner, vault=vault, archive=buffer.getvalue()).pk)

    assert job.status == ImportStatus.SUCCEEDED, job.error
    result = {f.path: (f.outcome, f.reason) for f in job.files.all()}
    assert result["Lone.md"] == (FileOutcome.SKIPPED, result["Lone.md"][1]) and "surrogate" in result["Lone.md"][1]
    assert result["Nul escape.md"][0] == FileOutcome.SKIPPED and "NUL" in result["Nul escape.md"][1]
    assert result["Late nul.md"][0] == FileOutcome.SKIPPED and "NUL" in result["Late nul.md"][1]
    assert result["Bad date.md"][0] == FileOutcome.CREATED and "month" in result["Bad date.md"][1]
    assert result["Bomb.md"][0] == FileOutcome.CREATED and "aliases" in result["Bomb.md"][1]
    stored = Note.objects.filter(vault=vault)
    assert stored.count() == len(good) + 3
    assert stored.get(path="Bomb.md").frontmatter == {} and "the body stays" in stored.get(path="Bomb.md").body
    assert stored.get(path="Emoji.md").title == "🍞"
