"""The search page: hybrid search across the vaults you may read."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import escape
from django.utils.safestring import mark_safe

from apps.core.exceptions import messages_of
from apps.core.validation import is_id
from apps.notes.selectors import filed_note_count, readable_note_count
from apps.retrieval.filed import asks_about_conversations, filed_notes_last
from apps.retrieval.hooks import searched
from apps.retrieval.search import hybrid_search
from apps.retrieval.snippets import readable_snippet
from apps.vaults.scope import scope_for
from apps.vaults.selectors import vault_list


def _highlight(snippet: str) -> str:
    """The snippet as a reader meets it, its matches marked."""
    readable = readable_snippet(snippet)
    return mark_safe(escape(readable).replace("«", "<mark>").replace("»", "</mark>"))  # noqa: S308 - escaped first


@login_required
def search_page(request: HttpRequest) -> HttpResponse:
    vaults = list(
        vault_list(user=request.user).annotate(
            note_count=readable_note_count(request.user), filed_count=filed_note_count(request.user)
        )
    )
    names = {v.pk: v.name for v in vaults}
    query = request.GET.get("q", "")
    chosen = [int(v) for v in request.GET.getlist("vault") if is_id(v)]
    # A search of every vault is for what people wrote; the Librarian's notes are searched when the vaults are
    # ticked (the personal vault holds them) or the query asks about past conversations.
    include_filed = bool(chosen) or asks_about_conversations(query)
    hits, error = [], ""
    if "q" in request.GET:
        try:
            result = hybrid_search(
                scope=scope_for(request.user, chosen), query=query, k=20, include_filed=include_filed
            )
            hits = [
                {
                    **hit.__dict__,
                    "vault_name": names.get(hit.vault, ""),
                    "snippet_html": _highlight(hit.snippet),
                    "filed": filed,
                }
                for hit, filed in filed_notes_last(user=request.user, query=query, hits=result.hits)
            ]
            searched(user_id=request.user.pk, query=query)
        except ValidationError as exc:
            error = messages_of(exc)
        except Http404:
            error = "One of the chosen vaults is not available to you."
    return render(
        request,
        "search.html",
        {
            "vaults": vaults,
            "archived": [v for v in vaults if v.archived_at is not None],
            "query": query,
            "chosen": chosen,
            "hits": hits,
            "error": error,
            "searched": "q" in request.GET,
            "filed_left_out": not include_filed,
        },
    )
