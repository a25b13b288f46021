"""Finding principles (Celery, after each community run and daily): a pattern spanning unrelated entities.

Model-free, a pattern is a lesson stated twice in different words about different things: sentences that
generalise ("lesson:", "rule of thumb", "always", "never", "whenever", "usually" …) from notes that are unrelated —
their subjects sit in different Leiden communities (or in none) and no link, tag or dependency joins them within
two hops — and that share at least two content terms beyond the generalising words (read as plain text: links as
their labels, addresses left out). A release note's entry, naming an issue number, generalises nothing. Each set of
sentences that share the same terms becomes one `principle` entity with its evidence trail, its own proposed edges
to the notes' subjects (inferred, 0.4: below what walks follow until a person confirms it) and a notification for
every reader of the vault. A pattern is found once per vault: a rejected one is never proposed again."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from django.db import transaction
from django.db.models import QuerySet
from guardian.shortcuts import get_users_with_perms

from apps.core.text import STOP
from apps.graph.extract import key_of
from apps.graph.models import LADDER, Dependency, DependencyKind, Entity, EntityKind, Reason
from apps.insights.models import Evidence, Notification, Principle
from apps.notes.markdown import ADDRESS, link_labels
from apps.notes.models import Chunk, Provenance
from apps.notes.text import sentences
from apps.vaults.models import Vault

GENERAL = re.compile(
    r"\b(lessons? learned|one lesson|the lesson|lesson:|rule of thumb|principle|always|never|whenever|every time|"
    r"usually|the point is|the trick is)",
    re.I,
)
MARKER_WORDS = {
    "lesson",
    "lessons",
    "learned",
    "rule",
    "thumb",
    "principle",
    "always",
    "never",
    "whenever",
    "every",
    "time",
    "usually",
    "point",
    "trick",
}
WORD = re.compile(r"[a-z][a-z'-]{3,}")
# An issue or pull request number (`#7512`, not a tag): a release note's entry names a change, it states no lesson.
CHANGE_REFERENCE = re.compile(r"(?<![\w&#/])#\d+\b")
MIN_SHARED = 2  # content terms two sentences must share
COMMON = 500  # a term more general sentences say than this is no pattern
MAX_EVIDENCE = 8
NEAR_HOPS = 2
STRUCTURE = [DependencyKind.LINKS_TO, DependencyKind.TAGGED, DependencyKind.DEPENDS_ON]


@dataclass(frozen=True)
class Seen:
    chunk: int
    note: int
    title: str
    entity: int | None  # the note's subject
    sentence: str
    terms: frozenset[str]


def terms_of(sentence: str) -> frozenset[str]:
    words = (w.strip("'-") for w in WORD.findall(sentence.lower()))
    return frozenset(
        w[:-1] if w.endswith("s") and len(w) > 4 else w for w in words if w and w not in STOP and w not in MARKER_WORDS
    )


def _general_sentences(vault_id: int) -> list[Seen]:
    rows = (
        Chunk.objects.filter(
            vault_id=vault_id,
            tier="hot",
            note__tier="hot",
            note__provenance__in=[Provenance.AUTHORED, Provenance.EXTRACTED],
        )
        .select_related("note")
        .order_by("note_id", "ordinal")
    )
    chunks = list(rows)
    titles = {key_of(c.note.title) for c in chunks}  # a note's subject may have been named by a link first
    subjects = dict(Entity.objects.filter(vault_id=vault_id, key__in=titles).values_list("key", "pk"))
    readable = ((c, link_labels(s)) for c in chunks for s in sentences(c.text))
    return [
        Seen(c.pk, c.note_id, c.note.title, subjects.get(key_of(c.note.title)), s[:1000], _content_terms(s))
        for c, s in readable
        if GENERAL.search(s) and not CHANGE_REFERENCE.search(s)
    ]


def _content_terms(sentence: str) -> frozenset[str]:
    """A sentence's terms, leaving out the words of the addresses it names (`https`, `github`…)."""
    return terms_of(ADDRESS.sub(" ", sentence))


def _related(vault_id: int) -> tuple[dict[int, set[int]], dict[int, int]]:
    near: dict[int, set[int]] = {}
    rows = Dependency.objects.filter(vault_id=vault_id, kind__in=STRUCTURE).values_list("source_id", "target_id")
    for a, b in rows:
        near.setdefault(a, set()).add(b)
        near.setdefault(b, set()).add(a)
    community = dict(
        Dependency.objects.filter(vault_id=vault_id, kind=DependencyKind.MEMBER_OF).values_list(
            "source_id", "target_id"
        )
    )
    return near, community


def _reach(entity: int, near: dict[int, set[int]]) -> set[int]:
    reach, frontier = {entity}, {entity}
    for _ in range(NEAR_HOPS):
        frontier = {n for e in frontier for n in near.get(e, ())} - reach
        reach |= frontier
    return reach


