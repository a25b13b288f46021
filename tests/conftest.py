from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.management.commands import flush
from django.db import DEFAULT_DB_ALIAS, connection, connections

from desirepath import embedded
from tests.browser import page  # noqa: F401 (the Chromium fixture, for every test module)
from tests.factories import import_sample, make_user, make_vault
from tests.scripted_openai import Script, scripted_server


def _flush_as_the_owner(self, *args, **options):  # type: ignore[no-untyped-def]
    """Transactional tests end with a TRUNCATE of every table, which only the tables' owner may do, past the
    append-only logs' triggers (a superuser's `session_replication_role`): the application's role can do neither."""
    target = connections[options.get("database") or DEFAULT_DB_ALIAS]

    def execute_as_owner(statements: list[str]) -> None:
        import psycopg

        place = target.settings_dict
        with psycopg.connect(host=place["HOST"], dbname=place["NAME"], user=embedded.OWNER_ROLE) as owner:
            owner.execute("SET LOCAL session_replication_role = replica")
            for statement in statements:
                owner.execute(statement)

    target.ops.execute_sql_flush = execute_as_owner
    try:
        return _original_flush(self, *args, **options)
    finally:
        del target.ops.execute_sql_flush


_original_flush = flush.Command.handle
flush.Command.handle = _flush_as_the_owner


@pytest.fixture(scope="session", autouse=True)
def _tests_arrange_as_the_system() -> Iterator[None]:
    """A test arranges and checks data as an operator would: outside a request or a task it reads under a system
    binding. Requests made through the test client, live servers and workers bind their own."""
    from apps.core import row_security

    row_security.process_default_set(row_security.system("the tests arrange and check data"))
    yield
    row_security.process_default_set(None)


@pytest.fixture(autouse=True)
def _each_test_starts_unbound() -> Iterator[None]:
    """A request's binding ends when its response is closed; the test client closes a streamed response only once
    it is read to the end, so a stream a test left unread would bind the next test to that requester's vaults."""
    from apps.core import row_security

    row_security.bind(None)
    yield
    row_security.bind(None)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """The test database is created and migrated by the owner role, as `migrate` does outside tests."""
    _connect_as(embedded.OWNER_ROLE)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None) -> Iterator[None]:
    """The tests, and the servers and workers they start, then use the application's own role; the owner drops
    the test database at the end."""
    _autovacuum_off(connections["default"].settings_dict)
    _connect_as(embedded.APP_ROLE)
    yield
    _connect_as(embedded.OWNER_ROLE)


def _autovacuum_off(place: dict[str, Any]) -> None:
    """A test keeps its rows in one transaction autovacuum cannot see: statistics it takes then record the growing
    tables as empty (no live row on their pages), the planner believes them, and a lookup by key becomes nested
    scans of thousands of rows, each statement seconds long. Without statistics the planner sizes tables by their
    pages, as it should here."""
    import psycopg

    with psycopg.connect(host=place["HOST"], dbname=place["NAME"], user=embedded.OWNER_ROLE, autocommit=True) as owner:
        tables = owner.execute("SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public'").fetchall()
        for (table,) in tables:
            owner.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = false)")


def _connect_as(role: str) -> None:
    connections["default"].close()
    connections["default"].settings_dict["USER"] = role


@pytest.fixture(scope="session", autouse=True)
def _empty_redis_database() -> None:
    """Every test database numbers its messages from 1 again, and answer streams stay readable for an hour: one an
    earlier run left under the same message id would be read as this run's. The Redis database is this process's
    alone (desirepath/settings/test.py)."""
    import redis

    client = redis.Redis.from_url(django_settings.REDIS_URL)
    client.flushdb()
    client.close()


@pytest.fixture(scope="session", autouse=True)
def _empty_metrics_directory() -> None:
    """Metrics of earlier runs' servers and workers (this test process's directory alone: settings/test.py)."""
    from desirepath.observability import metrics_directory_empty

    metrics_directory_empty(django_settings.METRICS_DIR)


class _RememberingEncoder:
    """The real sentence-transformers encoder, asked once per text: a model's vector for a text never changes, and
    the three real vaults are imported by a dozen tests in each test process."""

    def __init__(self, encoder: Any, remembered: dict[str, Any]) -> None:
        self.encoder, self.remembered = encoder, remembered

    def encode(self, texts: list[str], **options: Any) -> Any:
        import numpy as np

        missing = list(dict.fromkeys(t for t in texts if t not in self.remembered))
        if missing:
            self.remembered.update(zip(missing, self.encoder.encode(missing, **options), strict=True))
        return np.stack([self.remembered[t] for t in texts])


@pytest.fixture(scope="session", autouse=True)
def _each_text_embedded_once_per_process() -> Iterator[None]:
    from apps.llm import embeddings

    load = embeddings._local_model
    remembered: dict[str, dict[str, Any]] = {}
    embeddings._local_model = lambda name: _RememberingEncoder(load(name), remembered.setdefault(name, {}))
    yield
    embeddings._local_model = load


@pytest.fixture(scope="session", autouse=True)
def _close_stray_sessions(django_db_setup, django_db_blocker) -> Iterator[None]:
    """Before the test database is dropped, end sessions other processes and threads left open (worker, live
    server), so teardown does not fail with "database is being accessed by other users". Only clients: the server's
    own workers on it (autovacuum) are not the application's to end."""
    yield
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )


