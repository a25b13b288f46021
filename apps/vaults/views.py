"""Pages of a vault's own setup: making a vault, its members, and how it answers. Every change goes through the
services of this app, which hold the role matrix; a page only shows or hides the controls a role may use."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render

from apps.accounts.models import Team
from apps.accounts.selectors import team_find, user_find, user_get
from apps.core.auth import actor
from apps.core.exceptions import messages_of, sentence
from apps.core.local_models import is_local
from apps.core.validation import is_id
from apps.vaults import selectors, services
from apps.vaults.chat_settings import FALLBACKS, SLOTS, SWITCHES, ChatSettings, model_options, parse
from apps.vaults.models import Vault, VaultRole
from apps.vaults.permissions import role_of

ROLE_WORDS = {
    VaultRole.READER: "Reader: reads notes and asks questions",
    VaultRole.CONTRIBUTOR: "Contributor: also writes and imports notes",
    VaultRole.MANAGER: "Manager: also shares the vault and changes its settings",
}
FALLBACK_WORDS = {
    "explicit": "Answer from general knowledge, clearly marked as not from your notes",
    "silent": "Stay silent: write no answer, the chat only marks that the notes had nothing",
    "refuse": "Say that the notes hold no answer, and nothing more",
}
SWITCH_WORDS = {
    "discovery": "Suggest related notes that were not asked about",
    "deep_research": "Research “why” and “how” questions in several steps",
    "librarian": "Let the Librarian summarise and file what was read",
}
# What a fallback does instead when the chat model is local: it has no general knowledge to answer from. The
# others write the same with any model.
WITH_A_LOCAL_MODEL = {
    "explicit": (
        "The chat model is local ({model}): it knows only your notes, so this answer just says that they hold none."
    ),
}
SLOT_WORDS = {"chat": "Writing answers", "reasoning": "Planning research", "scoring": "Judging relevance"}


@login_required
def vault_new_page(request: HttpRequest) -> HttpResponse:
    """Make a shared vault; its maker becomes its manager and lands on its page."""
    name, error = "", ""
    if request.method == "POST":
        name = request.POST.get("name", "")
        try:
            vault = services.vault_create(owner=actor(request), name=name)
            return redirect("vault-page", vault_id=vault.pk)
        except ValidationError as exc:
            error = messages_of(exc)
    return render(request, "vault_new.html", {"name": name, "error": error}, status=400 if error else 200)


@dataclass(frozen=True)
class MemberRow:
    user: int | None
    team: int | None
    name: str
    role: str
    fixed: str  # why this row cannot be changed here, or ""


def _member_rows(vault: Vault, me: User) -> list[MemberRow]:
    rows = []
    for share in selectors.vault_shares(vault=vault):
        fixed = ""
        if share["user"] == vault.owner_id:
            fixed = "owner"
        elif share["user"] == me.pk:
            fixed = "you"
        rows.append(MemberRow(share["user"], share["team"], share["name"], share["role"], fixed))
    order = {"owner": 0, "you": 1, "": 2}
    return sorted(rows, key=lambda r: (order[r.fixed], r.team is not None, r.name.lower()))


def _principal(form: QueryDict) -> tuple[User | None, Team | None]:
    """The person or team a change or removal names by id (the rows of the members list)."""
    user_id, team_id = form.get("user", ""), form.get("team", "")
    if is_id(user_id) and not team_id:
        return user_get(user_id=user_id), None
    if is_id(team_id) and not user_id:
        team = Team.objects.filter(pk=int(team_id)).select_related("group").first()
        if team is not None:
            return None, team
    raise ValidationError({"detail": ["That member is no longer on the list; reload the page."]})


def _members_change(*, me: User, vault: Vault, form: QueryDict) -> str:
    """Apply one change from the members page; what to tell the person."""
    action, role = form.get("action", ""), form.get("role", "")
    if action == "add_user":
        person = user_find(text=form.get("who", ""))
        services.vault_share(actor=me, vault=vault, role=role, user=person)
        return f"{person.get_username()} is now a {role}."
    if action == "add_team":
        team = team_find(name=form.get("team_name", ""))
        services.vault_share(actor=me, vault=vault, role=role, team=team)
        return f"Team {team.name} is now a {role}."
    user, named_team = _principal(form)
    label = user.get_username() if user is not None else f"team {named_team.name if named_team else ''}"
    if action == "change":
        services.vault_share(actor=me, vault=vault, role=role, user=user, team=named_team)
        return f"{label} is now a {role}."
    if action == "remove":
        services.vault_unshare(actor=me, vault=vault, user=user, team=named_team)
        return f"{label} no longer has access."
    raise ValidationError({"action": ["Choose add, change or remove."]})


@login_required
def members_page(request: HttpRequest, vault_id: int) -> HttpResponse:
    """Who holds which role; managers add people (by username or e-mail) and teams (by name), change roles and
    remove them. A person who may not read the vault gets 404, like the API."""
    vault = selectors.vault_get(user=request.user, vault_id=vault_id)
    me = actor(request)
    error, status = "", 200
    if request.method == "POST":
        try:
            # Only a manager learns whether a name is an account: everyone else is refused before the look-up.
            selectors.vault_get(user=me, vault_id=vault.pk, action="manage")
            request.session["vault_notice"] = _members_change(me=me, vault=vault, form=request.POST)
            return redirect("vault-members", vault_id=vault.pk)
        except ValidationError as exc:
            error, status = messages_of(exc), 400
        except PermissionDenied:
            error, status = "Only a manager of this vault can change who has access.", 403
    role = role_of(me, vault)
    people, teams = selectors.share_candidates(user=me) if role == VaultRole.MANAGER else ([], [])
    context = {
        "vault": vault,
        "role": role,
        "rows": _member_rows(vault, me),
        "roles": ROLE_WORDS.items(),
        "people": people,
        "teams": teams,
        "error": error,
        "notice": request.session.pop("vault_notice", "") if request.method == "GET" else "",
        "form": request.POST if error else {},
    }
    return render(request, "vault_members.html", context, status=status)


@dataclass(frozen=True)
class ModelChoice:
    slot: str
    label: str
    default: str
    chosen: str
    options: list[str]


def _model_choices(current: ChatSettings) -> list[ModelChoice]:
    """Per slot: the models a vault may pick for it, and the vault's own if it has one."""
    return [
        ModelChoice(
            slot,
            SLOT_WORDS[slot],
            str(settings.LLM_SLOTS[slot]),
            current.models.get(slot, ""),
            model_options(slot, current),
        )
        for slot in SLOTS
    ]


