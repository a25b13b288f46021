"""A Logseq block reference shows the referenced block's text on the page; its passages say what the page says, so
search and answers read "Time tracker" where the page shows it, never a UUID, and follow the block when it changes."""

from __future__ import annotations

import re

import pytest

from apps.notes.models import Chunk, Note
from apps.notes.services.notes import note_delete, note_update
from apps.notes.services.rereading import notes_reread
from apps.retrieval.search import hybrid_search
from apps.vaults.scope import scope_for
from tests.corpora import CORPORA
from tests.factories import import_folder, make_note, make_user, make_vault

pytestmark = pytest.mark.django_db
TIME_TRACKER = "60af74c1-62f8-434a-827c-abc6d2a71734"
TIMETRACKING = "pages/setting___enable timetracking.md"


def _passages(note: Note) -> str:
    return "\n".join(Chunk.objects.filter(note_id=note.pk).order_by("ordinal").values_list("text", flat=True))


@pytest.fixture
def logseq_docs():
    corpus = CORPORA / "logseq-docs"
    assert corpus.is_dir(), f"the real vaults are not at {CORPORA} (set DESIREPATH_CORPORA)"
    vault = make_vault(make_user("logseq-reader"), "logseq")
    import_folder(vault, corpus, source="logseq", follow_up=False)
    return vault


def test_passages_of_a_real_logseq_graph_show_the_blocks_they_refer_to(logseq_docs):
    setting = Note.objects.get(vault=logseq_docs, path=TIMETRACKING)
    assert f"(({TIME_TRACKER}))" in setting.body
    assert _passages(setting) == (
        "- Logseq has built in Time tracker enabled by default, and you can disable it from `Settings` page"
    )
    # a labelled reference reads as its label; across the graph, only references to blocks no note declares are
    # left as written (the page marks those as missing blocks)
    declared = {block for note in Note.objects.filter(vault=logseq_docs) for block in note.block_ids}
    for chunk in Chunk.objects.filter(vault=logseq_docs, text__contains="(("):
        for block in re.findall(r"\(\(([0-9a-f-]{36})\)\)", chunk.text):
            assert block not in declared, (chunk.note.path, block)
    # and the page is found by the words it shows
    hits = hybrid_search(scope=scope_for(logseq_docs.owner), query="time tracker enabled by default", k=5).hits
    assert TIMETRACKING in [hit.path for hit in hits[:3]], [hit.path for hit in hits]


def test_a_passage_follows_the_block_it_shows_when_that_block_is_edited_or_deleted(logseq_docs):
    owner = logseq_docs.owner
    tasks = Note.objects.get(vault=logseq_docs, path="pages/Tasks.md")
    setting = Note.objects.get(vault=logseq_docs, path=TIMETRACKING)

    note_update(actor=owner, note=tasks, body=tasks.body.replace("### Time tracker", "### Time log"))
    assert "Time tracker" in _passages(setting)  # the sweep reads it again, not the edit's request
    assert notes_reread() >= 1
    assert "built in Time log enabled by default" in _passages(setting)

    note_delete(actor=owner, note=Note.objects.get(pk=tasks.pk))
    notes_reread()
    assert f"built in (({TIME_TRACKER})) enabled" in _passages(setting)


def test_a_reference_in_code_or_to_another_vault_stays_as_written():
    owner = make_user("writer")
    mine, theirs = make_vault(owner, "mine"), make_vault(make_user("other"), "theirs")
    block = "64a0c0de-1111-4222-8333-944455556666"
    make_note(theirs, "pages/Secret.md", f"- The launch date is May 3\n  id:: {block}\n", embed=False)
    make_note(mine, "pages/Holder.md", f"- Deploy on Fridays\n  id:: {block}\n", embed=False)
    referrer = make_note(mine, "pages/Ref.md", f"- We agreed: (({block}))\n- Write it as `(({block}))`\n", embed=False)
    text = _passages(referrer)
    assert "We agreed: Deploy on Fridays" in text  # its own vault's block, never the other vault's
    assert f"Write it as `(({block}))`" in text
    assert "launch date" not in text


def test_a_note_written_before_the_block_it_shows_reads_it_once_the_block_is_written():
    owner = make_user("outliner")
    vault = make_vault(owner, "outline")
    block = "64a0c0de-2222-4222-8333-944455556666"
    referrer = make_note(vault, "pages/Plan.md", f"- Next: (({block}))\n", embed=False)
    assert f"(({block}))" in _passages(referrer)
    make_note(vault, "pages/Ideas.md", f"- Ship the sync rewrite\n  id:: {block}\n", embed=False)
    notes_reread()
    assert _passages(referrer) == "- Next: Ship the sync rewrite"
