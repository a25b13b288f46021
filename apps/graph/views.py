"""The constellation page: a vault's graph drawn in the browser from `GET /api/graph/constellation/`."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from apps.vaults.selectors import vault_get


@login_required
def constellation_page(request: HttpRequest, vault_id: int) -> HttpResponse:
    vault = vault_get(user=request.user, vault_id=vault_id)  # 404 for a vault the user cannot read
    return render(request, "constellation.html", {"vault": vault})
