"""Pages: what DesirePath noticed (a person's notifications) and a vault's principles with their evidence, where
contributors confirm, correct or reject each one."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from rest_framework.exceptions import ValidationError

from apps.core.auth import actor
from apps.insights.selectors import notification_list, principle_get, principle_list
from apps.insights.services import notifications_seen, principle_answer
from apps.vaults.permissions import role_of
from apps.vaults.selectors import vault_get


@login_required
def principles_page(request: HttpRequest, vault_id: int) -> HttpResponse:
    vault = vault_get(user=request.user, vault_id=vault_id)  # 404 for a vault the user cannot read
    error = ""
    if request.method == "POST":
        try:
            principle = principle_get(user=request.user, principle_id=request.POST.get("principle", ""))
            if principle.vault_id != vault.pk:
                raise Http404("No principle matches the given query.")
            principle_answer(
                actor=actor(request),
                principle=principle,
                signal=request.POST.get("signal", ""),
                text=request.POST.get("text", ""),
            )
            return redirect("principles-page", vault_id=vault.pk)
        except ValidationError as exc:
            error = "; ".join(str(m) for messages in cast(dict, exc.detail).values() for m in messages)
        except PermissionDenied as exc:
            error = str(exc)
    return render(
        request,
        "principles.html",
        {
            "vault": vault,
            "role": role_of(request.user, vault),
            "principles": principle_list(user=request.user, vault_id=vault.pk)[:100],
            "error": error,
        },
    )


@login_required
def noticed_page(request: HttpRequest) -> HttpResponse:
    user = actor(request)
    notifications = list(notification_list(user=user)[:200])  # shown as they were: what is new keeps its mark
    notifications_seen(actor=user, notification_ids=[n.pk for n in notifications])
    return render(request, "noticed.html", {"notifications": notifications})
