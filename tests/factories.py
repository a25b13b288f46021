"""Builders for test data, all through the real services (so permissions and audit rows are real too)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.apps import apps
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import QuerySet
from rest_framework.test import APIClient

from apps.accounts.models import Team
from apps.accounts.services import team_create, team_member_add, user_create
from apps.accounts.tokens import token_create
from apps.core import row_security
from apps.graph.services import graph_extract_pending
from apps.llm.embeddings import current_model
from apps.llm.models import ModelUsage
from apps.notes.models import Chunk, ImportJob, Note
from apps.notes.services.chunks import chunks_embed_pending
from apps.notes.services.ingest import import_job_create, import_job_run
from apps.notes.services.notes import note_create
from apps.notes.vectors import chunks_without_vector
from apps.vaults.models import Vault
from apps.vaults.row_scope import requester_binding
from apps.vaults.scope import Scope, system_scope
from apps.vaults.services import vault_create, vault_share

SAMPLE_VAULT = Path(__file__).resolve().parent.parent / "samples" / "vault"
PASSWORD = "correct-horse-battery-staple"
_counter = itertools.count(1)


def unembedded(**filters: object) -> QuerySet[Chunk]:
    """Chunks still lacking a vector of the current embedding model."""
    return chunks_without_vector(current_model()).filter(**filters)


def make_user(name: str | None = None, *, staff: bool = False) -> User:
    return user_create(actor=None, username=name or f"user{next(_counter)}", password=PASSWORD, is_staff=staff)


def make_vault(owner: User, name: str | None = None) -> Vault:
    return vault_create(owner=owner, name=name or f"vault {next(_counter)}")


def make_team(manager: User, *members: User, name: str | None = None) -> Team:
    team = team_create(actor=manager, name=name or f"team {next(_counter)}")
    for member in members:
        team_member_add(actor=manager, team=team, user=member)
    return team


def share(vault: Vault, role: str, *, user: User | None = None, team: Team | None = None) -> None:
    vault_share(actor=vault.owner, vault=vault, role=role, user=user, team=team)


def make_note(vault: Vault, path: str, body: str, *, embed: bool = True) -> Note:
    note = note_create(actor=vault.owner, vault=vault, path=path, body=body)
    if embed:
        chunks_embed_pending(vault_id=vault.pk)
    return note


def import_folder(vault: Vault, folder: Path, *, source: str = "", follow_up: bool = True) -> ImportJob:
    """An import run here; with `follow_up`, its graph extraction too (queued for the worker in production)."""
    job = import_job_create(actor=vault.owner, vault=vault, folder=str(folder), source=source)
    job = import_job_run(job_id=job.pk)
    if follow_up:
        graph_extract_pending(vault_id=vault.pk)
    return job


def import_sample(vault: Vault) -> ImportJob:
    return import_folder(vault, SAMPLE_VAULT, source="sample")


_keys: dict[int, str] = {}


def api(user: User | None = None) -> APIClient:
    """An API client that authenticates with a real token, as an API client would (one per user, reused while it
    is live: tests that revoke a user's tokens get a fresh one next time)."""
    client = APIClient()
    if user is not None:
        key = _keys.get(user.pk)
        if key is None or not _live(key, user):
            key = _keys[user.pk] = token_create(user=user, name="tests").key
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def api_with_token(user: User, *, read_only: bool = False, vaults: list[Vault] | None = None) -> APIClient:
    """An API client with a new token of `user`, read-only and/or limited to `vaults` as asked."""
    vault_ids = None if vaults is None else [v.pk for v in vaults]
    key = token_create(user=user, name="scoped", read_only=read_only, vault_ids=vault_ids).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _live(key: str, user: User) -> bool:
    from apps.accounts.models import ApiToken
    from apps.accounts.tokens import key_hash

    return ApiToken.objects.filter(key_hash=key_hash(key), user=user, revoked_at__isnull=True).exists()


def numbered_notes_zip(count: int, folder: str = "Export") -> bytes:
    """A zip export of `count` small notes, each with text of its own (none is a duplicate of another)."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for i in range(count):
            zf.writestr(f"{folder}/Note {i:04}.md", f"# Note {i}\n\nPassage {i} of the export, about topic {i % 7}.\n")
    return buffer.getvalue()


def scope_of(vault_ids: Iterable[int]) -> Scope:
    """A scope over exactly `vault_ids`, for a test that calls a read below the request that resolves one."""
    return system_scope(vault_ids, reason="a test reading these vaults directly")


@contextmanager
def reading_as(reader: User | Iterable[int]) -> Iterator[None]:
    """Statements inside the block read, at the database, as a request of `reader` would (their vaults), or as a
    requester reading exactly the vault ids given: a test calling a read function directly holds it to the
    second wall as a request is held, not to the test session's system binding."""
    binding = requester_binding(reader) if isinstance(reader, User) else row_security.vaults(tuple(reader))
    with row_security.bound(binding):
        yield


def usage_from_here() -> QuerySet[ModelUsage]:
    """The model usage rows written after this call (the usage ledger is append-only: a test that counts calls
    reads past the rows that came before it)."""
    last = ModelUsage.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    return ModelUsage.objects.filter(pk__gt=last)


def walled_tables() -> list[str]:
    """The tables PostgreSQL walls with row-level security, forced (read from the catalogue, which every binding
    sees)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname FROM pg_class WHERE relkind = 'r' AND relrowsecurity AND relforcerowsecurity"
            " AND relnamespace = 'public'::regnamespace ORDER BY relname"
        )
        return [row[0] for row in cursor.fetchall()]


def vault_tables() -> list[str]:
    """The tables of the models that carry a vault of their own (a `vault_id` column)."""
    return sorted(
        model._meta.db_table
        for model in apps.get_models()
        if any(field.column == "vault_id" for field in model._meta.concrete_fields)
    )
