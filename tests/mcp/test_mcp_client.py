"""An MCP client from the SDK, over HTTP, against the stack as production runs it: gunicorn serving /mcp/, the
answers worker writing what `ask` waits for. Every tool answers with the vault, path and page address of what it
used; a revoked token is refused."""

from __future__ import annotations

import http.client
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from apps.accounts.tokens import token_create, token_revoke
from apps.notes.models import Note
from tests.factories import make_note, make_user, make_vault, share
from tests.servers import gunicorn_serving

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
ANSWERS_IN_WORKER = {"DESIREPATH_CHAT_ANSWERS_IN_WORKER": "1"}


@asynccontextmanager
async def mcp_client(base: str, key: str, statuses: list[int] | None = None) -> AsyncIterator[Client]:
    """The SDK's client over Streamable HTTP with `key` as its bearer token; the HTTP statuses it gets are noted in
    `statuses` (the client itself reports a refused request as a generic protocol error)."""

    async def note(response: httpx2.Response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {key}"},
        timeout=httpx2.Timeout(30, read=300),
        event_hooks={"response": [note]},
    )
    # The client closes its connections with it: one left open would hold the server's graceful stop.
    async with http, Client(streamable_http_client(f"{base}/mcp/", http_client=http)) as client:
        yield client


async def _tool(client: Client, name: str, **arguments: Any) -> Any:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content  # text for clients that read only text
    return result.structured_content


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside an exception group (the client's task groups wrap what failed)."""
    inner = exc.exceptions if isinstance(exc, BaseExceptionGroup) else []
    return [exc, *(leaf for e in inner for leaf in _leaves(e))]


def _raw_post(port: int, key: str) -> tuple[int, str]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {
        "Authorization": f"Bearer {key}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    connection.request("POST", "/mcp/", body, headers)
    response = connection.getresponse()
    response.read()
    return response.status, response.getheader("WWW-Authenticate", "")


def test_every_tool_over_http_carries_vault_path_and_url_and_a_revoked_token_is_refused(answer_worker):
    owner, reader = make_user("mcp-owner"), make_user("mcp-reader")
    bakery = make_vault(owner, "Bakery")
    share(bakery, "reader", user=reader)
    starter = make_note(bakery, "bread/Starter.md", "# Sourdough starter\nA sourdough starter is flour and water.")
    key = token_create(user=owner, name="agent").key
    reader_key = token_create(user=reader, name="agent", read_only=True).key

    with gunicorn_serving(env=ANSWERS_IN_WORKER) as port:
        base = f"http://127.0.0.1:{port}"

        async def owner_session() -> dict[str, Any]:
            async with mcp_client(base, key) as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
                assert names == {"search", "ask", "get_note", "list_vaults", "write_note", "feedback"}
                vaults = (await _tool(client, "list_vaults"))["vaults"]
                found = (await _tool(client, "search", query="sourdough starter", vaults=[bakery.pk]))["results"]
                note = await _tool(client, "get_note", note=found[0]["note"])
                answer = await _tool(client, "ask", question="What is a sourdough starter?", vaults=[bakery.pk])
                cited = answer["citations"][0]
                vote = await _tool(client, "feedback", context_item=cited["context_item"], signal="confirm")
                written = await _tool(client, "write_note", vault=bakery.pk, path="bread/Rye.md", body="# Rye\nDense.")
                return {"vaults": vaults, "found": found, "note": note, "answer": answer, "vote": vote, "new": written}

        async def reader_session() -> tuple[list[dict[str, Any]], str]:
            async with mcp_client(base, reader_key) as client:
                found = (await _tool(client, "search", query="sourdough starter"))["results"]
                refused = await client.call_tool("write_note", {"vault": bakery.pk, "path": "x.md", "body": "x"})
                assert refused.is_error
                return found, refused.content[0].text

        seen = anyio.run(owner_session)
        reader_found, refusal = anyio.run(reader_session)
        note_url = f"{base}/notes/{starter.pk}/"
        assert {"vault": bakery.pk, "name": "Bakery", "role": "manager"}.items() <= seen["vaults"][-1].items()
        assert (seen["found"][0]["vault"], seen["found"][0]["path"], seen["found"][0]["url"]) == (
            bakery.pk,
            "bread/Starter.md",
            note_url,
        )
        assert seen["note"]["body"].startswith("# Sourdough starter") and seen["note"]["url"] == note_url
        answer = seen["answer"]
        assert answer["status"] == "complete" and answer["grounded"] and "flour and water" in answer["answer"]
        assert "[1]" in answer["answer"]
        assert {k: answer["citations"][0][k] for k in ("n", "vault", "path", "url")} == {
            "n": 1,
            "vault": bakery.pk,
            "path": "bread/Starter.md",
            "url": note_url,
        }
        assert seen["vote"]["created"] is True and seen["vote"]["signal"] == "confirm"
        assert (seen["vote"]["vault"], seen["vote"]["path"], seen["vote"]["url"]) == (
            bakery.pk,
            "bread/Starter.md",
            note_url,
        )
        rye = Note.objects.get(vault=bakery, path="bread/Rye.md")
        assert seen["new"] == {
            "note": rye.pk,
            "vault": bakery.pk,
            "path": "bread/Rye.md",
            "title": "Rye",
            "url": f"{base}/notes/{rye.pk}/",
        }
        assert [hit["path"] for hit in reader_found][:1] == ["bread/Starter.md"]
        assert "read-only" in refusal and not Note.objects.filter(path="x.md").exists()

        token_revoke(actor=owner, token=owner.api_tokens.get(name="agent"))
        status, challenge = _raw_post(port, key)
        assert status == 401 and challenge.startswith("Bearer")
        statuses: list[int] = []

        async def revoked_session() -> None:
            async with mcp_client(base, key, statuses) as client:
                await client.list_tools()

        with pytest.raises(BaseException) as refused:  # what failed inside is checked below
            anyio.run(revoked_session)
        assert any(isinstance(e, MCPError) for e in _leaves(refused.value)), refused.value
        assert statuses and set(statuses) == {401}  # the client probes, then tries the handshake: both refused
        assert _raw_post(port, "dp_never-issued")[0] == 401
        assert _raw_post(port, reader_key)[0] == 200
