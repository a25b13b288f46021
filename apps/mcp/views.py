"""The MCP endpoint (`/mcp/`): the SDK's Streamable HTTP transport, stateless and answering in JSON, served for one
request at a time inside an ordinary Django view.

Stateless JSON is the part of Streamable HTTP that needs no open stream: each POST carries one JSON-RPC message
and gets its answer as the response body, so the transport runs to completion within the request, and the web
tier stays the one gunicorn serves (threads, the same middleware, the same waiting limits for `ask`). The SDK
validates and dispatches the protocol; this view only authenticates the token first and hands the request over."""

from __future__ import annotations

from collections.abc import AsyncIterator, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
from django.contrib.auth.models import User
from django.http import HttpResponse
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.views import APIView

from apps.accounts.authentication import token_user
from apps.accounts.models import ApiToken
from apps.core.auth import actor
from apps.mcp.request_loop import held_open, run_here
from apps.mcp.server import CALLER, server
from apps.mcp.tools import Caller

Exchange = tuple[int, list[tuple[bytes, bytes]], bytes]


class McpTokenAuthentication(BaseAuthentication):
    """An API token as `Authorization: Bearer <key>` (or `Token <key>`). Every MCP call is a POST, so a read-only
    token is let through here: the vault policy holds it to reading, and the tools that write refuse it."""

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        return token_user(request)

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="DesirePath"'


class McpApi(APIView):
    authentication_classes = [McpTokenAuthentication]
    permission_classes = [IsAuthenticated]
    parser_classes: list[Any] = []  # the SDK reads the body itself
    http_method_names = ["post", "options"]  # stateless: no event stream to GET, no session to DELETE
    schema = None  # JSON-RPC: described in docs/api.md, not in the REST schema

    def post(self, request: Request) -> HttpResponse:
        caller = Caller(user=actor(request), site=request.build_absolute_uri("/").rstrip("/"))
        token = CALLER.set(caller)
        try:
            manager = held_open("mcp-session-manager", _running_manager)
            status, headers, body = run_here(_exchange(manager, _scope(request), request.body))
        finally:
            CALLER.reset(token)
        response = HttpResponse(body, status=status)
        for name, value in headers:
            if name.lower() != b"content-length":
                response[name.decode("latin-1")] = value.decode("latin-1")
        return response


def _scope(request: Request) -> dict[str, Any]:
    host, _, port = request.get_host().partition(":")
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "root_path": "",
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in request.headers.items()],
        "server": (host, int(port or (443 if request.is_secure() else 80))),
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
    }


@asynccontextmanager
async def _running_manager() -> AsyncIterator[StreamableHTTPSessionManager]:
    """The SDK's session manager, stateless and answering in JSON, over the low-level server behind MCPServer (as
    the SDK's own in-process Client reaches it). Started once for each request thread's loop, as the SDK means a
    manager to be (each stateless request still gets a fresh transport of its own)."""
    manager = StreamableHTTPSessionManager(app=server._lowlevel_server, json_response=True, stateless=True)
    async with manager.run():
        yield manager


async def _exchange(manager: StreamableHTTPSessionManager, scope: dict[str, Any], body: bytes) -> Exchange:
    """One request through the thread's manager, as an ASGI server would hand it over."""
    status, headers, content = 500, [], bytearray()
    answered, delivered = anyio.Event(), False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()  # the client stays until the answer is sent
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status, headers = message["status"], list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            content.extend(message.get("body", b""))
            if not message.get("more_body", False):
                answered.set()

    await manager.handle_request(scope, receive, send)
    answered.set()
    return status, headers, bytes(content)