def _settings_from_form(form: QueryDict, current: ChatSettings) -> dict[str, object]:
    """The settings a manager submitted, in the shape `vault_settings_update` takes (it validates them)."""
    threshold = form.get("gate_threshold", "")
    raw: dict[str, object] = {
        "gate_threshold": int(threshold) if threshold.isdigit() else threshold,
        "fallback": form.get("fallback", ""),
        **{name: name in form for name in SWITCHES},
    }
    allowed = {row.slot: row.options for row in _model_choices(current)}
    models = {}
    for slot in SLOTS:
        chosen = form.get(f"model_{slot}", "")
        if chosen and chosen not in allowed[slot]:
            raise ValidationError({"models": [f"Choose one of the configured models for {SLOT_WORDS[slot].lower()}."]})
        if chosen:
            models[slot] = chosen
    raw["models"] = models
    if current.discovery_budgets:  # not on the form: kept as they were
        raw["discovery_budgets"] = current.discovery_budgets
    return raw


def _fallback_warning(fallback: str, current: ChatSettings) -> str:
    """Why a fallback will not do what it says with the chat model this vault answers with; "" when it will."""
    model = current.model_for("chat")
    return WITH_A_LOCAL_MODEL.get(fallback, "").format(model=model) if is_local(model) else ""


@login_required
def settings_page(request: HttpRequest, vault_id: int) -> HttpResponse:
    """The vault's name, whether it is archived and how it answers; managers change them, everyone else who reads
    the vault sees them."""
    vault = selectors.vault_get(user=request.user, vault_id=vault_id)
    me = actor(request)
    error, status = "", 200
    form: QueryDict | dict[str, str] = {}
    if request.method == "POST":
        try:
            action = request.POST.get("action")
            if action == "rename":
                services.vault_rename(actor=me, vault=vault, name=request.POST.get("name", ""))
                request.session["vault_notice"] = "The vault is renamed."
            elif action in ("archive", "unarchive"):
                services.vault_archive(actor=me, vault=vault, archived=action == "archive")
                request.session["vault_notice"] = (
                    "The vault is archived." if action == "archive" else "The vault is back from the archive."
                )
            else:
                raw = _settings_from_form(request.POST, parse(vault.chat_settings))
                services.vault_settings_update(actor=me, vault=vault, raw=raw)
                request.session["vault_notice"] = "The settings are saved."
            return redirect("vault-settings-page", vault_id=vault.pk)
        except ValidationError as exc:
            error, status, form = messages_of(exc), 400, request.POST
        except PermissionDenied as exc:
            error, status = sentence(str(exc)), 403
        vault.refresh_from_db()
    current = parse(vault.chat_settings)
    context = {
        "vault": vault,
        "role": role_of(me, vault),
        "settings": current,
        "thresholds": range(1, 6),
        "fallbacks": [(name, FALLBACK_WORDS[name], _fallback_warning(name, current)) for name in FALLBACKS],
        "switches": [(name, SWITCH_WORDS[name], current.switches[name]) for name in SWITCHES],
        "models": _model_choices(current),
        "error": error,
        "form": form,
        "notice": request.session.pop("vault_notice", "") if request.method == "GET" else "",
    }
    return render(request, "vault_settings.html", context, status=status)
