"""The role matrix of the README, row by row: who may do what on every endpoint.

Vault roles are cumulative (reader < contributor < manager); a role can come directly or through a team.
Someone without any role sees 404, exactly as if the vault did not exist.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User

from apps.graph.models import Entity
from apps.insights.models import Principle
from apps.notes.models import ImportJob, Note
from apps.notes.services.corrections import correction_submit
from apps.notes.services.ingest import import_job_create
from apps.notes.services.notes import note_delete
from tests.factories import api, make_note, make_team, make_user, make_vault, share

pytestmark = pytest.mark.django_db

ROLES = ("outsider", "reader", "contributor", "team_contributor", "manager")


@dataclass
class World:
    vault_id: int
    note_id: int
    cold_note_id: int
    job_id: int
    correction_id: int
    entity_id: int
    principle_id: int
    target_user: User
    users: dict[str, User]


@pytest.fixture
def world(db) -> World:
    owner = make_user()
    vault = make_vault(owner, "Shared")
    users = {role: make_user(f"{role}-{vault.pk}") for role in ROLES if role != "manager"}
    users["manager"] = make_user(f"manager-{vault.pk}")
    share(vault, "reader", user=users["reader"])
    share(vault, "contributor", user=users["contributor"])
    share(vault, "manager", user=users["manager"])
    team = make_team(owner, users["team_contributor"])
    share(vault, "contributor", team=team)
    note = make_note(vault, "Note.md", "# Note\nbody", embed=False)
    cold = make_note(vault, "Cold.md", "# Cold\nbody", embed=False)
    note_delete(actor=owner, note=cold)
    job = import_job_create(actor=owner, vault=vault, archive=_zip(), source="z")
    target = make_user()
    share(vault, "reader", user=target)
    proposed = correction_submit(user=users["reader"], chunk=note.chunks.get(), text="The body is wrong.")
    demoted = Entity.objects.create(vault=vault, name="Demoted", key="demoted", kind="thing", tier="cold")
    noticed = Entity.objects.create(vault=vault, name="Small parts", key="principle: small", kind="principle")
    principle = Principle.objects.create(vault=vault, entity=noticed, signature="small", statement="Small parts.")
    return World(vault.pk, note.pk, cold.pk, job.pk, proposed.pk, demoted.pk, principle.pk, target, users)


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("Imported.md", "# Imported\n")
    return buffer.getvalue()


def _request(world: World, user: User | None, method: str, url: str, body: dict | None = None):
    url = url.format(
        vault=world.vault_id,
        note=world.note_id,
        cold=world.cold_note_id,
        job=world.job_id,
        correction=world.correction_id,
        entity=world.entity_id,
        principle=world.principle_id,
        target=world.target_user.pk,
    )
    client = api(user)
    if method == "import":
        upload = io.BytesIO(_zip())
        upload.name = "vault.zip"
        return client.post(url, {"file": upload}, format="multipart")
    return getattr(client, method)(url, body, format="json") if body is not None else getattr(client, method)(url)


#   method, url, body, expected status for: outsider, reader, contributor, team_contributor, manager
VAULT_MATRIX = [
    ("get", "/api/vaults/{vault}/", None, (404, 200, 200, 200, 200)),
    ("patch", "/api/vaults/{vault}/", {"name": "Renamed", "archived": True}, (404, 403, 403, 403, 200)),
    ("get", "/api/vaults/{vault}/shares/", None, (404, 200, 200, 200, 200)),
    ("post", "/api/vaults/{vault}/shares/", {"user": "{target}", "role": "contributor"}, (404, 403, 403, 403, 201)),
    ("delete", "/api/vaults/{vault}/shares/?user={target}", None, (404, 403, 403, 403, 204)),
    ("get", "/api/vaults/{vault}/notes/", None, (404, 200, 200, 200, 200)),
    ("post", "/api/vaults/{vault}/notes/", {"path": "New.md", "body": "new"}, (404, 403, 201, 201, 201)),
    ("get", "/api/notes/{note}/", None, (404, 200, 200, 200, 200)),
    ("put", "/api/notes/{note}/", {"body": "changed"}, (404, 403, 200, 200, 200)),
    ("delete", "/api/notes/{note}/", None, (404, 403, 200, 200, 200)),
    ("post", "/api/notes/{cold}/restore/", None, (404, 403, 403, 403, 200)),
    ("post", "/api/notes/{cold}/purge/", None, (404, 403, 403, 403, 204)),
    ("import", "/api/vaults/{vault}/import/", None, (404, 403, 202, 202, 202)),
    ("get", "/api/vaults/{vault}/jobs/", None, (404, 200, 200, 200, 200)),
    ("get", "/api/jobs/{job}/", None, (404, 200, 200, 200, 200)),
    ("get", "/api/search/?q=note&vault={vault}", None, (404, 200, 200, 200, 200)),
    ("get", "/api/usage/?vault={vault}", None, (404, 403, 403, 403, 200)),
    ("get", "/api/vaults/{vault}/settings/", None, (404, 200, 200, 200, 200)),
    ("put", "/api/vaults/{vault}/settings/", {"gate_threshold": 4}, (404, 403, 403, 403, 200)),
    ("get", "/api/vaults/{vault}/corrections/", None, (404, 403, 200, 200, 200)),
    ("post", "/api/corrections/{correction}/", {"action": "decline"}, (404, 403, 200, 200, 200)),
    ("get", "/api/graph/constellation/?vault={vault}", None, (404, 200, 200, 200, 200)),
    ("post", "/api/entities/{entity}/revive/", None, (404, 403, 403, 403, 200)),
    ("get", "/api/principles/?vault={vault}", None, (404, 200, 200, 200, 200)),
    ("post", "/api/principles/{principle}/", {"signal": "correct", "text": "Refined."}, (404, 403, 200, 200, 200)),
]


@pytest.mark.parametrize(
    ("method", "url", "body", "expected"), VAULT_MATRIX, ids=[f"{r[0]} {r[1]}" for r in VAULT_MATRIX]
)
@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_vault_role_matrix(world, method, url, body, expected, role_index):
    role = ROLES[role_index]
    if body is not None:
        body = {k: (world.target_user.pk if v == "{target}" else v) for k, v in body.items()}
    response = _request(world, world.users[role], method, url, body)
    assert response.status_code == expected[role_index], (role, response.content[:300])


def test_effects_follow_the_matrix(world):
    """Allowed calls really change things; refused ones change nothing."""
    reader, contributor = world.users["reader"], world.users["contributor"]
    _request(world, reader, "put", "/api/notes/{note}/", {"body": "reader was here"})
    assert Note.objects.get(pk=world.note_id).body == "# Note\nbody"
    _request(world, contributor, "put", "/api/notes/{note}/", {"body": "contributor was here"})
    assert Note.objects.get(pk=world.note_id).body == "contributor was here"
    before = ImportJob.objects.count()
    _request(world, reader, "import", "/api/vaults/{vault}/import/")
    assert ImportJob.objects.count() == before


def test_anonymous_requests_are_refused(world):
    urls = [row[1] for row in VAULT_MATRIX] + ["/api/teams/", "/api/me/", "/api/users/", "/api/vaults/"]
    statuses = {
        (method, url): _request(world, None, method, url).status_code
        for url in urls
        for method in ("get", "post", "put", "delete")
    }
    assert {key: code for key, code in statuses.items() if code not in (401, 405)} == {}


def test_nobody_raises_their_own_role_on_a_vault(db):
    owner, reader, contributor, manager = make_user(), make_user(), make_user(), make_user()
    vault = make_vault(owner)
    team = make_team(contributor, name="contributors' own team")
    share(vault, "reader", user=reader)
    share(vault, "contributor", user=contributor)
    share(vault, "manager", user=manager)
    url = f"/api/vaults/{vault.pk}/shares/"
    assert api(reader).post(url, {"user": reader.pk, "role": "manager"}, format="json").status_code == 403
    assert api(contributor).post(url, {"team": team.pk, "role": "manager"}, format="json").status_code == 403
    assert api(manager).post(url, {"user": manager.pk, "role": "reader"}, format="json").status_code == 400
    assert api(manager).post(url, {"user": owner.pk, "role": "reader"}, format="json").status_code == 400
    roles = {v["id"]: v["role"] for v in api(reader).get("/api/vaults/").json()}
    assert roles[vault.pk] == "reader"


def test_a_manager_cannot_keep_a_role_through_a_team_of_their_own(db):
    owner, manager = make_user(), make_user()
    vault = make_vault(owner)
    share(vault, "manager", user=manager)
    own_team = make_team(manager, name="just me")
    url = f"/api/vaults/{vault.pk}/shares/"
    assert api(manager).post(url, {"team": own_team.pk, "role": "manager"}, format="json").status_code == 400
    assert api(owner).delete(f"{url}?user={manager.pk}").status_code == 204
    assert api(manager).get(f"/api/vaults/{vault.pk}/").status_code == 404
