import contextlib
import inspect
import logging.config
import os
from typing import Any

from celery import Celery
from celery.signals import (
    heartbeat_sent,
    setup_logging,
    task_postrun,
    task_prerun,
    worker_init,
    worker_shutdown,
)
from django_structlog.celery.steps import DjangoStructLogInitStep

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "desirepath.settings.dev")

app = Celery("desirepath")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Each task's log lines carry the request id of the request that queued it (django-structlog's task headers).
app.steps["worker"].add(DjangoStructLogInitStep)


@setup_logging.connect
def _logging_as_the_web(**_: Any) -> None:
    """The worker logs as the web processes do (settings.LOGGING): one format, with each task's request id."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


def _consumed_queues() -> list[str]:
    queues = app.amqp.queues
    return sorted(queues.consume_from or queues)


@worker_init.connect
def refuse_an_unwalled_role(**_: Any) -> None:
    """A worker whose database role row-level security does not hold starts no task (Celery logs and swallows what
    a signal's receiver raises, except a request to exit, which the check makes)."""
    from apps.core.database_roles import application_role_refuse_unwalled

    application_role_refuse_unwalled()


@heartbeat_sent.connect
def _heartbeat_to_redis(sender: Any, **_: Any) -> None:
    """Celery's own heartbeat (every two seconds), also written where /healthz and /metrics read it."""
    from apps.core.workers import heartbeat_write

    with contextlib.suppress(Exception):  # Redis away: the heartbeat grows old and the worker reads as down
        heartbeat_write(worker=sender.eventer.hostname, queues=_consumed_queues())


@worker_shutdown.connect
def _heartbeat_removed(sender: Any, **_: Any) -> None:
    from apps.core.workers import heartbeat_remove

    with contextlib.suppress(Exception):
        heartbeat_remove(worker=sender.hostname, queues=_consumed_queues())


# Each running task's binding token, by task id, so the binding before it is bound again after it.
_BINDINGS: dict[str, Any] = {}


def task_binding(task: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What a task reads. A task run for one person (given a `user_id`) reads what that person reads now, as their
    request would. A task given one vault (`vault_id`), or working on one vault's record (a `vault_of` option: a
    function of its arguments giving that vault, as an import job names its vault), reads that vault alone, any
    other every vault, each under a system binding that names the task (it has no requester): the Librarian's
    filing and summaries among them, since what they write must name every vault an answer drew on, those its asker
    no longer reads included."""
    from apps.core import row_security

    reason = f"task {task.name}"
    arguments: dict[str, Any]
    try:
        arguments = dict(inspect.signature(task.run).bind_partial(*args, **kwargs).arguments)
    except TypeError:  # called with arguments its function does not take: it fails on its own
        arguments = {}
    if "user_id" in arguments:
        return _person_binding(_as_id(arguments["user_id"]), reason)
    vault_of = getattr(task, "vault_of", None)
    vault_of = getattr(vault_of, "__func__", vault_of)  # a task's option reads back as a method of the task
    if vault_of is not None:
        with row_security.bound(row_security.system(f"which vault {reason} works on")):
            try:
                vault_id = _as_id(vault_of(**arguments))
            except TypeError:  # called without the arguments that name its vault: it fails on its own
                vault_id = None
        return row_security.system(reason, vault_ids=(vault_id,) if vault_id is not None else ())
    vault_id = _as_id(arguments.get("vault_id"))
    if vault_id is not None:
        return row_security.system(reason, vault_ids=(vault_id,))
    return row_security.system(reason)


def _as_id(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _person_binding(user_id: int | None, reason: str) -> Any:
    """The binding of the person a task runs for, what they read looked up as the system; a task for a person who
    is gone, or for nobody, reads nothing of any vault."""
    from django.contrib.auth import get_user_model

    from apps.core import row_security
    from apps.vaults.row_scope import requester_binding

    with row_security.bound(row_security.system(f"what {reason} reads for its person")):
        user = get_user_model().objects.filter(pk=user_id).first() if user_id is not None else None
        return requester_binding(user) if user is not None else row_security.vaults(())


@task_prerun.connect
def _task_bound(
    sender: Any, task_id: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None, **_: Any
) -> None:
    """A task has no request to bind it: it reads under the binding `task_binding` works out from its arguments (its
    person's, or the system's), and its own statements keep to the scope it was given."""
    from apps.core import row_security

    _BINDINGS[task_id] = row_security.enter(task_binding(sender, tuple(args or ()), dict(kwargs or {})))


@task_postrun.connect
def _task_unbound(task_id: str, **_: Any) -> None:
    from apps.core import row_security

    token = _BINDINGS.pop(task_id, None)
    if token is not None:
        row_security.leave(token)
