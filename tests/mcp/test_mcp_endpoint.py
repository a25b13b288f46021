"""The MCP endpoint's edges, in-process: what a client without a token, with a bad argument or with the wrong HTTP
method is told, in the REST API's words."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts.tokens import token_create
from apps.notes.models import Note
from tests.factories import make_note, make_user, share
from tests.mcp.rpc import call, rpc

pytestmark = pytest.mark.django_db


def test_no_token_gets_401_with_a_bearer_challenge_and_no_answer(vault):
    response = Client().post("/mcp/", "{}", content_type="application/json")
    assert response.status_code == 401 and response["WWW-Authenticate"].startswith("Bearer")
    status, body = rpc("dp_not-a-key", "tools/list")
    assert status == 401 and "result" not in body


def test_a_get_or_delete_is_refused_as_there_is_no_stream_or_session(owner):
    key = token_create(user=owner, name="agent").key
    for method in ("get", "delete"):
        response = getattr(Client(), method)("/mcp/", HTTP_AUTHORIZATION=f"Bearer {key}")
        assert response.status_code == 405, method


def test_bad_arguments_come_back_as_tool_errors_in_the_rest_api_s_words(vault, owner):
    key = token_create(user=owner, name="agent").key
    ok, empty = call(key, "search", query="   ")
    assert not ok and "the query is empty" in empty
    ok, too_many = call(key, "search", query="tomatoes", k=10_000)
    assert not ok and "k:" in too_many
    ok, missing = call(key, "get_note", note=987654)
    assert not ok and "No note matches the given query." in missing
    ok, bad_path = call(key, "write_note", vault=vault.pk, path="", body="x")
    assert not ok and "path" in bad_path
    status, body = rpc(key, "tools/call", {"name": "get_note", "arguments": {"note": "not a number"}})
    assert status == 200 and body["result"]["isError"]


def test_a_reader_may_not_write_and_a_contributor_may(vault):
    reader, contributor = make_user("reads"), make_user("writes")
    share(vault, "reader", user=reader)
    share(vault, "contributor", user=contributor)
    make_note(vault, "Garden.md", "# Garden\nTomatoes grow by the wall.")
    refused = call(token_create(user=reader, name="agent").key, "write_note", vault=vault.pk, path="a.md", body="a")
    assert refused == (
        False,
        "Error executing tool write_note: Not allowed: your role on this vault does not allow 'contribute'",
    )
    ok, written = call(
        token_create(user=contributor, name="agent").key, "write_note", vault=vault.pk, path="b.md", body="# B\nbee"
    )
    assert ok and written["path"] == "b.md" and written["url"] == f"http://testserver/notes/{written['note']}/"
    assert list(Note.objects.filter(vault=vault).order_by("path").values_list("path", flat=True)) == [
        "Garden.md",
        "b.md",
    ]


def test_a_client_that_starts_with_the_initialize_handshake_is_answered(owner):
    key = token_create(user=owner, name="agent").key
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}
    status, body = rpc(key, "initialize", hello)
    assert status == 200 and body["result"]["serverInfo"]["name"] == "DesirePath"
    assert "tools" in body["result"]["capabilities"]
