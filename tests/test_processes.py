"""One process list (desirepath/processes.py): every queue a task can be sent to has a consumer in it, the compose
file runs exactly its rows (with health checks and a migrate step first), and a process started from it does its
work — a chat is answered by the `answers` row's worker."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings
from django.db import connection

from desirepath.processes import PROCESSES, consumed_queues, process_named
from tests.factories import api, make_note, make_user, make_vault
from tests.servers import free_port, gunicorn_serving

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker" / "compose.yml"
DOCKERFILE = ROOT / "docker" / "Dockerfile"
SERVERS = {"db", "redis"}  # images of their own, not rows of the process list
ONE_SHOT = {"migrate"}


def _compose() -> dict[str, Any]:
    return dict(yaml.safe_load(COMPOSE.read_text()))


def _routed_queues() -> dict[str, str]:
    """Every queue Celery would send something to, by what sends it: each registered task as Celery's own router
    routes it (CELERY_TASK_ROUTES, a task's `queue` option, else the default queue) and each beat entry's."""
    from desirepath.celery import app

    app.loader.import_default_modules()
    queues = {}
    for name, task in app.tasks.items():
        if name.startswith("celery."):
            continue
        route = app.amqp.router.route(task._get_exec_options(), name)
        queues[f"task {name}"] = route["queue"].name
    for entry, spec in settings.CELERY_BEAT_SCHEDULE.items():
        task = app.tasks[spec["task"]]
        route = app.amqp.router.route({**task._get_exec_options(), **spec.get("options", {})}, spec["task"])
        queues[f"beat {entry}"] = route["queue"].name
    return queues


def test_every_queue_a_task_is_sent_to_has_a_consumer_in_the_process_list():
    routed = _routed_queues()

    assert "task apps.chat.tasks.answer" in routed and "task apps.notes.tasks.import_run" in routed
    assert routed["task apps.chat.tasks.answer"] == settings.CHAT_ANSWER_QUEUE
    for route in settings.CELERY_TASK_ROUTES.values():
        routed[f"route {route}"] = route["queue"]
    unconsumed = {sender: queue for sender, queue in routed.items() if queue not in consumed_queues()}
    assert not unconsumed, f"queues no process of desirepath/processes.py consumes: {unconsumed}"
    # Answers are consumed apart from everything else: a long import never holds a question up.
    assert process_named("answers").queues() == [settings.CHAT_ANSWER_QUEUE]
    assert settings.CHAT_ANSWER_QUEUE not in process_named("worker").queues()


def test_compose_runs_exactly_the_process_list_after_migrating():
    services = _compose()["services"]

    rows = {name: spec for name, spec in services.items() if name not in SERVERS | ONE_SHOT}
    assert list(rows) == [process.name for process in PROCESSES]
    for name, spec in rows.items():
        assert spec["command"] == ["python", "-m", "desirepath.processes", name]
        assert spec["environment"]["DJANGO_SETTINGS_MODULE"] == "desirepath.settings.production"
        assert spec["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
        assert spec["depends_on"]["db"] == spec["depends_on"]["redis"] == {"condition": "service_healthy"}
    assert "manage.py migrate" in " ".join(services["migrate"]["command"])
    assert services["migrate"]["restart"] == "no"
    assert services["db"]["healthcheck"]["test"][1].startswith("pg_isready")
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    assert services["web"]["healthcheck"]["test"] == ["CMD", "python", "-m", "desirepath.processes", "web", "--health"]


def _interpolated(value: str) -> str:
    """Compose's `${VAR:-default}` and `${VAR:?message}` as compose resolves them with nothing set (a required
    variable gets a stand-in)."""
    value = re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)
    return re.sub(r"\$\{([A-Z_]+):\?[^}]*\}", r"stand-in-for-\1", value)


def test_in_compose_each_worker_consumes_the_production_queues():
    environment = {k: _interpolated(str(v)) for k, v in _compose()["x-app"]["environment"].items()}
    clean = {k: v for k, v in os.environ.items() if k != "DESIREPATH_TASK_QUEUE"}

    listed = subprocess.run(
        [sys.executable, "-m", "desirepath.processes"],
        cwd=ROOT,
        env={**clean, **environment},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    lines = dict(line.split(": ", 1) for line in listed.strip().splitlines())

    assert list(lines) == ["web", "worker", "answers", "beat"]
    assert " -Q desirepath " in lines["worker"] and "--concurrency 2" in lines["worker"]
    assert " -Q desirepath-answers " in lines["answers"]
    assert "--bind 0.0.0.0:8000 --workers 3" in lines["web"]
    assert lines["beat"].startswith("celery -A desirepath beat")


def test_the_image_installs_the_cpu_build_of_the_pinned_torch():
    pinned = re.search(r'"torch==([^"]+)"', (ROOT / "pyproject.toml").read_text())
    assert pinned
    dockerfile = DOCKERFILE.read_text()
    assert f"--index-url https://download.pytorch.org/whl/cpu torch=={pinned[1]}" in dockerfile
    # The CPU wheel is in place before the project's own install, which would otherwise take PyPI's CUDA build.
    assert dockerfile.index("whl/cpu torch") < dockerfile.index("pip install --no-cache-dir .")
    assert 'CMD ["python", "-m", "desirepath.processes", "web"]' in dockerfile


@pytest.mark.django_db(transaction=True)
def test_the_web_health_check_passes_on_a_running_server_and_fails_without_one():
    def health(port: int) -> int:
        env = {**os.environ, "DESIREPATH_PORT": str(port), "DJANGO_ALLOWED_HOSTS": "notes.example.org,localhost"}
        command = [sys.executable, "-m", "desirepath.processes", "web", "--health"]
        return subprocess.run(command, cwd=ROOT, env=env, timeout=60, check=False).returncode

    with gunicorn_serving(env={"DJANGO_ALLOWED_HOSTS": "notes.example.org"}) as port:
        assert health(port) == 0
    assert health(free_port()) == 1


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_chat_is_answered_by_the_answers_process_of_the_list(settings, tmp_path, worker_models):
    from desirepath.celery import app

    settings.CHAT_ANSWERS_IN_WORKER = True
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "desirepath.settings.test",
        "DESIREPATH_DB_NAME": connection.settings_dict["NAME"],
        "DESIREPATH_TORCH_THREADS": "1",
        "DESIREPATH_ANSWER_CONCURRENCY": "1",
        "DESIREPATH_LLM_API_BASE": worker_models.base_url,
    }
    with (tmp_path / "answers.log").open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "desirepath.processes", "answers"], cwd=ROOT, env=env, stdout=log, stderr=log
        )
    try:
        deadline = time.time() + 60
        while not app.control.ping(timeout=0.5):
            assert process.poll() is None and time.time() < deadline, (tmp_path / "answers.log").read_text()
        user = make_user("asks-the-listed-worker")
        vault = make_vault(user, "Bakery")
        make_note(vault, "Starter.md", "# Sourdough starter\nA sourdough starter is flour and water, fed daily.")

        reply = api(user).post("/api/chat/", {"vaults": [vault.pk], "message": "What is a starter?"}, format="json")

        assert reply.status_code == 200, reply.content
        assert reply.json()["status"] == "complete" and "flour and water" in reply.json()["answer"]
    finally:
        process.terminate()
        process.wait(timeout=60)
