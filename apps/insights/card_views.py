"""The insights page of a vault: four top-5 lists of cards, each with its evidence and "why am I seeing this",
accepted or dismissed with a form. It reads what the worker prepared and says what is still being prepared."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from rest_framework.exceptions import ValidationError

from apps.core.auth import actor
from apps.insights.card_selectors import TITLES, card_get, insights_get
from apps.insights.card_services import card_answer
from apps.vaults.selectors import vault_get


@login_required
def insights_page(request: HttpRequest, vault_id: int) -> HttpResponse:
    vault = vault_get(user=request.user, vault_id=vault_id)  # 404 for a vault the user cannot read
    error = ""
    if request.method == "POST":
        try:
            card = card_get(user=request.user, card_id=request.POST.get("card", ""))
            if card.vault_id != vault.pk:
                raise Http404("No card matches the given query.")
            card_answer(actor=actor(request), card=card, signal=request.POST.get("signal", ""))
            return redirect("insights-page", vault_id=vault.pk)
        except ValidationError as exc:
            error = "; ".join(str(m) for messages in cast(dict, exc.detail).values() for m in messages)
    insights = insights_get(user=request.user, vault_id=vault.pk)
    lists = [(kind, TITLES[kind], cards) for kind, cards in insights.lists.items()]
    return render(request, "insights.html", {"vault": vault, "insights": insights, "lists": lists, "error": error})
