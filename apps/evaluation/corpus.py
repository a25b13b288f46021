"""Turn evaluation data into Markdown and import it through the real import service into a fresh vault."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import User
from django.db import transaction

from apps.evaluation.locomo import Conversation
from apps.evaluation.metrics import Item
from apps.graph.services import graph_extract_pending
from apps.llm.gateway import tokens_of
from apps.notes.hooks import imported
from apps.notes.markdown import frontmatter_block
from apps.notes.models import Attachment, Chunk, ImportStatus
from apps.notes.services.ingest import import_job_create, import_job_run
from apps.vaults.models import Vault
from apps.vaults.services import vault_create


@dataclass
class IngestedVault:
    vault: Vault
    items: dict[int, Item]  # chunk id → the turns (or note path) it carries
    notes: int
    chunks: int


def _turn_line(speaker: str, text: str) -> str:
    return f"{speaker}: {text}"


def write_conversation(conv: Conversation, folder: Path, unit: str) -> None:
    """One note per turn (dia_id in frontmatter, session date prefixed) or one note per session."""
    for number, turns in sorted(conv.sessions.items()):
        date = turns[0].date
        if unit == "turns":
            for turn in turns:
                path = folder / f"session_{number:02d}" / f"{turn.dia_id.replace(':', '-')}.md"
                path.parent.mkdir(parents=True, exist_ok=True)
                front = {"title": turn.speaker, "dia_id": turn.dia_id, "session": number, "date": date}
                path.write_text(
                    frontmatter_block(front) + f"{date}: {_turn_line(turn.speaker, turn.text)}\n", encoding="utf-8"
                )
        else:
            lines = "\n\n".join(_turn_line(t.speaker, t.text) for t in turns)
            front = {"title": f"Session {number}, {date}", "dia_ids": [t.dia_id for t in turns]}
            (folder / f"session_{number:02d}.md").write_text(frontmatter_block(front) + f"{lines}\n", encoding="utf-8")


def _turn_items(vault: Vault, conv: Conversation | None) -> dict[int, Item]:
    items: dict[int, Item] = {}
    lines = {t.dia_id: _turn_line(t.speaker, t.text)[:80] for t in conv.turns} if conv else {}
    for chunk in Chunk.objects.filter(vault=vault).select_related("note"):
        matter = chunk.note.frontmatter
        if "dia_id" in matter:
            turns: tuple[str, ...] = (str(matter["dia_id"]),)
        elif "dia_ids" in matter:  # a session note: the turns whose text this chunk holds
            turns = tuple(d for d in matter["dia_ids"] if lines.get(d, "\0") in chunk.text)
        else:
            turns = (chunk.note.path,)
        items[chunk.pk] = Item(turns=turns, tokens=tokens_of(chunk.text))
    return items


def ingest_folder(
    owner: User, name: str, folder: Path, conv: Conversation | None = None, *, graph: bool = True
) -> IngestedVault:
    vault = vault_create(owner=owner, name=name)
    job = import_job_create(actor=owner, vault=vault, folder=str(folder), source="evaluation")
    # The import's follow-up steps are not queued: a worker of the running platform would take them up against a
    # vault that is being measured, or gone once the evaluation tears it down; what the walk needs is built here.
    with imported.muted():
        job = import_job_run(job_id=job.pk)
    if job.status != ImportStatus.SUCCEEDED:
        raise RuntimeError(f"import of {name} failed: {job.error}")
    if graph:  # the worker's follow-up, here: the walk needs the graph at once
        graph_extract_pending(vault_id=vault.pk)
    items = _turn_items(vault, conv)
    return IngestedVault(vault=vault, items=items, notes=job.counts.get("created", 0), chunks=len(items))


def ingest_conversation(owner: User, conv: Conversation, unit: str) -> IngestedVault:
    with tempfile.TemporaryDirectory(prefix="desirepath-eval-") as tmp:
        write_conversation(conv, Path(tmp), unit)
        return ingest_folder(owner, f"eval {conv.sample_id} ({unit})", Path(tmp), conv)


@transaction.atomic
def teardown(owner: User) -> None:
    """Remove the eval user's vaults (notes, chunks, links, jobs cascade) and the user (with its shares).
    The audit log keeps its rows: it is append-only."""
    vaults = list(Vault.objects.filter(owner=owner))
    for vault in vaults:
        Attachment.objects.filter(vault=vault).delete()  # their blobs are protected while an attachment points there
        vault.delete()
    owner.delete()
