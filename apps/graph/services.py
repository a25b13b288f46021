"""Writing a note's extraction into its vault's graph, idempotently: a note is re-read only when its content or
the extractor changed; its mentions and facts are replaced, entities and edges are shared and kept (their
learned weights are never reset by re-extraction)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db import connection, transaction

from apps.core.local_models import is_local
from apps.core.text import STOP
from apps.graph.conversation import folder_of, replies_refresh, speakers_of
from apps.graph.doors import term_counts_refresh
from apps.graph.extract import KIND_RANK, WORD, Extracted, NoteText, extract_model_free
from apps.graph.extract_model import extract_with_model
from apps.graph.models import (
    LADDER,
    Aspect,
    Attribute,
    Dependency,
    Entity,
    Extraction,
    Mention,
    Reason,
    TermCount,
)
from apps.notes.models import Chunk, LinkKind, Note, NoteStep, Tier
from apps.notes.services.failures import step_held, step_run
from apps.notes.turns import SPEAKER, speakers
from apps.retrieval.significance import significance
from apps.vaults.chat_settings import parse
from apps.vaults.models import Vault

# /2: a "must" said in a conversation turn is a fact, not a rule; /3: no months, weekdays or a turn's first word
# taken for names; /4: who speaks in each passage
EXTRACTOR = "local/model-free-extractor/4"
MODEL_NOTES_PER_RUN = 200
TRIVIAL_CHARS = 160  # shorter notes pass the significance check first: chatter yields no graph at all


def extractor_for(vault: Vault) -> str:
    """The vault's reasoning model when it names one and the Librarian is on, else the model-free extractor."""
    cfg = parse(vault.chat_settings)
    model = cfg.model_for("reasoning")
    return EXTRACTOR if is_local(model) or not cfg.switches["librarian"] else model


def note_text(note: Note, chunks: list[Chunk]) -> NoteText:
    # A block reference's target_text is a uuid, no name of a thing.
    links = list(note.outgoing_links.exclude(kind=LinkKind.BLOCK).values_list("target_text", flat=True))
    return NoteText(note.title, note.provenance, links, list(note.tags), [(c.heading, c.text) for c in chunks])


def _trivial(note: Note) -> bool:
    """Chatter: a short note of a few content words that reads as casual ("haha nice, thanks!")."""
    body = note.body.strip()
    if len(body) >= TRIVIAL_CHARS:
        return False
    last = body.splitlines()[-1] if body else ""
    text = (SPEAKER.sub("", last) if speakers(body) else last).strip()  # a turn's words, a label's line whole
    words = [w for w in WORD.findall(text) if w.lower() not in STOP]
    return len(words) <= 1 or (len(words) <= 4 and not significance(text).significant)


def graph_extract_note(*, note: Note, force: bool = False) -> Extraction:
    """Extract one note into its vault's graph (skipped when nothing changed, unless `force`)."""
    done = Extraction.objects.filter(note=note).first()
    writer = extractor_for(note.vault)
    if done and not force and done.content_hash == note.content_hash and done.model == writer:
        return done
    chunks = list(Chunk.objects.filter(note=note, tier=Tier.HOT).order_by("ordinal"))
    trivial = note.tier != Tier.HOT or _trivial(note)
    extracted: Extracted | None = Extracted(level="skipped") if trivial else None
    if extracted is None and writer != EXTRACTOR:
        extracted = extract_with_model(note_text(note, chunks), model=writer, vault_id=note.vault_id)
    if extracted is None:  # local, or the model's reply was malformed or never came: model-free, and says so
        extracted, writer = extract_model_free(note_text(note, chunks)), EXTRACTOR
    with transaction.atomic():
        Mention.objects.filter(note=note).delete()
        Attribute.objects.filter(note=note).delete()
        ids = _entities(note.vault_id, extracted)
        _write(note, chunks, extracted, ids)
        row, _ = Extraction.objects.update_or_create(
            note=note,
            defaults={
                "vault_id": note.vault_id,
                "content_hash": note.content_hash,
                "model": writer,
                "level": extracted.level,
                "entities": len(extracted.entities),
            },
        )
    return row


