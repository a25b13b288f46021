"""The one scope type: only the permission policy makes a `Scope`, and what it holds is what the requester reads."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from django.http import Http404
from django.utils import timezone

from apps.core.auth import TokenLimits, token_limits_attach
from apps.notes.models import Note
from apps.vaults.scope import Scope, readable_scope, scope_for, system_scope
from tests.factories import make_note, make_user, make_vault, share

pytestmark = pytest.mark.django_db


def test_a_scope_cannot_be_made_outside_the_policy():
    with pytest.raises(TypeError, match="permission policy"):
        Scope((1, 2), (1, 2))
    with pytest.raises(TypeError, match="permission policy"):
        Scope(vault_ids=(1,), readable=(1,), reason="made up")
    mine = readable_scope(make_user())
    with pytest.raises(TypeError, match="permission policy"):
        dataclasses.replace(mine, vault_ids=(*mine.vault_ids, 10**9))  # nor widened from one the policy made


def test_a_scope_narrowed_to_vaults_the_user_cannot_read_holds_none_of_them():
    owner, reader, stranger = make_user(), make_user(), make_user()
    shared, private = make_vault(owner), make_vault(owner)
    share(shared, "reader", user=reader)

    narrowed = readable_scope(reader).within([shared.pk, private.pk])
    assert narrowed.vault_ids == (shared.pk,)
    assert readable_scope(stranger).within([shared.pk, private.pk]).vault_ids == ()
    assert not readable_scope(stranger).within([shared.pk])
    # asked for by a request, an unreadable vault answers 404 as one that does not exist
    with pytest.raises(Http404):
        scope_for(reader, [shared.pk, private.pk])
    assert scope_for(reader, [shared.pk]).vault_ids == (shared.pk,)
    # narrowing only ever drops vaults
    assert readable_scope(reader).within([shared.pk]).within([private.pk]).vault_ids == ()


def test_a_scope_applies_in_the_orm_and_in_sql_to_its_vaults_only():
    owner, reader = make_user(), make_user()
    shared, private = make_vault(owner), make_vault(owner)
    share(shared, "reader", user=reader)
    make_note(shared, "Seen.md", "# Seen\nShared words.\n")
    make_note(private, "Unseen.md", "# Unseen\nPrivate words.\n")

    scope = readable_scope(reader)
    assert set(scope.filter(Note.objects.all()).values_list("path", flat=True)) >= {"Seen.md"}
    assert not scope.filter(Note.objects.filter(vault=private)).exists()
    assert private.pk not in scope.params()["scope"] and shared.pk in scope.params()["scope"]


def test_a_token_limited_to_one_vault_gives_a_scope_of_that_vault_only():
    owner = make_user()
    first, second = make_vault(owner), make_vault(owner)
    assert {first.pk, second.pk} <= set(readable_scope(owner).vault_ids)
    later = timezone.now() + timedelta(hours=1)
    limits = TokenLimits(read_only=True, vault_ids=frozenset([first.pk]), expires_at=later)
    token_limits_attach(owner, limits)  # as a request made with such a token does
    assert readable_scope(owner).vault_ids == (first.pk,)
    assert scope_for(owner).vault_ids == (first.pk,)
    with pytest.raises(Http404):
        scope_for(owner, [second.pk])


def test_the_system_scope_says_why_it_is_needed():
    vault = make_vault(make_user())
    scope = system_scope([vault.pk], reason="graph extraction")
    assert scope.reason == "graph extraction" and scope.is_system
    assert scope.vault_ids == scope.readable == (vault.pk,)  # reads nothing drawn from outside its own vaults
    with pytest.raises(ValueError, match="says why"):
        system_scope([vault.pk], reason=" ")
    assert not scope_for(vault.owner).is_system
