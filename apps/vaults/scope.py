"""The one type a vault-scoped read takes: the vaults it may read, made only here, from the permission policy.

A read never takes a bare list of vault ids: a `Scope` is the requester's readable vaults for one request, task or
MCP call (`scope_for`, `readable_scope`), or, for a worker job that has no requester, a system scope that says why
(`system_scope`). Constructing one any other way raises, so a function that takes a `Scope` knows the policy was
asked. Statements bind it as `%(scope)s` (and `%(readable)s`) through `scope.params()`; querysets go through
`scope.filter`.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings
from django.db.models import Model, Q, QuerySet
from django.http import Http404

from apps.core.auth import Requester
from apps.vaults.models import Vault
from apps.vaults.permissions import vault_ids_for
from apps.vaults.selectors import vault_ids_unarchived

# Set only while this module's constructors build one, so `Scope(...)` and `dataclasses.replace(scope, ...)`
# anywhere else raise: a function that takes a Scope knows the policy made it.
_MAKING: ContextVar[bool] = ContextVar("scope_making", default=False)

M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class Scope:
    """Vaults one read may touch (`vault_ids`), and every vault its requester reads (`readable`): a note drawn from
    a vault outside `readable` is never read, even from a vault in `vault_ids`. A system scope carries its `reason`
    and reads nothing drawn from outside its own vaults."""

    vault_ids: tuple[int, ...]
    readable: tuple[int, ...]
    reason: str = ""
    # The vaults the read was asked for before the policy kept the readable ones (None: every vault, or every
    # unarchived one): what the read touches when a test switches the policy's own filter off.
    asked: tuple[int, ...] | None = None
    archived_too: bool = True

    def __post_init__(self) -> None:
        if not _MAKING.get():
            raise TypeError("a Scope is made by the permission policy: scope_for, readable_scope or system_scope")

    def __bool__(self) -> bool:
        return bool(self.vault_ids)

    def __contains__(self, vault_id: object) -> bool:
        return vault_id in self.vault_ids

    @property
    def is_system(self) -> bool:
        return bool(self.reason)

    def within(self, vault_ids: Iterable[int]) -> Scope:
        """This scope narrowed to `vault_ids` (ids outside it are dropped, never added)."""
        wanted = set(vault_ids)
        asked = wanted if self.asked is None else wanted & set(self.asked)
        return _made([v for v in self.vault_ids if v in wanted], self.readable, self.reason, asked, self.archived_too)

    def strict(self) -> Scope:
        """The same vaults, reading nothing drawn from a vault outside them."""
        return _made(self.vault_ids, self.vault_ids, self.reason, self.asked, self.archived_too)

    def params(self) -> dict[str, list[int]]:
        """The parameters a statement binds: `%(scope)s` (the vaults) and `%(readable)s` (for `drawn_from`)."""
        # `drawn_from` has no second wall: with the filters off, only the scope's own filter is off
        return {"scope": self._filtered(), "readable": list(self.readable)}

    def q(self, field_name: str = "vault_id") -> Q:
        """The condition that `field_name` is one of the scope's vaults, for a queryset's own filter."""
        return Q(**{f"{field_name}__in": self._filtered()})

    def _filtered(self) -> list[int]:
        """The scope's vaults; with the policy's filter switched off (a test proving that the database's row-level
        security alone keeps each requester to their vaults), the vaults asked for and every vault the requester
        may not read, which only the database can then keep out."""
        if settings.SCOPE_FILTERS:
            return list(self.vault_ids)
        every = Vault.objects.all() if self.archived_too else Vault.objects.filter(archived_at__isnull=True)
        every_id = set(every.values_list("pk", flat=True))
        if self.asked is None:
            return sorted(every_id)
        return sorted(set(self.asked) | (every_id - set(self.readable)))

    def filter(self, queryset: QuerySet[M], field_name: str = "vault_id") -> QuerySet[M]:
        """`queryset` restricted, inside its SQL, to rows whose `field_name` is one of the scope's vaults."""
        return queryset.filter(self.q(field_name))


def _made(
    vault_ids: Iterable[int],
    readable: Iterable[int],
    reason: str = "",
    asked: Iterable[int] | None = None,
    archived_too: bool = True,
) -> Scope:
    making = _MAKING.set(True)
    try:
        kept = None if asked is None else tuple(sorted(set(asked)))
        return Scope(tuple(sorted(set(vault_ids))), tuple(sorted(set(readable))), reason, kept, archived_too)
    finally:
        _MAKING.reset(making)


def readable_scope(user: Requester) -> Scope:
    """Every vault `user` reads now, archived ones included (token limits applied by the policy)."""
    readable = vault_ids_for(user, "read")
    return _made(readable, readable)


def scope_for(user: Requester, asked: Iterable[int] | None = None) -> Scope:
    """The vaults a request searches: those asked for, each readable by `user` (else 404, as for a vault that does
    not exist), or, when none is asked for, every readable vault that is not archived."""
    readable = vault_ids_for(user, "read")
    wanted = set(asked or ())
    if not wanted:
        return _made(vault_ids_unarchived(user=user), readable, archived_too=False)
    if not wanted <= set(readable):
        raise Http404("No vault matches the given query.")
    return _made(wanted, readable, asked=wanted)


def system_scope(vault_ids: Iterable[int], *, reason: str) -> Scope:
    """A scope for a worker job that has no requester (graph extraction, the evaluation): `reason` says why."""
    if not reason.strip():
        raise ValueError("a system scope says why it is needed")
    ids = list(vault_ids)
    return _made(ids, ids, reason.strip())