def _unrelated(a: Seen, b: Seen, reach: Callable[[int], set[int]], community: dict[int, int]) -> bool:
    if a.note == b.note or a.entity is None or b.entity is None:
        return False
    if community.get(a.entity) is not None and community.get(a.entity) == community.get(b.entity):
        return False
    return b.entity not in reach(a.entity)


def _pairs(seen: list[Seen]) -> dict[tuple[int, int], frozenset[str]]:
    """Sentences sharing at least MIN_SHARED terms, found through an index of who says which term (a term said
    in more than COMMON sentences tells nothing), with the terms they share."""
    says: dict[str, list[int]] = {}
    for i, s in enumerate(seen):
        for term in s.terms:
            says.setdefault(term, []).append(i)
    pairs = {}
    for i, s in enumerate(seen):
        partners = Counter(j for t in s.terms if len(says[t]) <= COMMON for j in says[t] if j > i)
        for j, n in partners.items():
            if n >= MIN_SHARED:
                pairs[(i, j)] = s.terms & seen[j].terms
    return pairs


def patterns(vault_id: int) -> list[list[Seen]]:
    """Groups of general sentences from unrelated notes that share the same terms, largest first; a group whose
    sentences a larger one already holds is left out."""
    seen = _general_sentences(vault_id)
    near, community = _related(vault_id)
    reach = functools.cache(lambda entity: _reach(entity, near))  # one walk per subject, however many pairs
    by_terms: dict[frozenset[str], set[int]] = {}
    for (i, j), shared in _pairs(seen).items():
        if _unrelated(seen[i], seen[j], reach, community):
            by_terms.setdefault(shared, set()).update((i, j))
    found: list[list[Seen]] = []
    taken: list[set[int]] = []
    for _, members in sorted(by_terms.items(), key=lambda kv: (-len(kv[1]), sorted(kv[0]))):
        if not any(members <= t for t in taken):
            taken.append(members)
            found.append([seen[i] for i in sorted(members)])
    return found


def signature_of(group: list[Seen]) -> str:
    """The terms every sentence of the group shares, in order: the pattern's identity in its vault."""
    shared = frozenset.intersection(*(s.terms for s in group))
    return " · ".join(sorted(shared)[:6])


def statement_of(group: list[Seen]) -> str:
    """The most general sentence of the group, said across its notes' subjects."""
    best = min(group, key=lambda s: (len(s.sentence), s.chunk)).sentence
    best = re.sub(r"^(lessons?( learned)?|rule of thumb)\s*:\s*", "", best, flags=re.I)
    titles = list(dict.fromkeys(s.title for s in group))
    across = ", ".join(titles[:-1]) + f" and {titles[-1]}"
    return f"Across {across}: {best[:1].upper()}{best[1:]}"


def principles_discover(*, vault_id: int) -> list[Principle]:
    """Record the vault's new patterns as proposed principles and notify its readers; the new principles."""
    known = set(Principle.objects.filter(vault_id=vault_id).values_list("signature", flat=True))
    made = []
    for group in patterns(vault_id):
        signature = signature_of(group)
        if signature and signature not in known:
            made.append(_record(vault_id, signature, group[:MAX_EVIDENCE]))
            known.add(signature)
    return made


@transaction.atomic
def _record(vault_id: int, signature: str, group: list[Seen]) -> Principle:
    statement = statement_of(group)
    entity, _ = Entity.objects.get_or_create(
        vault_id=vault_id,
        key=key_of(f"principle: {signature}"),
        defaults={"name": statement[:300], "kind": EntityKind.PRINCIPLE},
    )
    principle = Principle.objects.create(vault_id=vault_id, entity=entity, signature=signature, statement=statement)
    Evidence.objects.bulk_create(
        Evidence(
            vault_id=vault_id,
            principle=principle,
            note_id=s.note,
            chunk_id=s.chunk,
            entity_id=s.entity,
            sentence=s.sentence,
        )
        for s in group
    )
    for subject in dict.fromkeys(s.entity for s in group if s.entity is not None):
        Dependency.objects.get_or_create(
            vault_id=vault_id,
            source=entity,
            target_id=subject,
            kind=DependencyKind.BRIDGE,
            defaults={"reason": Reason.INFERRED, "confidence": LADDER[Reason.INFERRED]},
        )
    vault = Vault.objects.get(pk=vault_id)
    users = get_users_with_perms(vault, only_with_perms_in=["read_vault"], with_group_users=True)
    readers = cast(QuerySet[Any], users).values_list("pk", flat=True)  # a queryset when given only_with_perms_in
    Notification.objects.bulk_create(
        Notification(
            vault_id=vault_id, user_id=user, principle=principle, title="DesirePath noticed something", text=statement
        )
        for user in readers
    )
    return principle
