import contextlib
import logging.config
import os
from typing import Any

from celery import Celery
from celery.signals import heartbeat_sent, setup_logging, task_postrun, task_prerun, worker_shutdown
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


@task_prerun.connect
def _task_reads_as_the_system(sender: Any, task_id: str, **_: Any) -> None:
    """A task has no request, so no requester binding: it reads under a system binding that names it, and its own
    statements keep to the scope it was given."""
    from apps.core import row_security

    _BINDINGS[task_id] = row_security.enter(row_security.system(f"task {sender.name}"))


@task_postrun.connect
def _task_unbound(task_id: str, **_: Any) -> None:
    from apps.core import row_security

    token = _BINDINGS.pop(task_id, None)
    if token is not None:
        row_security.leave(token)