@pytest.fixture(scope="session")
def sample_vault_id(django_db_setup, django_db_blocker) -> int:
    """The sample vault, imported (and embedded) once per test session as committed baseline data.

    pytest-django runs transactional tests (which flush the database) after all the others in each process."""
    with django_db_blocker.unblock():
        owner = make_user("sample-owner")
        vault = make_vault(owner, "Sample vault")
        import_sample(vault)
        return vault.pk


@pytest.fixture
def sample(db, sample_vault_id):
    """The committed sample vault; imported again inside the test, when a transactional test's flush took it (a
    worker that steals tests, `--dist worksteal`, can run a test that uses it after a transactional one)."""
    from apps.vaults.models import Vault

    vault = Vault.objects.select_related("owner").filter(pk=sample_vault_id).first()
    if vault is None:
        vault = make_vault(make_user("sample-owner"), "Sample vault")
        import_sample(vault)
    return vault


@pytest.fixture
def owner(db):
    return make_user("owner")


@pytest.fixture
def vault(owner):
    return make_vault(owner, "Team vault")


@pytest.fixture
def llm_server(settings, monkeypatch) -> Iterator[Script]:
    """The chat and scoring slots pointed at a scripted OpenAI-compatible server on 127.0.0.1 (real litellm)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with scripted_server(Script()) as script:
        settings.LLM_SLOTS = {
            **settings.LLM_SLOTS,
            "scoring": "openai/scripted-scorer",
            "chat": "openai/scripted-writer",
        }
        settings.LLM_API_BASE = script.base_url
        settings.LLM_BACKOFF_SECONDS = 0.01
        settings.LLM_RETRIES = 2
        yield script


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def worker_models() -> Iterator[Script]:
    """A scripted OpenAI-compatible server the worker process can reach: tests that run a worker point a vault's
    model slot at `openai/...` and script its replies (real HTTP from the worker)."""
    with scripted_server(Script()) as script:
        yield script


def _start_worker(log_dir: Path, models: Script, queues: list[str] | None = None) -> subprocess.Popen:
    from desirepath.celery import app

    queues = queues or [django_settings.CELERY_TASK_DEFAULT_QUEUE, django_settings.CHAT_ANSWER_QUEUE]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "desirepath.settings.test",
        "DESIREPATH_DB_NAME": connection.settings_dict["NAME"],
        "DESIREPATH_TORCH_THREADS": "1",
        "DESIREPATH_LLM_API_BASE": models.base_url,
        "DESIREPATH_LLM_BACKOFF_SECONDS": "0.01",
        "OPENAI_API_KEY": "sk-test-not-a-real-key",
    }
    log_path = log_dir / "worker.log"
    log = log_path.open("a")
    command = [sys.executable, "-m", "celery", "-A", "desirepath", "worker", "--pool=solo", "-Q", ",".join(queues)]
    process = subprocess.Popen(
        [*command, "-l", "INFO", "--without-mingle", "--without-gossip"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()  # the child holds its own descriptor
    process.log_path = log_path  # type: ignore[attr-defined]  # what the worker logged, for tests that read it
    deadline = time.time() + 60
    while not app.control.ping(timeout=0.5):
        if process.poll() is not None or time.time() > deadline:
            _stop_worker(process)  # a worker left running would take later tests' tasks with this run's code
            raise AssertionError("the Celery worker did not start")
    return process


def _stop_worker(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _purge_test_queues() -> None:
    from desirepath.celery import app

    with app.connection_for_write() as conn:
        for queue in (django_settings.CELERY_TASK_DEFAULT_QUEUE, django_settings.CHAT_ANSWER_QUEUE):
            conn.default_channel.queue_purge(queue)


@pytest.fixture
def worker(django_db_setup, tmp_path_factory, worker_models) -> Iterator[subprocess.Popen]:
    """A worker on the test queues (general work and answers), pointed at the test database. One per test: a
    transactional test's flush recreates content types under new ids, which a longer-lived worker would have
    cached (and guardian would then find no permissions), and leftovers from an earlier test are purged."""
    _purge_test_queues()  # leftovers from tests that queued without a worker
    process = _start_worker(tmp_path_factory.mktemp("worker"), worker_models)
    yield process
    _stop_worker(process)


@pytest.fixture
def another_worker(django_db_setup, tmp_path_factory, worker_models) -> Iterator[Callable[..., subprocess.Popen]]:
    """Starts a further worker when called (after a test killed the first one, say), on the given queues or both;
    stopped after the test."""
    started: list[subprocess.Popen] = []

    def start(queues: list[str] | None = None) -> subprocess.Popen:
        started.append(_start_worker(tmp_path_factory.mktemp("worker"), worker_models, queues))
        return started[-1]

    yield start
    for process in started:
        _stop_worker(process)


@pytest.fixture
def answers_in_worker(settings: Any, worker: subprocess.Popen) -> subprocess.Popen:
    """Chat answers go to the worker, as in production: the API waits for them, the page streams them."""
    settings.CHAT_ANSWERS_IN_WORKER = True
    return worker


@pytest.fixture
def answer_worker(settings: Any, django_db_setup, tmp_path_factory, worker_models) -> Iterator[subprocess.Popen]:
    """Chat answers go to a worker that takes nothing else, as `make run` starts one: follow-up work an import
    queued waits in the general queue (purged afterwards) instead of holding up the answer."""
    _purge_test_queues()
    settings.CHAT_ANSWERS_IN_WORKER = True
    process = _start_worker(tmp_path_factory.mktemp("worker"), worker_models, [django_settings.CHAT_ANSWER_QUEUE])
    yield process
    _stop_worker(process)
    _purge_test_queues()