def graph_extract_step(*, note: Note, force: bool = False, model: str = "") -> Extraction | None:
    """`graph_extract_note` as a sweep's step: a failure is recorded against the note (None), not raised."""
    return step_run(
        note=note,
        step=NoteStep.GRAPH_EXTRACTION,
        model=model or extractor_for(note.vault),
        run=lambda: graph_extract_note(note=note, force=force),
    )


def _entities(vault_id: int, extracted: Extracted) -> dict[str, int]:
    rows = [Entity(vault_id=vault_id, name=f.name[:300], key=key, kind=f.kind) for key, f in extracted.entities.items()]
    Entity.objects.bulk_create(rows, ignore_conflicts=True)
    people = [key for key, f in extracted.entities.items() if f.kind == "person"]
    if people:  # named before they first spoke: a thing until now
        found_as = Entity.objects.filter(vault_id=vault_id, key__in=people, kind__in=KIND_RANK)
        found_as.exclude(kind="person").update(kind="person")
    found = Entity.objects.filter(vault_id=vault_id, key__in=list(extracted.entities))
    return dict(found.values_list("key", "id"))


def _write(note: Note, chunks: list[Chunk], extracted: Extracted, ids: dict[str, int]) -> None:
    vault_id = note.vault_id
    for key, name in extracted.aspects:
        Aspect.objects.get_or_create(vault_id=vault_id, entity_id=ids[key], name=name)
    spoken_by = speakers("\n".join(chunk.text for chunk in chunks))
    said = [speakers_of(chunk.text, spoken_by) for chunk in chunks]
    Mention.objects.bulk_create(
        [
            Mention(vault_id=vault_id, entity_id=ids[k], note=note, chunk=chunks[i], said=k in said[i])
            for k, i in extracted.mentions
        ],
        ignore_conflicts=True,
    )
    facts = [
        Attribute(vault_id=vault_id, entity_id=ids[k], kind=kind, text=text, note=note, chunk=chunks[i])
        for k, kind, text, i in extracted.facts
    ]
    Attribute.objects.bulk_create(facts)
    edges = {}
    for source, target, kind, reason in extracted.edges:
        a, b = ids[source], ids[target]
        if a == b:
            continue
        if kind == "co_mentioned" and a > b:  # undirected: one row per pair
            a, b = b, a
        edges[(a, b, kind)] = reason
    _upsert_edges(vault_id, edges)
    _bridges(vault_id, facts)


def _upsert_edges(vault_id: int, edges: dict[tuple[int, int, str], str]) -> None:
    """New edges enter at the ladder's confidence for their reason; an edge seen in a second note climbs from
    single- to multi-memory (unless feedback has already moved it)."""
    Dependency.objects.bulk_create(
        [
            Dependency(vault_id=vault_id, source_id=a, target_id=b, kind=kind, reason=r, confidence=LADDER[Reason(r)])
            for (a, b, kind), r in edges.items()
        ],
        ignore_conflicts=True,
    )
    pairs = [(a, b) for (a, b, kind) in edges if kind == "co_mentioned"]
    if not pairs:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE graph_dependency d SET evidence = ev.notes,
                reason = CASE WHEN ev.notes > 1 AND d.reason = 'single-memory' THEN 'multi-memory' ELSE d.reason END,
                confidence = CASE WHEN ev.notes > 1 AND d.reason = 'single-memory' THEN 0.9 ELSE d.confidence END
            FROM (
                SELECT p.a, p.b, count(DISTINCT m1.note_id) AS notes
                FROM unnest(%(a)s::bigint[], %(b)s::bigint[]) AS p(a, b)
                JOIN graph_mention m1 ON m1.entity_id = p.a AND m1.vault_id = %(vault)s
                JOIN graph_mention m2 ON m2.entity_id = p.b AND m2.chunk_id = m1.chunk_id
                GROUP BY p.a, p.b
            ) ev
            WHERE d.vault_id = %(vault)s AND d.kind = 'co_mentioned' AND d.source_id = ev.a AND d.target_id = ev.b
            """,
            {"a": [p[0] for p in pairs], "b": [p[1] for p in pairs], "vault": vault_id},
        )


def _bridges(vault_id: int, facts: list[Attribute]) -> None:
    """A new fact that another, unlinked entity already carries: record the bridge between them (inferred)."""
    if not facts:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO graph_dependency
                (vault_id, source_id, target_id, kind, strength, initial_strength, confidence, reason, evidence,
                 created_at)
            SELECT DISTINCT %(vault)s, LEAST(n.entity_id, o.entity_id), GREATEST(n.entity_id, o.entity_id),
                   'bridge', 0.5, 0.5, 0.4, 'inferred', 1, now()
            FROM graph_attribute n
            JOIN graph_attribute o ON o.vault_id = %(vault)s AND md5(lower(o.text)) = md5(lower(n.text))
                 AND o.entity_id <> n.entity_id AND o.note_id <> n.note_id
            WHERE n.id = ANY(%(new)s) AND NOT EXISTS (
                SELECT 1 FROM graph_dependency d WHERE d.vault_id = %(vault)s
                  AND ((d.source_id = n.entity_id AND d.target_id = o.entity_id)
                    OR (d.source_id = o.entity_id AND d.target_id = n.entity_id)))
            ON CONFLICT DO NOTHING
            """,
            {"vault": vault_id, "new": [f.pk for f in facts if f.pk]},
        )


