"""JSON-RPC to the MCP endpoint through Django's test client: the same view, transport and tools a real client
reaches, inside a test's transaction (the isolation suite's worlds are not committed)."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client


def rpc(key: str, method: str, params: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    response = Client().post(
        "/mcp/",
        json.dumps(body),
        content_type="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    return response.status_code, (response.json() if response.content else {})


def call(key: str, tool: str, **arguments: Any) -> tuple[bool, Any]:
    """(ok, the tool's structured result) or (False, its error text); asserts the HTTP exchange itself worked."""
    status, body = rpc(key, "tools/call", {"name": tool, "arguments": arguments})
    assert status == 200, (status, body)
    result = body["result"]
    if result.get("isError"):
        return False, " ".join(part.get("text", "") for part in result["content"])
    return True, result["structuredContent"]
