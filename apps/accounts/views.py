"""The API tokens page: a person's tokens, a form to make one (its key shown on the answer to that form only) and a
button to revoke each."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from apps.accounts.tokens import NewToken, token_create, token_get, token_list, token_revoke, vault_choices
from apps.core.auth import actor
from apps.core.exceptions import messages_of
from apps.core.validation import is_id


def _form_vaults(request: HttpRequest) -> list[int] | None:
    if request.POST.get("scope") != "some":
        return None
    return [int(value) for value in request.POST.getlist("vaults") if is_id(value)]


def _form_days(request: HttpRequest) -> int | None:
    value = request.POST.get("expires_in_days", "").strip()
    if not value:
        return None
    if not is_id(value):
        raise ValidationError({"expires_in_days": ["the lifetime is a whole number of days"]})
    return int(value)


@login_required
def tokens_page(request: HttpRequest) -> HttpResponse:
    user = actor(request)
    made: NewToken | None = None
    error = ""
    if request.method == "POST":
        try:
            made = token_create(
                user=user,
                name=request.POST.get("name", ""),
                read_only=request.POST.get("read_only") == "on",
                vault_ids=_form_vaults(request),
                expires_in_days=_form_days(request),
            )
        except ValidationError as exc:
            error = messages_of(exc)
    choices = vault_choices(user=user)
    names = dict(choices)
    rows = [
        (token, [names.get(vault_id, f"vault {vault_id}") for vault_id in token.vault_ids or []])
        for token in token_list(user=user)[:200]
    ]
    response = render(
        request,
        "tokens.html",
        {
            "made": made,
            "error": error,
            "rows": rows,
            "choices": choices,
            "now": timezone.now(),
            "default_days": settings.API_TOKEN_DAYS,
            "max_days": settings.API_TOKEN_MAX_DAYS,
        },
        status=400 if error else 200,
    )
    response["Cache-Control"] = "no-store"  # the page that shows a new key is never kept by a cache
    return response


@login_required
@require_POST
def token_revoke_page(request: HttpRequest, token_id: int) -> HttpResponse:
    user = actor(request)
    token_revoke(actor=user, token=token_get(user=user, token_id=token_id))
    return redirect("tokens-page")
