"""The MCP server: its tools, described for the model that calls them, each a thin async shell around
`apps.mcp.tools`. A tool's work runs on the request's own thread (`request_loop`): it shares the request's database
connection and ends with it, as a REST view's would. Every failure a person can cause comes back
as the tool's error text, in the REST API's words; anything else stays in the server log."""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from typing import Annotated, Any, Literal

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field
from rest_framework.exceptions import APIException

from apps.mcp import tools
from apps.mcp.request_loop import on_request_thread

# Set by the endpoint for one request; its loop's tasks inherit it.
CALLER: contextvars.ContextVar[tools.Caller] = contextvars.ContextVar("mcp_caller")

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)

server: MCPServer[Any] = MCPServer(
    name="DesirePath",
    instructions="Search, read and ask the Markdown vaults you may read; write notes where you contribute. Results "
    "name each note's vault, path and page address.",
)


def _in_words(exc: Exception) -> str:
    if isinstance(exc, Http404):
        return str(exc) or "Not found."
    if isinstance(exc, DjangoValidationError):
        return " ".join(exc.messages)
    if isinstance(exc, DjangoPermissionDenied):
        return f"Not allowed: {exc}"
    assert isinstance(exc, APIException)
    detail = exc.detail
    if isinstance(detail, dict):
        return " ".join(f"{field}: {' '.join(map(str, messages))}" for field, messages in detail.items())
    return " ".join(map(str, detail)) if isinstance(detail, list) else str(detail)


async def _call(work: Callable[..., dict[str, Any]], **arguments: Any) -> dict[str, Any]:
    caller = CALLER.get()
    try:
        return await on_request_thread(functools.partial(work, caller, **arguments))
    except (Http404, DjangoValidationError, DjangoPermissionDenied, APIException) as exc:
        raise ToolError(_in_words(exc)) from exc


VaultIds = Annotated[
    list[int] | None, Field(description="vault ids to read (see list_vaults); leave out for every vault you read")
]


@server.tool(annotations=READS)
async def search(
    query: Annotated[str, Field(description="what to look for, in words")],
    vaults: VaultIds = None,
    k: Annotated[int, Field(description="how many passages, at most")] = 10,
) -> dict[str, Any]:
    """Hybrid search (meaning and keywords) over the vaults you may read: the best passages, each with its note,
    vault, path, snippet, score and the note's URL."""
    return await _call(tools.search, query=query, vaults=vaults, k=k)


@server.tool(annotations=READS)
async def ask(
    question: Annotated[str, Field(description="a question, as you would ask a colleague")],
    vaults: VaultIds = None,
    conversation: Annotated[int | None, Field(description="a conversation id, to ask a follow-up in it")] = None,
) -> dict[str, Any]:
    """Ask a question answered from your vaults, as the chat answers it: only passages that pass the relevance gate
    are used and cited as [n]; with none, the vaults' fallback answers instead (`grounded` false). Returns the
    answer, its citations (vault, path, note URL, and the context_item to give feedback on), and the conversation
    for follow-ups. Waits for the answer; `detail` says why when it is not complete yet."""
    return await _call(tools.ask, question=question, vaults=vaults, conversation=conversation)


@server.tool(annotations=READS)
async def get_note(note: Annotated[int, Field(description="a note id (from search or ask)")]) -> dict[str, Any]:
    """One note you may read: its vault, path, title, Markdown body and URL."""
    return await _call(tools.get_note, note=note)


@server.tool(annotations=READS)
async def list_vaults() -> dict[str, Any]:
    """The vaults you may read, with your role on each (reader, contributor or manager) and their URLs."""
    return await _call(tools.list_vaults)


@server.tool(annotations=WRITES)
async def write_note(
    vault: Annotated[int, Field(description="the vault to write in (you contribute to it)")],
    path: Annotated[str, Field(description="the note's path in the vault, e.g. 'projects/Plan.md'")],
    body: Annotated[str, Field(description="the note's Markdown, front matter included if any")],
) -> dict[str, Any]:
    """Write a new note in a vault you contribute to (a token made read-only cannot). Returns its id, vault, path
    and URL; it is searchable once embedded, moments later."""
    return await _call(tools.write_note, vault=vault, path=path, body=body)


@server.tool(annotations=WRITES)
async def feedback(
    context_item: Annotated[int, Field(description="a citation's context_item, from one of your ask answers")],
    signal: Annotated[
        Literal["confirm", "reject", "correct", "not_relevant", "not_useful", "used"],
        Field(description="confirm or used: it helped; reject, not_relevant, not_useful: it did not; correct: fix it"),
    ],
    text: Annotated[str, Field(description="the corrected text, for `correct`")] = "",
) -> dict[str, Any]:
    """Rate a passage an answer of yours used: the paths that brought it learn from it (a token made read-only
    cannot). Voting twice the same way changes nothing."""
    return await _call(tools.feedback, context_item=context_item, signal=signal, text=text)