def graph_extract_pending(
    *, vault_id: int, force: bool = False, progress: Callable[[int, int], None] | None = None
) -> dict[str, int]:
    """Extract every hot note of a vault whose extraction is missing or stale; counts by level (`failed`: notes
    whose extraction raised, recorded against them and retried by a later sweep once their backoff has passed)."""
    writer = extractor_for(Vault.objects.get(pk=vault_id))
    current = dict(Extraction.objects.filter(vault_id=vault_id, model=writer).values_list("note_id", "content_hash"))
    held = set() if force else step_held(vault_id=vault_id, step=NoteStep.GRAPH_EXTRACTION)
    notes = Note.objects.filter(vault_id=vault_id, tier=Tier.HOT).select_related("vault").order_by("id")
    todo = [n for n in notes if force or (current.get(n.pk) != n.content_hash and n.pk not in held)]
    if writer != EXTRACTOR and not force:  # a model's calls are paced: the sweep every 15 minutes does the rest
        todo = todo[:MODEL_NOTES_PER_RUN]
    counts: dict[str, int] = {}
    for done, note in enumerate(todo, start=1):
        row = graph_extract_step(note=note, force=force, model=writer)
        level = row.level if row else "failed"
        counts[level] = counts.get(level, 0) + 1
        if progress:
            progress(done, len(todo))
    if todo or not TermCount.objects.filter(vault_id=vault_id, term="").exists():
        graph_structure_refresh(vault_id=vault_id, notes=todo)
    return counts


def graph_structure_refresh(*, vault_id: int, notes: Sequence[Note]) -> None:
    """What follows extracting these notes of a vault, however it was asked for (the sweep, a re-extraction, the
    Librarian): co-mentions nothing supports go, the replies of their folders are recomputed, and the doors' counts
    follow what the vault holds."""
    if notes:
        _unmentioned_prune(vault_id)
        replies_refresh(vault_id=vault_id, folders={folder_of(n.path) for n in notes})
    term_counts_refresh(vault_id=vault_id)


_UNMENTIONED = """
DELETE FROM graph_dependency d
WHERE d.vault_id = %(vault)s AND d.kind = 'co_mentioned'
  AND (NOT EXISTS (SELECT 1 FROM graph_mention m WHERE m.entity_id = d.source_id AND m.vault_id = %(vault)s)
       OR NOT EXISTS (SELECT 1 FROM graph_mention m WHERE m.entity_id = d.target_id AND m.vault_id = %(vault)s))
"""


def _unmentioned_prune(vault_id: int) -> int:
    """Co-mentions of an entity nothing mentions any more go: a name the extractor no longer takes for a thing
    (after an edit, or a new extractor version) must not stay a hub of edges that no passage supports. The entity
    itself stays (its ledger, its learned values and a later mention may need it)."""
    with connection.cursor() as cursor:
        cursor.execute(_UNMENTIONED, {"vault": vault_id})
        return cursor.rowcount
