"""Isolation: nobody ever sees anything from a vault they may not read.

Users, teams, vaults and shares are generated at random (seeded); every vault's notes, paths, tags, import
files, attachments and name carry a unique marker. Every user chats about every marker first, so conversations and
their context exist. Every GET route of the OpenAPI schema (so a new endpoint is covered without anyone remembering
to add it), the search API, the chat and feedback APIs, every tool of the MCP endpoint and the web pages (a note
page embeds another vault's note and, through it, that vault's file) are tried by every user, before and after a
share is revoked and a team membership removed. Readability is computed here, independently of the permission code,
from what was generated.
"""

from __future__ import annotations

import io
import json
import random
import re
import secrets
import zipfile
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from psycopg import sql
from rest_framework.test import APIClient

from apps.accounts.models import Team
from apps.accounts.services import team_member_remove
from apps.accounts.tokens import token_create, token_revoke
from apps.chat.models import ContextItem, Conversation
from apps.core import row_security
from apps.feedback.models import Feedback
from apps.graph.services import graph_extract_pending
from apps.insights.discover import principles_discover
from apps.insights.formation import concepts_form
from apps.insights.models import Card, NoveltyCandidate
from apps.insights.screening import candidates_screen
from apps.insights.tasks import insights_daily
from apps.librarian.models import SummaryNode
from apps.librarian.services import reenrich
from apps.notes.models import Attachment, Chunk, Correction, ExportJob, ImportJob, Note, NoteLink, NoteStep
from apps.notes.services.export import export_job_create, export_job_run
from apps.notes.services.failures import step_failure_record
from apps.notes.services.notes import note_version
from apps.vaults.models import Vault
from apps.vaults.row_scope import requester_binding
from apps.vaults.scope import scope_for
from apps.vaults.selectors import vault_shares
from apps.vaults.services import vault_unshare
from tests.factories import (
    api,
    api_with_token,
    import_folder,
    make_note,
    make_team,
    make_user,
    make_vault,
    reading_as,
    scope_of,
    share,
    vault_tables,
    walled_tables,
)
from tests.mcp.rpc import call, rpc
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db
MARKER = re.compile(r"zqx\d+mark[0-9a-f]{8}", re.IGNORECASE)


@dataclass
class World:
    users: list[User]
    vaults: list[Vault]
    teams: list[Team]
    markers: dict[int, str]  # vault id → marker
    owner: dict[int, int]  # vault id → owner id
    direct: dict[tuple[int, int], str] = field(default_factory=dict)  # (user, vault) → role
    team_roles: dict[tuple[int, int], str] = field(default_factory=dict)  # (team, vault) → role
    members: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))  # team → users

    def readable(self, user: User) -> set[int]:
        teams = {t for t, users in self.members.items() if user.pk in users}
        return {
            v.pk
            for v in self.vaults
            if self.owner[v.pk] == user.pk
            or (user.pk, v.pk) in self.direct
            or any((t, v.pk) in self.team_roles for t in teams)
        }


def build_world(seed: int, tmp_path: Path) -> World:
    rng = random.Random(seed)
    users = [make_user(f"iso{seed}-{i}") for i in range(5)]
    vaults = [Vault.objects.get(owner=u, is_personal=True) for u in users]
    for number in range(5):
        vaults.append(make_vault(rng.choice(users), f"shared {number}"))
    world = World(users=users, vaults=vaults, teams=[], markers={}, owner={v.pk: v.owner_id for v in vaults})
    for t in range(2):
        manager = rng.choice(users)
        members = [u for u in users if u != manager and rng.random() < 0.5]
        team = make_team(manager, *members, name=f"iso{seed}-team{t}")
        world.teams.append(team)
        world.members[team.pk] = {manager.pk, *(m.pk for m in members)}
    for vault in vaults:
        marker = f"zqx{vault.pk}mark{secrets.token_hex(4)}"
        world.markers[vault.pk] = marker
        Vault.objects.filter(pk=vault.pk).update(name=f"{vault.name} {marker}")
        make_note(
            vault,
            f"{marker}/Secret {marker}.md",
            f"---\ntitle: Secret {marker}\ntags: [{marker}]\naliases: [{marker}-alias]\n---\n"
            f"The code word is {marker}. See [[{marker} elsewhere]] and [[Plain]].\n",
        )
        # Its file embed names the vault's marker: a page showing Plain elsewhere must not give its address away.
        make_note(
            vault,
            "Plain.md",
            f"# Plain\nan ordinary note about gardening; {marker} hides at the end.\n\n![[{marker}.txt]]\n",
        )
        folder = tmp_path / marker
        folder.mkdir()
        (folder / f"{marker}.md").write_text(f"# Imported {marker}\nimported words {marker}\n")
        (folder / f"{marker}-bad.md").write_bytes(b"\xff\xfe not utf-8")
        (folder / "files").mkdir()
        (folder / "files" / f"{marker}.txt").write_text(f"an attachment that names {marker}\n")
        (folder / "files" / "plan.pdf").write_bytes(f"%PDF-1.4\n% plan of {marker}\n%%EOF\n".encode())
        import_folder(vault, folder, source=f"src-{marker}")
        if vault.is_personal:
            continue
        for user in users:
            if user.pk != vault.owner_id and rng.random() < 0.35:
                role = rng.choice(["reader", "contributor", "manager"])
                share(vault, role, user=user)
                world.direct[(user.pk, vault.pk)] = role
        for team in world.teams:
            if rng.random() < 0.4:
                role = rng.choice(["reader", "contributor"])
                share(vault, role, team=team)
                world.team_roles[(team.pk, vault.pk)] = role
    for vault in vaults:  # a lesson said in two unrelated notes: a principle its readers are notified of
        marker = world.markers[vault.pk]
        make_note(
            vault, "lessons/Bikes.md", f"# Bikes {marker}\n\nLesson: small parts you never check decide the ride.\n"
        )
        make_note(vault, "lessons/Servers.md", "# Servers\n\nRule of thumb: small parts nobody checks decide uptime.\n")
        graph_extract_pending(vault_id=vault.pk)
        assert len(principles_discover(vault_id=vault.pk)) == 1
    for vault in vaults:  # the secret note stood out one day: discovery forms a concept named after it
        secret = Note.objects.get(vault=vault, path__startswith=f"{world.markers[vault.pk]}/Secret")
        NoveltyCandidate.objects.create(
            vault=vault, note=secret, day=timezone.localdate(), spike=5, freshness=1, variety=5, score=3, bar=1
        )
        candidates_screen(vault_id=vault.pk)
        assert [c.label for c in concepts_form(vault_id=vault.pk)] == [f"Secret {world.markers[vault.pk]}"]
    reenrich(vaults=vaults, everything=True)  # the Librarian's metadata quotes the notes too
    for vault in vaults:  # every vault's insight cards: their titles and stories quote the notes
        insights_daily(vault.pk)
    for vault in vaults:  # a background step failed on a note: its reason names the vault's marker
        note = Note.objects.get(vault=vault, path="lessons/Bikes.md")
        error = RuntimeError(f"planted failure {world.markers[vault.pk]}")
        step_failure_record(note=note, step=NoteStep.METADATA, model="planted", error=error)
    for user in users:  # conversations whose context comes from the vaults each user reads
        for question in ("What is the code word?", "What is the plain note about gardening?"):
            api(user).post("/api/chat/", {"message": question}, format="json")
    for user in users:  # a correction of a passage each user was shown: applied or proposed, with its marker
        item = ContextItem.objects.filter(message__conversation__owner=user).order_by("pk").first()
        if item is not None:
            text = f"Correction from {user.username}: the code word of {world.markers[item.vault_id]} changed."
            body = {"context_item": item.pk, "signal": "correct", "text": text}
            assert api(user).post("/api/feedback/", body, format="json").status_code == 201
    for index, vault in enumerate(vaults):  # an embed pointed at the next vault's note: only its readers see it
        window = make_note(vault, "Window.md", "# Window\n\n![[Plain]]\n")
        beyond = Note.objects.get(vault=vaults[(index + 1) % len(vaults)], path="Plain.md")
        NoteLink.objects.filter(source=window, kind="embed").update(target=beyond)
    for vault in vaults:  # an export of every vault, built, its zip kept on the job
        export_job_run(job_id=export_job_create(actor=vault.owner, vault=vault).pk)
    return world


