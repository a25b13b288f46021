"""An admin that observes: every model registered in the admin, every action and every form is enumerated, and none
reaches a note body, a passage, a conversation, a token key, a role assignment or a learned value; logs, ledgers,
usage, imports and metadata cannot be deleted or edited there; the beat schedule is the project's own."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group, Permission, User
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.test import Client, RequestFactory
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from apps.accounts.models import ApiToken, Team, TeamMembership
from apps.accounts.tokens import token_create
from apps.chat.models import Conversation, Message
from apps.graph.models import Entity, EntityKind, RatedQuestion
from apps.insights.models import Principle
from apps.librarian.enrich import enrich_note
from apps.librarian.models import NoteMetadata
from apps.notes.models import LIBRARIAN_SOURCE, Chunk, Correction, Note
from apps.vaults.models import TeamGrant
from tests.factories import make_note, make_team, make_user, make_vault, share

pytestmark = pytest.mark.django_db
MARKER = "zebraquill"
PLANTED = [
    MARKER + part
    for part in ("prop", "body", "passage", "fix", "claim", "tension", "message", "principle", "filed", "asked")
]

# What a vault's readers (or a token's holder) read: never shown, listed or searchable in the admin.
CONTENT = {
    "notes.Note": {"body", "frontmatter"},
    "notes.Chunk": {"text"},
    "graph.Entity": {"name", "key"},
    "graph.RatedQuestion": {"text", "embedding"},
    "notes.Correction": {"passage", "text"},
    "chat.Message": {"text"},
    "chat.ContextItem": {"text"},
    "accounts.ApiToken": {"key_hash"},
    "librarian.NoteMetadata": {"core_claim", "tensions"},
    "insights.Principle": {"statement", "previous"},
    "insights.Evidence": {"sentence"},
    "insights.Answer": {"text"},
    "insights.Notification": {"title", "text"},
    "insights.Concept": {"label", "key", "description", "relations", "fallback"},
    "insights.Screening": {"label", "reason", "fallback", "formation_error"},
}
# Not in the admin at all: conversations, passages, and whatever assigns a role or a membership.
UNREGISTERED = {
    "chat.Conversation",
    "chat.Message",
    "chat.ContextItem",
    "feedback.Feedback",
    "notes.Chunk",
    "notes.ChunkVector",
    "auth.Group",
    "auth.Permission",
    "accounts.TeamMembership",
    "vaults.TeamGrant",
    "guardian.UserObjectPermission",
    "guardian.GroupObjectPermission",
}
ROLE_MODELS = (Group, Permission, Team, TeamMembership, TeamGrant)
# The only models the admin may change, and the only fields it may change on them.
EDITABLE = {
    "auth.User": {
        "username",
        "password",
        "first_name",
        "last_name",
        "email",
        "is_active",
        "is_staff",
        "is_superuser",
        "last_login",
        "date_joined",
    },
    "vaults.Vault": {"name"},
    "django_celery_beat.PeriodicTask": {
        "enabled",
        "interval",
        "crontab",
        "solar",
        "start_time",
        "expires",
        "expire_seconds",
    },
    "django_celery_beat.IntervalSchedule": {"every", "period"},
    "django_celery_beat.CrontabSchedule": {
        "minute",
        "hour",
        "day_of_month",
        "month_of_year",
        "day_of_week",
        "timezone",
    },
    "django_celery_beat.SolarSchedule": {"event", "latitude", "longitude"},
    "django_celery_beat.ClockedSchedule": {"clocked_time"},
    # sign-in records: their change pages show every field read-only
    "axes.AccessAttempt": set(),
    "axes.AccessLog": set(),
    "axes.AccessFailureLog": set(),
}
ADDABLE = {
    "auth.User",
    *(label for label in EDITABLE if label.startswith("django_celery_beat.") and "Task" not in label),
}
# Deleting an access attempt lifts a sign-in lock (docs/permissions.md); nothing else is deleted here.
DELETABLE = {"axes.AccessAttempt"}
# Admin pages that are not a model's: reports, read-only.
REPORTS = ("/admin/feedback-report/", "/admin/feedback-report.csv")
ACTIONS = {
    "accounts.ApiToken": {"revoke"},
    "vaults.Vault": {"reenrich_all"},
    "django_celery_beat.PeriodicTask": {"enable_tasks", "disable_tasks", "toggle_tasks"},
    "axes.AccessAttempt": {"delete_selected", "cleanup_expired_attempts"},
}


@pytest.fixture
def superuser() -> User:
    return User.objects.create_superuser("root-observer", password="x-long-password-1")


def _request(user: User):
    request = RequestFactory().get("/admin/")
    request.user = user
    return request


def _model_field(model: type[models.Model], name: str) -> models.Field | None:
    head = name.split("__", 1)[0].lstrip("^=@")
    try:
        field = model._meta.get_field(head)
    except FieldDoesNotExist:  # a method or a computed column: checked by the pages test below
        return None
    return field if isinstance(field, models.Field) else None


def _shown(model_admin, request, obj) -> set[str]:
    names = set(model_admin.get_fields(request, obj)) | set(model_admin.get_readonly_fields(request, obj))
    if isinstance(model_admin, admin.ModelAdmin):
        names |= {n for n in model_admin.get_list_display(request) if isinstance(n, str)}
        names |= set(model_admin.get_search_fields(request) or ())
    return names


def _admins(request):
    for model, model_admin in admin.site._registry.items():
        yield model, model_admin
        for inline in model_admin.get_inline_instances(request, None):
            yield inline.model, inline


def test_every_admin_model_form_and_action_is_observation_only(superuser):
    request = _request(superuser)
    registered = {model._meta.label for model in admin.site._registry}
    assert not registered & UNREGISTERED, registered & UNREGISTERED
    assert {"notes.Note", "accounts.ApiToken", "graph.WeightChange", "llm.ModelUsage"} <= registered  # it enumerates

    for model, model_admin in _admins(request):
        label = model._meta.label
        for name in _shown(model_admin, request, None):
            field = _model_field(model, name)
            assert field is None or field.name not in CONTENT.get(label, set()), (label, name)
        is_inline = model_admin not in admin.site._registry.values()
        if is_inline:
            assert not model_admin.has_add_permission(request, None), label
            assert not model_admin.can_delete or not model_admin.has_delete_permission(request, None), label
            editable = set(model_admin.get_formset(request, None).form.base_fields) - set(
                model_admin.get_readonly_fields(request, None)
            )
            assert editable <= {"id", "DELETE"} or label.startswith("django_celery_beat."), (label, editable)
            continue
        assert model_admin.has_delete_permission(request) == (label in DELETABLE), label
        assert model_admin.has_add_permission(request) == (label in ADDABLE), label
        assert set(model_admin.get_actions(request)) <= ACTIONS.get(label, set()), (
            label,
            model_admin.get_actions(request),
        )
        if not model_admin.has_change_permission(request):
            continue
        assert label in EDITABLE, f"{label} can be changed in the admin"
        instance = model()
        form = model_admin.get_form(request, instance, change=True)
        editable = set(form.base_fields) - set(model_admin.get_readonly_fields(request, instance))
        assert editable <= EDITABLE[label], (label, editable - EDITABLE[label])
        for name in editable:
            field = _model_field(model, name)
            related = getattr(field, "related_model", None)
            assert name not in {"groups", "user_permissions", "permissions"}, (label, name)
            assert related not in ROLE_MODELS, (label, name)
            assert model._meta.app_label != "graph", (label, name)  # no learned value is set by hand


def test_no_admin_page_shows_a_note_body_a_passage_a_message_or_a_key(superuser, sample):
    owner = make_user()
    vault = make_vault(owner, "Vault")
    note = make_note(vault, "Plain title.md", f"---\nsecret: {MARKER}prop\n---\n# Plain title\nThe {MARKER}body.")
    chunk = Chunk.objects.filter(note=note).first()
    Correction.objects.create(
        vault=vault, note=note, content_hash=chunk.content_hash, passage=f"{MARKER}passage", text=f"{MARKER}fix"
    )
    written = {
        "core_claim": f"{MARKER}claim",
        "bridging_domains": ["ops"],
        "tensions": [f"{MARKER}tension"],
        "model": "m",
        "content_hash": note.content_hash,
        "written_at": note.created_at,
    }
    assert enrich_note(note) is not None  # the metadata and a version of it on record (the history keeps no words)
    NoteMetadata.objects.filter(note=note).update(**written)
    conversation = Conversation.objects.create(owner=owner, title="plain")
    Message.objects.create(conversation=conversation, role="user", text=f"{MARKER}message", vault_ids=[vault.pk])
    key = token_create(user=owner, name="cli").key
    # A principle's entity is named by its statement; a note the Librarian filed is titled and placed after someone's
    # chat question; a rated question is what someone asked.
    principle_entity = Entity.objects.create(vault=vault, name=f"{MARKER}principle", key="p", kind=EntityKind.PRINCIPLE)
    Principle.objects.create(vault=vault, entity=principle_entity, signature="p", statement=f"{MARKER}principle")
    filed = make_note(vault, "Librarian/Filed.md", "Filed.")
    Note.objects.filter(pk=filed.pk).update(
        source=LIBRARIAN_SOURCE, title=f"Session: {MARKER}filed", path=f"Librarian/{MARKER}filed.md"
    )
    asked = RatedQuestion.objects.create(
        vault=vault, text=f"{MARKER}asked", text_hash="h", model="m", embedding=[0.1] * 384
    )
    client = Client()
    client.force_login(superuser)
    planted_pages = [
        f"/admin/graph/entity/{principle_entity.pk}/change/",
        f"/admin/insights/principle/{principle_entity.principle.pk}/change/",
        f"/admin/notes/note/{filed.pk}/change/",
        f"/admin/graph/ratedquestion/{asked.pk}/change/",
        "/admin/insights/principle/",
        "/admin/graph/dependency/",
    ]

    pages = 0
    for model in admin.site._registry:
        base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        listed = client.get(base)
        assert listed.status_code == 200, base
        urls = [f"{base}?q={MARKER}"] + [
            f"{base}{pk}/change/" for pk in model._default_manager.values_list("pk", flat=True)[:5]
        ]
        for url in urls:
            page = client.get(url)
            assert page.status_code == 200, url
            text = page.content.decode()
            assert not [p for p in PLANTED if p in text], url  # the search box echoes the bare marker only
            assert key not in text and ApiToken.objects.get().key_hash not in text, url
            pages += 1
    for url in planted_pages:
        page = client.get(url)
        assert page.status_code == 200, url
        assert not [p for p in PLANTED if p in page.content.decode()], url
        pages += 1
    # the admin's own pages beyond its models: the feedback report counts the planted correction, shows none of it
    for url in REPORTS:
        page = client.get(url)
        assert page.status_code == 200, url
        text = page.content.decode()
        assert "Plain title" in text and not [p for p in PLANTED if p in text], url
        pages += 1
    assert pages > 40
    # the search box finds no note by what its body says, and does by its title
    assert "0 results" in client.get("/admin/notes/note/", {"q": f"{MARKER}body"}).content.decode()
    assert "1 result" in client.get("/admin/notes/note/", {"q": "Plain title"}).content.decode()
    # nor a filed note by the question its title was taken from, nor an entity or a rated question by its words
    assert "0 results" in client.get("/admin/notes/note/", {"q": f"{MARKER}filed"}).content.decode()
    for listing in ("/admin/graph/entity/", "/admin/graph/ratedquestion/"):
        assert 'id="changelist-search"' not in client.get(listing).content.decode()  # no search box at all


def test_membership_and_roles_are_not_changed_through_the_user_admin(superuser):
    member, stranger = make_user(), make_user()
    team = make_team(make_user(), member)
    vault = make_vault(make_user(), "Team vault")
    share(vault, "contributor", team=team)
    client = Client()
    client.force_login(superuser)
    page = client.get(f"/admin/auth/user/{stranger.pk}/change/").content.decode()
    assert 'name="groups"' not in page and 'name="user_permissions"' not in page
    form = {
        "username": stranger.username,
        "is_active": "on",
        "groups": [team.group.pk],
        "user_permissions": [Permission.objects.get(codename="manage_vault").pk],
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
    }
    client.post(f"/admin/auth/user/{stranger.pk}/change/", form)
    stranger.refresh_from_db()
    assert not stranger.groups.exists() and not stranger.user_permissions.exists()
    assert client.get(f"/admin/auth/group/{team.group.pk}/change/").status_code == 404
    assert client.post(f"/admin/accounts/team/{team.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Team.objects.filter(pk=team.pk).exists() and member.groups.filter(pk=team.group.pk).exists()


def test_the_beat_schedule_is_the_project_s_own_and_nothing_runs_from_the_admin(superuser):
    every_day = IntervalSchedule.objects.create(every=1, period=IntervalSchedule.DAYS)
    every_hour = IntervalSchedule.objects.create(every=1, period=IntervalSchedule.HOURS)
    entry = PeriodicTask.objects.create(name="graph-decay", task="apps.graph.tasks.decay", interval=every_day)
    planted = PeriodicTask.objects.create(
        name="planted", task="apps.feedback.tasks.later_search", interval=every_hour, args="[1, 2]"
    )
    client = Client()
    client.force_login(superuser)
    base = "/admin/django_celery_beat/periodictask/"

    assert client.get(f"{base}add/").status_code == 403
    listed = client.get(base).content.decode()
    assert "graph-decay" in listed and "planted" not in listed and "run_tasks" not in listed
    assert client.get(f"{base}{planted.pk}/change/").status_code == 302  # not one of the project's: not found
    ran = client.post(base, {"action": "run_tasks", "_selected_action": [entry.pk]}, follow=True)
    assert ran.status_code == 200 and "No action selected" in ran.content.decode()
    # rescheduling and switching off work; the task, its arguments and its name do not move
    changed = client.post(
        f"{base}{entry.pk}/change/",
        {
            "enabled": "",
            "interval": every_hour.pk,
            "task": "apps.feedback.tasks.later_search",
            "args": "[7]",
            "kwargs": '{"x": 1}',
            "name": "renamed",
        },
    )
    assert changed.status_code == 302, changed.content.decode()[:2000]
    entry.refresh_from_db()
    assert (entry.enabled, entry.interval_id) == (False, every_hour.pk)
    assert (entry.name, entry.task, entry.args, entry.kwargs) == ("graph-decay", "apps.graph.tasks.decay", "[]", "{}")
    assert client.post(f"{base}{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    schedule = f"/admin/django_celery_beat/intervalschedule/{every_day.pk}/delete/"
    assert client.post(schedule, {"post": "yes"}).status_code == 403
    assert PeriodicTask.objects.filter(pk=entry.pk).exists()
