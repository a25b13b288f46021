"""The second wall: which vaults' rows PostgreSQL shows the application's connection, whatever its SQL says.

Every table that carries a `vault_id` has row-level security (the `vaults` migration `row_level_security`): its
policies read two settings of the connection, `desirepath.vaults` (the vault ids a request may read, or `*`) and
`desirepath.system` (why a job without a requester reads, or empty), and show nothing when neither is set. The
application never sets them by hand: code says *who* it reads for by binding a `RowScope` for the length of a
request, a task or a block (`bound`), and a hook on every statement of the `default` connection makes the
connection's settings match the binding before the statement runs, once per change.

A request is bound to its requester's readable vaults (`apps.vaults.row_scope`), a Celery task and a management
command to the system with their names as the reason; a process with no binding at all (a web worker between
requests) reads nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created
from psycopg.pq import TransactionStatus

P = ParamSpec("P")
T = TypeVar("T")

ALL_VAULTS = "*"
VAULTS_SETTING = "desirepath.vaults"
SYSTEM_SETTING = "desirepath.system"
# The connections whose statements are bound: the application's; the owner's bypasses the policies (migrations).
BOUND_ALIASES = frozenset({"default"})


@dataclass
class RowScope:
    """What one binding lets PostgreSQL show: `vault_ids` (None with a reason: every vault), and for a job without
    a requester the `reason` it reads at all. A request's binding knows its requester only once authentication ran:
    `requester` says who it is now, and `readable` gives their vaults, asked again only when the requester changed
    (an API token replaces the anonymous user of the session). `admitted` are vaults made inside the binding, which
    their maker reads at once."""

    vault_ids: tuple[int, ...] | None = ()
    reason: str = ""
    requester: Callable[[], object] | None = None
    readable: Callable[[object], tuple[int, ...]] | None = None
    admitted: set[int] = field(default_factory=set)
    _resolved_for: object = None
    _settings: tuple[str, str] | None = None  # worked out once, again only when the requester or `admitted` changed

    def settings(self) -> tuple[str, str]:
        """(`desirepath.vaults`, `desirepath.system`) for this binding."""
        if self.requester is not None and self.readable is not None:
            who = self.requester()
            if who is not self._resolved_for:
                self._resolved_for, self.vault_ids, self._settings = who, self.readable(who), None
        if self._settings is None:
            if self.vault_ids is None:
                self._settings = (ALL_VAULTS, self.reason)
            else:
                ids = sorted({*self.vault_ids, *self.admitted})
                self._settings = (",".join(str(v) for v in ids), self.reason)
        return self._settings

    def admit(self, vault_id: int) -> None:
        self.admitted.add(vault_id)
        self._settings = None


def system(reason: str, vault_ids: tuple[int, ...] | None = None) -> RowScope:
    """A binding for work without a requester; `reason` says why (it is in every statement's settings)."""
    if not reason.strip():
        raise ValueError("a system binding says why it is needed")
    return RowScope(vault_ids=vault_ids, reason=reason.strip())


def vaults(vault_ids: tuple[int, ...]) -> RowScope:
    """A binding to the vaults a requester reads."""
    return RowScope(vault_ids=tuple(vault_ids))


def for_requester(requester: Callable[[], object], readable: Callable[[object], tuple[int, ...]]) -> RowScope:
    """A binding to whatever `requester()` is when a statement runs, reading `readable(requester)`."""
    return RowScope(requester=requester, readable=readable)


_BOUND: ContextVar[RowScope | None] = ContextVar("row_scope", default=None)
_RESOLVING: ContextVar[bool] = ContextVar("row_scope_resolving", default=False)
# For a whole process: what a management command or the test session reads with outside any other binding.
_process_default: RowScope | None = None


def process_default_set(scope: RowScope | None) -> None:
    global _process_default
    _process_default = scope


def current() -> RowScope | None:
    return _BOUND.get() or _process_default


@contextmanager
def bound(scope: RowScope) -> Iterator[RowScope]:
    """Statements inside the block read as `scope`."""
    token = enter(scope)
    try:
        yield scope
    finally:
        leave(token)


def bind(scope: RowScope | None) -> None:
    """Bind `scope` until the next `bind` (a request from its start to its end, which are two signal handlers)."""
    _BOUND.set(scope)


def as_system(reason: str) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Run the decorated function under a system binding: for reads that count or summarise the whole deployment
    (model health, an embedding switch's progress, the discovery budget report) for the staff who may see them."""

    def decorate(function: Callable[P, T]) -> Callable[P, T]:
        @wraps(function)
        def bound_to_the_system(*args: P.args, **kwargs: P.kwargs) -> T:
            with bound(system(reason)):
                return function(*args, **kwargs)

        return bound_to_the_system

    return decorate


def enter(scope: RowScope) -> Token[RowScope | None]:
    """Bind `scope` until `leave` with the returned token, which brings back what was bound before (a task's
    binding, entered and left by two signal handlers, even when the task ran inside a request)."""
    return _BOUND.set(scope)


def leave(token: Token[RowScope | None]) -> None:
    _BOUND.reset(token)


def admit(vault_id: int) -> None:
    """A vault made inside the current binding: its maker reads it from now on (a signup's personal vault)."""
    scope = current()
    if scope is not None and scope.vault_ids is not None:
        scope.admit(vault_id)


@dataclass
class _Applied:
    connection: object  # the driver's connection the settings were sent on
    settings: tuple[str, str]
    in_transaction: bool  # sent inside a transaction: a rollback takes them back


def _settings_wanted() -> tuple[str, str]:
    scope = current()
    if scope is None:
        return "", ""
    resolving = _RESOLVING.set(True)  # the resolver's own statements (the permission tables) pass unbound
    try:
        return scope.settings()
    finally:
        _RESOLVING.reset(resolving)


def _apply(wrapper: BaseDatabaseWrapper) -> None:
    if wrapper.needs_rollback or _aborted(wrapper):
        return  # the statement fails anyway, with its own error; settings are sent again after the rollback
    wanted = _settings_wanted()
    applied: _Applied | None = getattr(wrapper, "_row_scope_applied", None)
    in_transaction = wrapper.in_atomic_block or not wrapper.get_autocommit()
    fresh = (
        applied is not None
        and applied.connection is wrapper.connection
        and applied.settings == wanted
        and (in_transaction or not applied.in_transaction)
    )
    if fresh:
        return
    # The driver's own cursor: the statement must not come back through this hook.
    with wrapper.wrap_database_errors, wrapper.connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config(%s, %s, false), set_config(%s, %s, false)",
            [VAULTS_SETTING, wanted[0], SYSTEM_SETTING, wanted[1]],
        )
    wrapper._row_scope_applied = _Applied(wrapper.connection, wanted, in_transaction)  # type: ignore[attr-defined]


def _aborted(wrapper: BaseDatabaseWrapper) -> bool:
    return bool(wrapper.connection.info.transaction_status == TransactionStatus.INERROR)


def _statement_hook(wrapper: BaseDatabaseWrapper) -> Callable[..., Any]:
    def hook(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        if not _RESOLVING.get():
            _apply(wrapper)
        return execute(sql, params, many, context)

    return hook


def _forget_on_rollback(wrapper: Any) -> None:
    """A rolled-back transaction or savepoint takes back settings sent inside it: send them again next time."""
    rollback, savepoint_rollback = wrapper._rollback, wrapper._savepoint_rollback

    # Forgotten after the rollback ran: the rollback statement itself must not send settings into an aborted
    # transaction.
    def _rollback() -> None:
        rollback()
        wrapper._row_scope_applied = None

    def _savepoint_rollback(sid: str) -> None:
        savepoint_rollback(sid)
        wrapper._row_scope_applied = None

    # Django's own rollback steps, on this connection only (the backend offers no rollback signal).
    wrapper._rollback = _rollback
    wrapper._savepoint_rollback = _savepoint_rollback


def _on_connection_created(sender: Any, connection: BaseDatabaseWrapper, **_: Any) -> None:
    if connection.alias not in BOUND_ALIASES or getattr(connection, "_row_scope_hooked", False):
        return
    connection.execute_wrappers.append(_statement_hook(connection))
    _forget_on_rollback(connection)
    connection._row_scope_hooked = True  # type: ignore[attr-defined]


def install() -> None:
    """Hook every new connection of the application (called once, when the apps are ready)."""
    connection_created.connect(_on_connection_created, dispatch_uid="row_security")


# The policies of a walled table, as the `vaults` migration `row_level_security` first wrote them; migrations that
# add a table with a vault, or give one a vault of its own, wall it with these. Each setting is read once per
# statement (a sub-select), not once per row.
LISTED_VAULTS_SQL = "vault_id = ANY ((SELECT desirepath_scope_vaults())::bigint[])"
SYSTEM_ALL_SQL = "(SELECT desirepath_system_all())"


def wall_sql(table: str, listed: str = LISTED_VAULTS_SQL, system_all: str = SYSTEM_ALL_SQL) -> str:
    """Row-level security on `table`, forced: rows of the bound vaults (`listed`), every row for a system binding
    that asks for all (`system_all`), nothing unbound."""
    return f"""
ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS scope_vaults ON {table};
DROP POLICY IF EXISTS system_all_vaults ON {table};
CREATE POLICY scope_vaults ON {table} USING ({listed}) WITH CHECK ({listed});
CREATE POLICY system_all_vaults ON {table} USING ({system_all}) WITH CHECK ({system_all});
"""