def _schema_get_routes() -> list[tuple[str, dict]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [(path, ops["get"]) for path, ops in schema["paths"].items() if "get" in ops]


def _fill(path: str, operation: dict, world: World) -> Iterator[str]:
    """Every concrete URL for a schema route: each path parameter over all objects, each enum query value."""
    ids = {
        "vault_id": [v.pk for v in world.vaults],
        "note_id": _world_ids(Note, world),
        "job_id": _world_ids(ImportJob, world),
        "export_id": list(ExportJob.objects.values_list("pk", flat=True)),
        "team_id": [t.pk for t in world.teams],
        "conversation_id": list(Conversation.objects.filter(owner__in=world.users).values_list("pk", flat=True)),
        "correction_id": list(Correction.objects.filter(vault__in=world.vaults).values_list("pk", flat=True)),
        "item_id": list(
            ContextItem.objects.filter(message__conversation__owner__in=world.users).values_list("pk", flat=True)
        ),
        "summary_id": list(SummaryNode.objects.filter(owner__in=world.users).values_list("pk", flat=True)),
    }
    names = re.findall(r"{(\w+)}", path)
    unknown = [n for n in names if n not in ids]
    assert not unknown, f"isolation suite: teach _fill how to enumerate {unknown} for {path}"
    queries = [""]
    for param in operation.get("parameters", []):
        if param.get("in") == "query" and "enum" in param.get("schema", {}):
            queries = [f"?{param['name']}={value}" for value in param["schema"]["enum"]]
    if path in ("/api/graph/constellation/", "/api/principles/", "/api/concepts/", "/api/insights/"):
        queries = [f"?vault={v.pk}" for v in world.vaults]
    if path == "/api/vaults/{vault_id}/impact/":
        queries = ["?entity=Code", "?entity=Plain", "?entity=Secret"]
    if path == "/api/search/":
        queries = [f"?q={m}" for m in world.markers.values()]
        queries += [f"?q={m}&vault={vid}&include_cold=true" for vid, m in world.markers.items()]
    urls = [path]
    for name in names:
        urls = [u.replace("{" + name + "}", str(value)) for u in urls for value in ids[name]]
    return (u + q for u in urls for q in queries)


def _world_ids(model: type[Note] | type[ImportJob], world: World) -> list[int]:
    """Every object of the generated vaults, plus a few of other vaults (the session's sample vault)."""
    vault_ids = [v.pk for v in world.vaults]
    mine = list(model.objects.filter(vault_id__in=vault_ids).values_list("pk", flat=True))
    return mine + list(model.objects.exclude(vault_id__in=vault_ids).values_list("pk", flat=True)[:3])


def _pages(world: World) -> list[str]:
    notes, jobs = _world_ids(Note, world), _world_ids(ImportJob, world)
    files = Attachment.objects.filter(vault__in=world.vaults).values_list("vault_id", "path")
    return (
        [f"/notes/{n}/" for n in notes]
        + [f"/notes/{n}/edit/" for n in notes]
        + [f"/vaults/{v}/files/{path}" for v, path in files]
        + [f"/vaults/{v.pk}/files/{path}" for v in world.vaults for _, path in files[:3]]  # right path, other vault
        + [f"/jobs/{j}/" for j in jobs]
        + [f"/vaults/{v.pk}/" for v in world.vaults]
        + [f"/vaults/{v.pk}/?tier=cold" for v in world.vaults]
        + [f"/vaults/{v.pk}/?filter=secret" for v in world.vaults]
        + [f"/vaults/{v.pk}/members/" for v in world.vaults]
        + [f"/vaults/{v.pk}/settings/" for v in world.vaults]
        + [f"/vaults/{v.pk}/constellation/" for v in world.vaults]
        + [f"/vaults/{v.pk}/principles/" for v in world.vaults]
        + [f"/vaults/{v.pk}/insights/" for v in world.vaults]
        + [f"/vaults/{v.pk}/coverage/" for v in world.vaults]
        + [f"/vaults/{v.pk}/notes/new/" for v in world.vaults]
        + [f"/exports/{e}/" for e in ExportJob.objects.filter(vault__in=world.vaults).values_list("pk", flat=True)]
        + ["/noticed/", "/vaults/new/", "/models/"]
        + [f"/?q={m}" for m in world.markers.values()]
        + [f"/chat/?c={c}" for c in Conversation.objects.filter(owner__in=world.users).values_list("pk", flat=True)]
    )


def _readable_text(response: HttpResponse) -> str:
    """The response as text; a zip's names and files unpacked, so what an export holds is checked like a page."""
    content = b"".join(response.streaming_content) if response.streaming else response.content
    if response.get("Content-Type", "").startswith("application/zip"):
        with zipfile.ZipFile(io.BytesIO(content)) as zf:
            content = b"\n".join(name.encode() + b"\n" + zf.read(name) for name in zf.namelist())
    return content.decode("utf-8", errors="replace")


def _check_everyone(world: World, users: set[int] | None = None) -> tuple[dict[str, int], int]:
    """Every user (or those of `users`), through a browser and the API, and again through a token limited to one
    of their shared vaults: every schema route and page, no marker of a vault they may not read. The markers each
    was shown, and how many responses were checked."""
    routes = _schema_get_routes()
    assert any(p == "/api/notes/{note_id}/" for p, _ in routes)  # the schema really lists the routes
    seen_own: dict[str, int] = defaultdict(int)
    leaks: list[str] = []
    checked = 0
    requesters = []  # (who, what they may see, their API client or None, their browser or None)
    for user in world.users:
        if users is not None and user.pk not in users:
            continue
        readable = sorted(world.readable(user))
        browser = Client()
        browser.force_login(user)
        requesters.append((user.username, {world.markers[v] for v in readable}, api(user), browser))
        # The same person through a token limited to one of their shared vaults: the others are as if unreadable.
        shared = [v for v in readable if not Vault.objects.get(pk=v).is_personal]
        if shared:
            only = shared[user.pk % len(shared)]
            limited = api_with_token(user, vaults=[Vault.objects.get(pk=only)])
            requesters.append((f"{user.username} (token for vault {only})", {world.markers[only]}, limited, None))
    for who, allowed, client, browser in requesters:
        responses = [(url, client.get(url)) for path, op in routes for url in _fill(path, op, world)]
        if browser is not None:
            responses += [(url, browser.get(url)) for url in _pages(world)]
        checked += len(responses)
        for url, response in responses:
            assert response.status_code < 500, (url, response.status_code)
            if url.startswith("/api/"):  # what every reader gets is what the schema promises
                assert_matches_schema(response)
            text = _readable_text(response).lower()
            if url.startswith("/?q="):  # the search page echoes the query in its box and title: not a leak
                echoed = url[4:].lower()
                text = text.replace(f'value="{echoed}"', "").replace(f"<title>{echoed} ·", "")
            for marker in set(MARKER.findall(text)):
                if marker in allowed:
                    seen_own[marker] += 1
                else:
                    leaks.append(f"{who} saw {marker} at {url}")
    assert leaks == []
    _check_no_changes_to_unreadable_vaults(world, users)
    return seen_own, checked


def _vault_state(vault_id: int) -> tuple[object, ...]:
    vault = Vault.objects.get(pk=vault_id)
    shares = sorted((s["user"] or 0, s["team"] or 0, s["role"]) for s in vault_shares(vault=vault))
    notes = sorted(Note.objects.filter(vault=vault).values_list("pk", "path", "content_hash", "tier"))
    return vault.name, vault.archived_at, vault.chat_settings, shares, notes


def _check_no_changes_to_unreadable_vaults(world: World, users: set[int] | None = None) -> None:
    """Every form of a vault's own pages and of its notes' editor, posted by each user to the vaults they cannot
    read: 404, nothing changed."""
    stranger = world.users[0]
    for user in world.users:
        if users is not None and user.pk not in users:
            continue
        browser = Client()
        browser.force_login(user)
        for vault in world.vaults:
            if vault.pk in world.readable(user):
                continue
            before = _vault_state(vault.pk)
            note = Note.objects.filter(vault=vault).first()
            note_id = note.pk if note else 0
            card_id = Card.objects.filter(vault=vault).values_list("pk", flat=True).first() or 0
            here = f"/vaults/{vault.pk}/"
            edit = {"path": "taken.md", "body": "taken over", "version": note_version(note) if note else ""}
            posts = [
                (f"{here}members/", {"action": "add_user", "who": user.username, "role": "manager"}),
                (f"{here}members/", {"action": "add_user", "who": stranger.username, "role": "reader"}),
                (f"{here}members/", {"action": "remove", "user": vault.owner_id}),
                (f"{here}settings/", {"action": "rename", "name": "taken over"}),
                (f"{here}settings/", {"action": "archive"}),
                (f"{here}settings/", {"action": "answering", "gate_threshold": "1", "fallback": "silent"}),
                (here, {"restore": note_id}),
                (f"{here}insights/", {"card": card_id, "signal": "dismiss"}),
                (f"{here}notes/new/", {"path": "planted.md", "body": "planted", "action": "save"}),
                (f"{here}notes/new/", {"path": "planted.md", "body": "[[Plain]]", "action": "preview"}),
                (f"/notes/{note_id}/edit/", {**edit, "action": "save"}),
                (f"/notes/{note_id}/edit/", {**edit, "action": "preview"}),
                (f"/notes/{note_id}/delete/", {}),
                (f"/notes/{note_id}/restore/", {}),
            ]
            for url, form in posts:
                response = browser.post(url, form)
                assert response.status_code == 404, (user.username, url, form, response.status_code)
            assert _vault_state(vault.pk) == before, (user.username, vault.pk)


ROW_CHECKS = 10_000
SWEPT_AT_LEAST = 8_000  # responses one seed's world gives at least, every requester through every route and id


def _rows_of(table: str, vault_id: int) -> int:
    with connection.cursor() as cursor:
        cursor.execute(sql.SQL("SELECT count(*) FROM {} WHERE vault_id = %s").format(sql.Identifier(table)), [vault_id])
        return int(cursor.fetchone()[0])


def _row_checks_at_random(world: World, seed: int) -> int:
    """Random (person, walled table, vault) reads straight in SQL, with no filter of the application's, each bound
    as a request of that person's is bound: a vault they cannot read shows no row, one they read shows every row
    it has. Readability is the world's own, not the permission code's."""
    rng = random.Random(seed)
    tables = [t for t in walled_tables() if t in vault_tables()]
    assert len(tables) > 40
    every = {(table, vault.pk): _rows_of(table, vault.pk) for table in tables for vault in world.vaults}
    assert sum(1 for n in every.values() if n) > 5 * len(world.vaults)  # the check can fail: the world has rows
    bindings = {user.pk: requester_binding(user) for user in world.users}
    wrong: list[str] = []
    for _ in range(ROW_CHECKS):
        user, table, vault = rng.choice(world.users), rng.choice(tables), rng.choice(world.vaults)
        with row_security.bound(bindings[user.pk]):
            seen = _rows_of(table, vault.pk)
        expected = every[(table, vault.pk)] if vault.pk in world.readable(user) else 0
        if seen != expected:
            wrong.append(f"{user.username} saw {seen} rows of vault {vault.pk} in {table}, not {expected}")
    assert wrong == []
    return ROW_CHECKS


# A second seed's world is swept with the application's filters off (tests/test_isolation_second_wall.py).
@pytest.mark.parametrize("seed", [11])
def test_no_response_ever_contains_a_marker_from_an_unreadable_vault(seed, tmp_path):
    from apps.librarian.tasks import summaries_daily

    world = build_world(seed, tmp_path)
    assert summaries_daily()["summarised"] > 0  # every person's conversations summarised: those are read paths too
    seen, checked = _check_everyone(world)
    # The check can fail: every marker is visible to those who may read its vault.
    assert set(seen) == set(world.markers.values())
    assert checked >= SWEPT_AT_LEAST  # the sweep really covers the world: every requester, route and id
    assert _row_checks_at_random(world, seed) == ROW_CHECKS

    # Revoke a direct share and remove a team membership, then try everything again.
    _check_everyone(world, users=_revoke_one_share_and_one_membership(world, seed))  # no one else's access changed


def _revoke_one_share_and_one_membership(world: World, seed: int) -> set[int]:
    """A direct share revoked and a team member removed, in the world as in its record; the two people."""
    rng = random.Random(seed)
    (user_id, vault_id), _ = rng.choice(sorted(world.direct.items()))
    vault = Vault.objects.get(pk=vault_id)
    vault_unshare(actor=vault.owner, vault=vault, user=User.objects.get(pk=user_id))
    del world.direct[(user_id, vault_id)]
    team = next(t for t in world.teams if len(world.members[t.pk]) > 1)
    manager = team.memberships.get(role="manager").user
    leaving = next(uid for uid in sorted(world.members[team.pk]) if uid != manager.pk)
    team_member_remove(actor=manager, team=team, user=User.objects.get(pk=leaving))
    world.members[team.pk].discard(leaving)
    return {user_id, leaving}


def _limited_requesters(world: World) -> Iterator[tuple[str, APIClient, set[int]]]:
    """Every user, then every user again through a token limited to one of the shared vaults they read."""
    for user in world.users:
        yield user.username, api(user), world.readable(user)
    for user in world.users:
        shared = sorted(v for v in world.readable(user) if not Vault.objects.get(pk=v).is_personal)
        if shared:
            only = shared[user.pk % len(shared)]
            limited = api_with_token(user, vaults=[Vault.objects.get(pk=only)])
            yield f"{user.username} (token for {only})", limited, {only}


def test_search_for_a_marker_finds_it_only_for_readers(tmp_path):
    world = build_world(5, tmp_path)
    for who, client, readable in _limited_requesters(world):
        for vault_id, marker in world.markers.items():
            hits = client.get("/api/search/", {"q": marker}).json()["results"]
            found = any(hit["vault"] == vault_id and marker in hit["path"] for hit in hits)
            assert found == (vault_id in readable), (who, vault_id)
            assert all(hit["vault"] in readable for hit in hits)


def test_chat_and_feedback_only_ever_use_readable_vaults(tmp_path):
    world = build_world(7, tmp_path)
    items = list(ContextItem.objects.select_related("message__conversation"))
    assert items  # the world's chats gathered context
    for who, client, readable in _limited_requesters(world):
        allowed = {world.markers[v] for v in readable}
        for vault_id, marker in world.markers.items():
            question = {"message": f"What is the code word {marker}?"}
            asked = client.post("/api/chat/", {"vaults": [vault_id], **question}, format="json")
            assert asked.status_code == (200 if vault_id in readable else 404), (who, vault_id)
            if vault_id in readable:
                assert marker in " ".join(c["text"] for c in asked.json()["candidates"])
            anywhere = client.post("/api/chat/", question, format="json").json()
            shown = anywhere["answer"] + " ".join(c["text"] + c["path"] for c in anywhere["candidates"])
            seen = set(MARKER.findall(shown.lower()))
            assert seen <= allowed, (who, seen - allowed)
            assert all(item["vault"] in readable for item in anywhere["candidates"])
    for user in world.users:
        readable = world.readable(user)
        client = api(user)
        for item in _one_item_per_case(items):
            vote = client.post("/api/feedback/", {"context_item": item.pk, "signal": "used"}, format="json")
            mine = item.message.conversation.owner_id == user.pk and item.vault_id in readable
            assert vote.status_code == (201 if mine else 404), (user.username, item.pk)
    # undoing a vote: only one's own, on a passage one can still read; anyone else's is as if it did not exist
    votes = list(Feedback.objects.filter(signal="used").select_related("context_item"))
    for user in world.users:
        readable = world.readable(user)
        for vote in votes:
            undone = api(user).delete(f"/api/feedback/{vote.pk}/")
            mine = vote.user_id == user.pk and vote.context_item.vault_id in readable
            assert undone.status_code == (204 if mine else 404), (user.username, vote.pk)
    assert not Feedback.objects.filter(signal="used", withdrawn_at__isnull=True).exists()
    # pointing to the passage that answers it: only in one's own answers, only to a passage one can read
    answers = list(dict.fromkeys(item.message for item in items))[:6]
    passages = {vault_id: Chunk.objects.filter(vault_id=vault_id, tier="hot").first() for vault_id in world.markers}
    for user in world.users:
        readable = world.readable(user)
        client = api(user)
        for answer in answers:
            for vault_id, passage in passages.items():
                body = {"message": answer.pk, "chunk": passage.pk}
                pick = client.post("/api/feedback/answers/", body, format="json")
                mine = answer.conversation.owner_id == user.pk and vault_id in readable
                assert pick.status_code == (201 if mine else 404), (user.username, answer.pk, vault_id)


def test_candidates_are_never_read_from_outside_the_scope(sample, vault):
    """The gate's own read path repeats the permission filter: hits from another vault yield nothing."""
    from apps.retrieval.candidates import load_candidates
    from apps.retrieval.search import SearchHit

    chunk = sample.notes.first().chunks.first()
    hit = SearchHit(
        note=chunk.note_id, vault=sample.pk, path="", title="", chunk=chunk.pk, snippet="", score=1, sources=[]
    )
    with reading_as([vault.pk]):
        assert load_candidates(hits=[hit], query_vector=None, scope=scope_of([vault.pk])) == []
    with reading_as([sample.pk]):
        found = load_candidates(hits=[hit], query_vector=None, scope=scope_of([sample.pk]))
    assert [c.chunk for c in found] == [chunk.pk]


def test_the_opening_of_a_note_a_question_names_is_never_read_from_outside_the_scope(sample, vault):
    """ "What is X?" brings the opening passage of a hit's note titled X: only from a vault of the scope."""
    from apps.retrieval.candidates import with_openings
    from apps.retrieval.search import SearchHit

    note = next(n for n in sample.notes.all() if n.chunks.filter(ordinal=1).exists())
    later, opening = note.chunks.get(ordinal=1), note.chunks.get(ordinal=0)
    hit = SearchHit(
        note=note.pk, vault=sample.pk, path=note.path, title=note.title, chunk=later.pk, snippet="", score=1, sources=[]
    )
    question = f"What is {note.title}?"
    with reading_as([vault.pk]):
        assert with_openings([hit], question, scope_of([vault.pk])) == [later.pk]
    with reading_as([sample.pk]):
        assert with_openings([hit], question, scope_of([sample.pk])) == [later.pk, opening.pk]


def test_a_later_passages_byline_is_read_from_its_own_served_first_passage_only(sample, vault):
    """The byline rides in the candidates' statement, under its filter: read from the note's first passage only
    while that passage is served (a corrected one is moved out of service), never from outside the scope."""
    from apps.notes.models import Chunk, Tier
    from apps.retrieval.candidates import load_chunks

    adr = sample.notes.get(path="engineering/ADR-007 Choosing pgvector.md")
    first, later = adr.chunks.order_by("ordinal")[0], adr.chunks.order_by("ordinal").last()
    assert later.ordinal > 0 and "Decided by" not in later.text
    with reading_as([sample.pk]):
        (found,) = load_chunks(chunks=[later.pk], query_vector=None, scope=scope_of([sample.pk]))
    assert found.byline.startswith("**Date:** 20 February 2024. **Decided by:** Maren Vogt")
    with reading_as([vault.pk]):
        assert load_chunks(chunks=[later.pk], query_vector=None, scope=scope_of([vault.pk])) == []
    Chunk.objects.filter(pk=first.pk).update(tier=Tier.COLD)
    with reading_as([sample.pk]):
        (found,) = load_chunks(chunks=[later.pk], query_vector=None, scope=scope_of([sample.pk]))
    assert found.byline == ""


def test_a_passages_decision_is_read_from_its_own_notes_served_decision_only(sample, vault):
    """What a note decided rides in the candidates' statement like its byline, under the same filter: read from the
    note's served passage that holds its decision section only (a corrected passage is moved out of service)."""
    from apps.notes.models import Chunk, Tier
    from apps.retrieval.candidates import load_chunks

    adr = sample.notes.get(path="engineering/ADR-009 Job Queue.md")
    chunks = list(adr.chunks.order_by("ordinal"))
    first, decided = chunks[0], next(c for c in chunks if "Celery with Redis." in c.text)
    assert first.pk != decided.pk and "Celery with Redis." not in first.text
    with reading_as([sample.pk]):
        (found,) = load_chunks(chunks=[first.pk], query_vector=None, scope=scope_of([sample.pk]))
        (itself,) = load_chunks(chunks=[decided.pk], query_vector=None, scope=scope_of([sample.pk]))
    assert found.decision.startswith("Celery with Redis.") and itself.decision == ""  # it says it itself
    Chunk.objects.filter(pk=decided.pk).update(tier=Tier.COLD)
    with reading_as([sample.pk]):
        (found,) = load_chunks(chunks=[first.pk], query_vector=None, scope=scope_of([sample.pk]))
    assert found.decision == ""


def test_words_planted_in_an_unreadable_vault_never_change_a_readers_keyword_ranking():
    """BM25's document frequencies and lengths come from the requester's readable vaults only: flooding a vault
    they cannot read with one query term would, with shared statistics, turn their ranking around."""
    from apps.retrieval.search import hybrid_search

    reader = make_user()
    mine, theirs = make_vault(reader, "Mine"), make_vault(make_user(), "Theirs")
    make_note(mine, "Glacier.md", "# Glacier\nThe glacier glacier moraine.", embed=False)
    make_note(mine, "Fjord.md", "# Fjord\nThe fjord fjord moraine.", embed=False)
    make_note(mine, "Plain.md", "# Plain\nA wide plain of wheat.", embed=False)

    def ranking(user: User) -> list[tuple[str, float]]:
        with reading_as(user):
            hits = hybrid_search(scope=scope_for(user), query="glacier fjord", mode="keyword", k=10).hits
        return [(hit.path, round(hit.score, 9)) for hit in hits]

    before = ranking(reader)
    assert [path for path, _ in before][:2] == ["Glacier.md", "Fjord.md"]  # a tie, broken by the older note
    for i in range(20):
        make_note(theirs, f"Ice {i}.md", f"# Ice {i}\nAnother glacier, glacier number {i}.", embed=False)
    assert ranking(reader) == before
    share(theirs, "reader", user=reader)  # once readable, the same words do count
    after = [path for path, _ in ranking(reader)]
    assert after.index("Fjord.md") < after.index("Glacier.md") and ranking(reader) != before


def test_filed_notes_and_daily_logs_stay_with_their_owner(tmp_path):
    """What the Librarian files from a conversation lands in the asker's personal vault only: no other member of
    the shared vaults it drew on ever reads it, by id, by search or in a chat."""
    from apps.chat.models import Message
    from apps.librarian.filing import file_exchange

    world = build_world(13, tmp_path)
    for user in world.users:
        api(user).post("/api/chat/", {"message": "thanks!"}, format="json")  # chatter: the day's log
    filed = [
        note
        for message in Message.objects.filter(role="assistant", conversation__owner__in=world.users)
        if (note := file_exchange(message.pk)) is not None
    ]
    assert {n.path.split("/")[1].startswith("Daily log") for n in filed} == {True, False}
    for note in filed:
        owner = note.vault.owner
        assert note.vault.is_personal and note.vault_id in world.readable(owner)
        for user in world.users:
            if user == owner:
                continue
            client = api(user)
            assert client.get(f"/api/notes/{note.pk}/").status_code == 404
            hits = client.get("/api/search/", {"q": note.title, "k": 50}).json()["results"]
            assert note.pk not in [hit["note"] for hit in hits]
            asked = client.post("/api/chat/", {"message": f"What does {note.title} say?"}, format="json").json()
            assert note.pk not in [item["note"] for item in asked["candidates"]]


def test_an_entity_in_two_vaults_never_carries_the_unreadable_vault_s_facts_into_the_walk():
    """The same name in two vaults is two entities; a walk from the readable one never reaches the other's
    edges, facts or constraints, whatever the graph of the unreadable vault holds."""
    from apps.graph.context import graph_context
    from apps.graph.models import Dependency
    from apps.graph.services import graph_extract_pending
    from apps.graph.traversal import entry_entities, walk

    reader, stranger = make_user("graph-reader"), make_user("graph-stranger")
    mine, theirs = make_vault(reader, "Mine"), make_vault(stranger, "Theirs")
    make_note(mine, "Redis.md", "# Redis\nRedis runs on the Hetzner box and Celery uses Redis as its broker.\n")
    make_note(mine, "Celery.md", "# Celery\nCelery workers read from Redis. Tobias restarts Celery on Mondays.\n")
    for i in range(4):
        make_note(
            theirs,
            f"Secret {i}.md",
            f"# Secret {i}\nRedis must never be restarted without zebracode{i}. Celery and Redis and Tobias "
            f"share the zebracode{i} rota.\n",
        )
    graph_extract_pending(vault_id=mine.pk)
    graph_extract_pending(vault_id=theirs.pk)
    theirs_edges = set(Dependency.objects.filter(vault=theirs).values_list("pk", flat=True))
    assert theirs_edges  # the other vault has a graph of its own under the same names

    with reading_as(reader):
        result = graph_context(
            user=reader, question="What does Tobias do with Redis and Celery?", scope=scope_for(reader)
        )
    shown = " ".join(r.candidate.text for r in result.rated)
    assert "zebracode" not in shown and {r.candidate.vault for r in result.rated} == {mine.pk}
    assert not {e for r in result.rated if r.candidate.trace for e in r.candidate.trace.edges} & theirs_edges

    chunks = [c.pk for n in mine.notes.all() for c in n.chunks.all()]
    stolen = [c.pk for n in theirs.notes.all() for c in n.chunks.all()]
    with reading_as([mine.pk]):
        entry, _ = entry_entities(chunks, scope_of([mine.pk]))
        paths, _ = walk(entry=entry, scope=scope_of([mine.pk]), intent="what", words=["redis"])
        assert not {s.edge for p in paths for s in p.steps} & theirs_edges
        assert entry_entities(stolen, scope_of([mine.pk])) == ([], {})  # chunk ids from elsewhere open no door


def test_a_confirm_in_a_vault_the_asker_cannot_read_never_changes_the_asker_s_candidates():
    """What a question taught in one vault reaches near questions only for those who read that vault: the same
    passage, word for word, confirmed in a vault the asker cannot read moves nothing in the asker's context."""
    from apps.graph.questions import question_priors
    from apps.graph.services import graph_extract_pending
    from apps.llm.embeddings import embed_query

    reader, stranger = make_user("transfer-reader"), make_user("transfer-stranger")
    mine, theirs = make_vault(reader, "Mine"), make_vault(stranger, "Theirs")
    for vault in (mine, theirs):
        for i, topic in enumerate(["parking permits", "the coffee machine", "fire drills", "desk booking"]):
            make_note(vault, f"office/{i:02d}.md", f"# Office {i}\n\nThe team handles {topic} every week.\n")
        make_note(vault, "form-7.md", "# Form 7\n\nFill in form 7 at the front desk; reception processes it.\n")
        graph_extract_pending(vault_id=vault.pk)
    paraphrase = "What is the way to obtain a car parking permit for the office?"

    def asked(user: User, vault_ids: list[int] | None, question: str) -> dict[str, tuple[int, float | None, bool]]:
        body = {"message": question, **({"vaults": vault_ids} if vault_ids else {})}
        reply = api(user).post("/api/chat/", body, format="json").json()
        items = ContextItem.objects.filter(message_id=reply["message"])
        return {f"{i.vault_id}/{i.path}": (i.position, i.probability, i.survived) for i in items}

    before = asked(reader, None, paraphrase)
    theirs_before = asked(stranger, [theirs.pk], paraphrase)
    reply = api(stranger).post(
        "/api/chat/",
        {"vaults": [theirs.pk], "message": "How do I get a permit to park my car at the office?"},
        format="json",
    )
    form = ContextItem.objects.get(message_id=reply.json()["message"], path="form-7.md")
    for signal in ("confirm", "used"):
        vote = api(stranger).post("/api/feedback/", {"context_item": form.pk, "signal": signal}, format="json")
        assert vote.status_code == 201

    vector = embed_query(paraphrase)
    with reading_as([theirs.pk]):
        assert question_priors(vector=vector, scope=scope_of([theirs.pk]))  # the stranger's near questions inherit it
    assert asked(stranger, [theirs.pk], paraphrase) != theirs_before
    with reading_as([mine.pk]):
        assert question_priors(vector=vector, scope=scope_of([mine.pk])) == {}
    assert asked(reader, None, paraphrase) == before  # the reader's candidates, order and estimates: untouched


def test_explorers_only_ever_scout_readable_vaults():
    """An explorer's speculative unit comes from the requester's vaults, however close in meaning and far in the
    graph an unreadable vault's passages are; its bridge stays in the readable vault too."""
    from apps.graph.explore import explore
    from apps.graph.models import Dependency
    from apps.graph.services import graph_extract_pending
    from apps.llm.embeddings import embed_query
    from apps.notes.models import Chunk
    from tests.graph.test_doors import TOPICS

    reader, stranger = make_user("scout-reader"), make_user("scout-stranger")
    mine, theirs = make_vault(reader, "Mine"), make_vault(stranger, "Theirs")
    make_note(mine, "Redis.md", "# Redis\n\nRedis holds the job queue; Celery workers pull jobs from Redis.\n")
    for i in range(30):
        make_note(mine, f"office/{i:02d}.md", f"# Office {i}\n\nOn floor {i % 7} we handle {TOPICS[i % 22]}.\n")
    for i in range(5):
        make_note(theirs, f"Queue {i}.md", f"# Queue {i}\n\nWorkers pull jobs from the queue zebracode{i}.\n")
    graph_extract_pending(vault_id=mine.pk)
    graph_extract_pending(vault_id=theirs.pk)
    question = "How do workers pull jobs from the queue?"
    searched = list(Chunk.objects.filter(vault=mine, note__path="Redis.md").values_list("pk", flat=True))

    vector = embed_query(question)
    with reading_as([mine.pk]):
        unit = explore(
            question=question,
            vector=vector,
            scope=scope_of([mine.pk]),
            searched=searched,
            shown=set(searched),
            intent="what",
        )

    assert unit is not None and unit.candidate.vault == mine.pk and "zebracode" not in unit.candidate.text
    assert Dependency.objects.filter(vault=theirs, kind="bridge").count() == 0


def test_session_summaries_are_read_by_their_owner_only(tmp_path):
    """Every conversation of the world summarised and condensed into weeks: the summary API lists and opens a
    person's own nodes only (anyone else's is the 404 of a missing one), a "what changed" question walks the
    asker's own summaries only. (The schema-wide sweep runs with summaries present in the test above.)"""
    from apps.graph.context import graph_context
    from apps.librarian.tasks import summaries_daily

    world = build_world(19, tmp_path)
    assert summaries_daily()["summarised"] == Conversation.objects.filter(owner__in=world.users).count()
    nodes = list(SummaryNode.objects.filter(owner__in=world.users))
    assert {n.level for n in nodes} == {0, 1}  # each person's conversations of this week condensed
    for user in world.users:
        client = api(user)
        own = {n.pk for n in nodes if n.owner_id == user.pk}
        personal = Vault.objects.get(owner=user, is_personal=True)
        assert own and {n["id"] for n in client.get("/api/summaries/").json()} == own
        for node in nodes:
            opened = client.get(f"/api/summaries/{node.pk}/")
            assert opened.status_code == (200 if node.pk in own else 404), (user.username, node.pk)
            if node.conversation_id is not None and node.pk not in own:
                assert client.get("/api/summaries/", {"conversation": node.conversation_id}).json() == []
        with reading_as(user):
            changed = graph_context(user=user, question="What changed about the code word?", scope=scope_for(user))
        walked = [r.candidate for r in changed.rated if r.candidate.trace and r.candidate.trace.summaries]
        assert walked and {c.vault for c in walked} == {personal.pk}
        assert {pk for c in walked if c.trace for pk in c.trace.summaries} <= own


def test_a_prewarmed_context_is_read_by_its_asker_only_and_only_while_they_read_its_vaults(monkeypatch):
    """A pre-warmed context (`apps.chat.prewarm`) is a read path of its own: keyed to the person whose habit it
    is and the exact vaults they asked over, its chunks read again through the permission filter when used. Nobody
    else gets it, even someone reading the same vault, and its asker stops getting it the moment a share goes."""
    from datetime import UTC, datetime

    from django.conf import settings
    from django.utils import timezone

    from apps.chat.prewarm import prewarm_hour, prewarmed_context, question_rhythm_record

    owner, asker, colleague, stranger = (make_user(f"warm-{n}") for n in ("owner", "asker", "colleague", "stranger"))
    team = make_vault(owner, "Warm team")
    marker = f"zqx{team.pk}mark{secrets.token_hex(4)}"
    make_note(team, "Rota.md", f"# Rota\nThe rota code word is {marker}.\n")
    share(team, "reader", user=asker)
    share(team, "reader", user=colleague)
    question = "What is the rota code word?"
    for day in (2, 3, 4):  # confirmed at nine on three days: burned in
        asked = datetime(2026, 11, day, 9, 5, tzinfo=UTC)
        question_rhythm_record(user=asker, vault_ids=[team.pk], question=question, at=asked)
    assert prewarm_hour(now=datetime(2026, 11, 5, 8, 50, tzinfo=UTC)) == 1
    nine = datetime(2026, 11, 5, 9, 10, tzinfo=UTC)
    monkeypatch.setattr(timezone, "now", lambda: nine)
    usable = {
        "question": question,
        "scope": scope_of([team.pk]),
        "threshold": 3,
        "scoring": settings.LLM_SLOTS["scoring"],
    }

    def chat(user, vaults):
        return api(user).post("/api/chat/", {"message": question, "vaults": vaults}, format="json")

    mine = chat(asker, [team.pk]).json()
    assert mine["prewarmed"] is True and marker in " ".join(c["text"] for c in mine["context"])  # the check can fail
    for user in (colleague, stranger):
        with reading_as(user):
            assert prewarmed_context(user=user, **usable) is None
    theirs = chat(colleague, [team.pk]).json()
    assert theirs["prewarmed"] is False  # the same question over the same vault: searched for them, as them
    assert chat(stranger, [team.pk]).status_code == 404
    assert marker not in chat(stranger, []).content.decode().lower()

    vault_unshare(actor=owner, vault=team, user=asker)
    with reading_as(asker):
        assert prewarmed_context(user=asker, **usable) is None
    assert chat(asker, [team.pk]).status_code == 404
    after = chat(asker, [])
    assert after.json()["prewarmed"] is False and marker not in after.content.decode().lower()


def test_conversation_structure_is_read_only_from_the_requester_s_vaults(vault):
    """The speakers and replies of an unreadable vault never shape a score."""
    import numpy as np

    from apps.graph.relevance import graph_features
    from apps.retrieval.candidates import load_chunks
    from tests.graph.test_conversation import conversation

    turns = conversation(vault)
    stranger = make_user("conversation-stranger")
    mine = make_vault(stranger, "Mine")
    make_note(mine, "Other.md", "# Other\nNothing here.\n")
    question = "What is the name of Maria's second puppy?"
    with reading_as([vault.pk]):
        candidates = load_chunks(chunks=[c.pk for c in turns.values()], query_vector=None, scope=scope_of([vault.pk]))
        base = np.full(len(candidates), 0.5)
        assert graph_features(question, candidates, base, scope_of([vault.pk])).any()
    with reading_as([mine.pk]):
        assert not graph_features(question, candidates, base, scope_of([mine.pk])).any()


def test_a_confirm_opens_doors_only_to_the_turns_beside_it_in_its_own_vault(vault):
    """The turns beside a confirmed turn are read from its vault only: a chunk of another vault has none there."""
    from apps.graph.conversation import neighbours_of
    from tests.graph.test_conversation import conversation

    turns = conversation(vault)
    other = make_vault(make_user("neighbour-stranger"), "Theirs")
    theirs = conversation(other)
    with reading_as([vault.pk]):
        assert neighbours_of(chunk_id=turns[3].pk, vault_id=vault.pk) == [
            (turns[n].note_id, turns[n].content_hash) for n in (2, 4)
        ]  # the check can fail
        assert neighbours_of(chunk_id=theirs[3].pk, vault_id=vault.pk) == []
    with reading_as([other.pk]):
        assert neighbours_of(chunk_id=turns[3].pk, vault_id=other.pk) == []


def test_export_and_coverage_of_a_vault_one_may_not_read_answer_as_a_missing_vault(tmp_path):
    owner, stranger = make_user(), make_user()
    vault, other = make_vault(owner, "Private"), make_vault(owner, "Other")
    (tmp_path / "Secret plans.md").write_text("# Secret plans\nzqx0markdeadbeef\n")
    import_folder(vault, tmp_path, follow_up=False)
    export = export_job_run(job_id=export_job_create(actor=owner, vault=vault).pk)
    urls = [
        f"/api/vaults/{vault.pk}/export/",
        f"/api/vaults/{vault.pk}/coverage/",
        f"/api/exports/{export.pk}/",
        f"/api/exports/{export.pk}/download/",
    ]
    missing = [url.replace(str(vault.pk), "999999").replace(str(export.pk), "999999") for url in urls]
    assert [api(owner).get(url).status_code for url in urls] == [200, 200, 200, 200]

    # A stranger, and the owner through a token limited to the other vault: exactly what a missing vault answers.
    for client in (api(stranger), api_with_token(owner, vaults=[other])):
        for url, absent in zip(urls, missing, strict=True):
            refused, nothing = client.get(url), client.get(absent)
            assert refused.status_code == nothing.status_code == 404, url
            assert refused.json() == nothing.json()
            assert "zqx0markdeadbeef" not in refused.content.decode()
        assert client.post(f"/api/vaults/{vault.pk}/export/").status_code == 404
    browser = Client()
    browser.force_login(stranger)
    assert browser.get(f"/vaults/{vault.pk}/coverage/").status_code == 404
    assert browser.get(f"/exports/{export.pk}/").status_code == 404
    assert browser.post(f"/vaults/{vault.pk}/export/").status_code == 404
    # Revoked: a manager whose share is taken back loses the vault's exports with it.
    manager = make_user()
    share(vault, "manager", user=manager)
    assert api(manager).get(f"/api/exports/{export.pk}/download/").status_code == 200
    vault_unshare(actor=owner, vault=vault, user=manager)
    assert api(manager).get(f"/api/exports/{export.pk}/download/").status_code == 404
    assert api(manager).get(f"/api/vaults/{vault.pk}/coverage/").status_code == 404


def test_the_note_editor_of_a_vault_one_may_not_read_answers_as_a_missing_note():
    owner, member = make_user(), make_user()
    theirs, mine = make_vault(owner, "Theirs"), make_vault(member, "Mine")
    secret = make_note(theirs, "Secret.md", "# Secret\nzqx0markfeedface\n", embed=False)
    browser = Client()
    browser.force_login(member)
    for url in (f"/notes/{secret.pk}/edit/", f"/vaults/{theirs.pk}/notes/new/"):
        assert browser.get(url).status_code == 404
        assert browser.get(url.replace(str(secret.pk), "999999").replace(str(theirs.pk), "999999")).status_code == 404
    edit = {"path": "Secret.md", "body": "taken over", "version": note_version(secret), "action": "save"}
    posts = [
        (f"/notes/{secret.pk}/edit/", edit),
        (f"/notes/{secret.pk}/edit/", {**edit, "action": "preview"}),
        (f"/notes/{secret.pk}/delete/", {}),
        (f"/notes/{secret.pk}/restore/", {}),
        (f"/vaults/{theirs.pk}/notes/new/", {"path": "Planted.md", "body": "planted", "action": "save"}),
    ]
    for url, form in posts:
        response = browser.post(url, form)
        assert response.status_code == 404 and b"zqx0markfeedface" not in response.content, url
    assert list(Note.objects.filter(vault=theirs).values_list("pk", "body", "tier")) == [
        (secret.pk, "# Secret\nzqx0markfeedface\n", "hot")
    ]
    # In their own vault's editor, the other vault's note is neither offered nor linked by the preview.
    own = browser.get(f"/vaults/{mine.pk}/notes/new/").content.decode()
    assert "Secret" not in own
    preview = browser.post(f"/vaults/{mine.pk}/notes/new/", {"path": "A.md", "body": "[[Secret]]", "action": "preview"})
    assert f"/notes/{secret.pk}/" not in preview.content.decode() and 'class="unresolved"' in preview.content.decode()


def test_a_conversation_is_deleted_by_its_owner_only(sample):
    """Deleting is keyed by the requester as reading is: anyone else's conversation is a missing one (API and page),
    and a read-only token of the owner's deletes nothing."""
    from tests.chat.test_chat_api import ask

    people = [sample.owner, make_user("deleter-a"), make_user("deleter-b")]
    for person in people[1:]:
        share(sample, "reader", user=person)
    theirs = {person.pk: ask(person, "What is a PTW?", [sample.pk])["conversation"] for person in people}
    for person in people:
        browser = Client()
        browser.force_login(person)
        for owner_id, conversation in theirs.items():
            if owner_id == person.pk:
                continue
            assert api(person).delete(f"/api/conversations/{conversation}/").status_code == 404
            assert browser.post(f"/chat/conversations/{conversation}/delete/").status_code == 404
    mine = theirs[people[1].pk]
    assert api_with_token(people[1], read_only=True).delete(f"/api/conversations/{mine}/").status_code == 403
    assert Conversation.objects.filter(pk__in=theirs.values()).count() == len(people)
    assert api(people[1]).delete(f"/api/conversations/{mine}/").status_code == 204


def _one_item_per_case(items: list[ContextItem]) -> list[ContextItem]:
    """One context item for each conversation owner, vault and kind (an explorer's find or not): whether a requester
    may rate an item is decided by its conversation's owner and its vault alone, so every other item of a case takes
    the same path through the same statement and would only multiply the requests."""
    cases: dict[tuple[int, int, bool], ContextItem] = {}
    for item in items:
        cases.setdefault((item.message.conversation.owner_id, item.vault_id, item.speculative), item)
    assert len({c[:2] for c in cases}) > 5  # owners and vaults enough that rating can go either way
    return list(cases.values())


def _role(world: World, user: User, vault_id: int) -> str | None:
    """The strongest role `user` holds on a vault, from what was generated."""
    if world.owner[vault_id] == user.pk:
        return "manager"
    teams = {t for t, users in world.members.items() if user.pk in users}
    roles = {world.direct.get((user.pk, vault_id))} | {world.team_roles.get((t, vault_id)) for t in teams}
    return next((r for r in ("manager", "contributor", "reader") if r in roles), None)


@dataclass(frozen=True)
class _McpRequester:
    who: str
    user: User
    key: str
    readable: set[int]
    read_only: bool = False


def _mcp_requesters(world: World, users: set[int] | None = None) -> Iterator[_McpRequester]:
    """Every user through an unlimited token, a read-only one and one limited to a shared vault they read."""
    for user in world.users:
        if users is not None and user.pk not in users:
            continue
        readable = world.readable(user)
        yield _McpRequester(user.username, user, token_create(user=user, name="mcp").key, readable)
        key = token_create(user=user, name="mcp read-only", read_only=True).key
        yield _McpRequester(f"{user.username} (read-only)", user, key, readable, read_only=True)
        shared = sorted(v for v in readable if not Vault.objects.get(pk=v).is_personal)
        if shared:
            only = shared[user.pk % len(shared)]
            key = token_create(user=user, name="mcp limited", vault_ids=[only]).key
            yield _McpRequester(f"{user.username} (token for {only})", user, key, {only})


def _check_every_mcp_tool(
    world: World, items: list[ContextItem], stage: str, users: set[int] | None = None
) -> set[str]:
    """Every MCP tool, as each requester, on every vault and note of the world and each case of context item: found,
    read, asked, written and rated exactly where the requester may; no result names a marker of a vault they may not
    read. The markers each requester was shown, returned."""
    plain = {v: Note.objects.get(vault_id=v, path="Plain.md").pk for v in world.markers}
    seen: set[str] = set()
    for requester in _mcp_requesters(world, users):
        who, readable, key = requester.who, requester.readable, requester.key
        allowed = {world.markers[v] for v in readable}
        results: list[object] = []

        def tool(name: str, **arguments: object) -> tuple[bool, object]:
            ok, result = call(key, name, **arguments)  # noqa: B023 - used within this requester's loop only
            results.append(result)  # noqa: B023
            return ok, result

        ok, listed = tool("list_vaults")
        assert ok and {v["vault"] for v in listed["vaults"]} == readable, who
        for vault_id, marker in world.markers.items():
            mine = vault_id in readable
            ok, found = tool("search", query=marker)
            hit = ok and any(h["vault"] == vault_id and marker in h["path"] for h in found["results"])
            assert hit == mine and all(h["vault"] in readable for h in found["results"]), (who, vault_id)
            ok, scoped = tool("search", query=marker, vaults=[vault_id])
            assert ok == mine and (mine or "No vault matches" in scoped), (who, vault_id, scoped)
            ok, note = tool("get_note", note=plain[vault_id])
            assert ok == mine and (mine or "No note matches" in note), (who, vault_id, note)
            ok, answer = tool("ask", question=f"What is the code word {marker}?", vaults=[vault_id])
            assert ok == mine, (who, vault_id, answer)
            if mine:
                assert all(c["vault"] == vault_id for c in answer["citations"]), (who, answer)
            path = f"mcp/{stage}/{who}.md"
            may_write = mine and not requester.read_only and _role(world, requester.user, vault_id) != "reader"
            ok, written = tool("write_note", vault=vault_id, path=path, body=f"# Planted by {who}")
            assert ok == may_write, (who, vault_id, written)
            assert Note.objects.filter(vault_id=vault_id, path=path).exists() == may_write
            if not ok and not mine:
                assert "read-only" in written if requester.read_only else "No vault matches" in written
        tool("ask", question="What is the plain note about gardening?")
        for item in _one_item_per_case(items):
            ok, vote = tool("feedback", context_item=item.pk, signal="not_useful")
            rated = item.message.conversation.owner_id == requester.user.pk and item.vault_id in readable
            assert ok == (rated and not requester.read_only), (who, item.pk, vote)
        shown = " ".join(json.dumps(result) for result in results).lower()
        leaked = set(MARKER.findall(shown)) - allowed
        assert not leaked, (who, leaked)
        seen |= set(MARKER.findall(shown))
    return seen


def test_every_mcp_tool_only_ever_reaches_readable_vaults_before_and_after_revocation(tmp_path):
    world = build_world(13, tmp_path)
    items = list(ContextItem.objects.select_related("message__conversation"))
    assert items  # the world's chats gathered context to rate
    # The check can fail: every marker is shown to those who may read its vault.
    assert _check_every_mcp_tool(world, items, "before") == set(world.markers.values())

    _check_every_mcp_tool(world, items, "after", users=_revoke_one_share_and_one_membership(world, 13))

    # A revoked token answers nothing at all, whatever the tool.
    user = world.users[0]
    token = token_create(user=user, name="mcp to revoke")
    token_revoke(actor=user, token=token.token)
    for method, params in [("tools/list", {}), ("tools/call", {"name": "list_vaults", "arguments": {}})]:
        status, body = rpc(token.key, method, params)
        assert status == 401 and "result" not in body


def test_insight_cards_are_read_and_answered_only_by_their_vaults_readers(tmp_path):
    world = build_world(13, tmp_path)
    cards = list(Card.objects.filter(vault__in=world.vaults).exclude(narrative=""))
    assert {c.vault_id for c in cards} == {v.pk for v in world.vaults}  # every vault has ready cards
    for who, client, readable in _limited_requesters(world):
        for vault in world.vaults:
            listed = client.get(f"/api/insights/?vault={vault.pk}")
            assert listed.status_code == (200 if vault.pk in readable else 404), (who, vault.pk)
        for card in cards:
            answered = client.post(f"/api/insights/cards/{card.pk}/", {"signal": "dismiss"}, format="json")
            assert answered.status_code == (200 if card.vault_id in readable else 404), (who, card.pk)
