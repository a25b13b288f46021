"""Watching it run: after one chat served by gunicorn and answered by a real Celery worker, /metrics shows the
request's latency by view, the answer's latency, what the gate let through, the model calls by slot, the depth of
each queue and the worker's heartbeat; and every log line of that chat, in the web process and in the worker,
carries the same request id. /metrics refuses anyone without the token."""

from __future__ import annotations

import http.client
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from apps.accounts.tokens import token_create
from tests.factories import make_note, make_user, make_vault
from tests.servers import gunicorn_serving

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture(autouse=True)
def _json_logs_and_own_metrics(monkeypatch, tmp_path) -> None:
    """Before the worker and the web server start: they inherit both. The metrics directory is this test's alone,
    so what the series show is what this test's worker and web server did, never a process an earlier test left
    finishing an answer."""
    monkeypatch.setenv("DESIREPATH_LOG_JSON", "1")
    monkeypatch.setenv("DESIREPATH_METRICS_DIR", str(tmp_path / "metrics"))


def _request(port: int, method: str, path: str, headers: dict[str, str], body: bytes | None = None):  # type: ignore[no-untyped-def]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request(method, path, body=body, headers={"Host": "localhost", **headers})
    response = connection.getresponse()
    content = response.read()
    connection.close()
    return response, content


def _scrape(port: int) -> Samples:
    response, content = _request(port, "GET", "/metrics", {"Authorization": f"Bearer {settings.METRICS_TOKEN}"})
    assert response.status == 200 and response.getheader("Content-Type").startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(content.decode())
        for sample in family.samples
    }


def _value(samples: Samples, name: str, **labels: str) -> float:
    """The sample `name` with exactly these labels (0 when the series has not appeared yet)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def _json_lines(path: Path) -> Iterator[dict]:
    for line in path.read_text().splitlines():
        if line.startswith("{"):
            yield json.loads(line)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_one_chat_shows_in_metrics_and_its_log_lines_share_one_request_id(answer_worker, tmp_path):
    owner = make_user("watched")
    vault = make_vault(owner, "Ops")
    make_note(vault, "Permit to Work.md", "# Permit to Work\nA permit to work (PTW) is needed before hot work.")
    # The answer streams from a priced model (the scripted server answers under any name), so it has a cost.
    vault.chat_settings = {"models": {"chat": "openai/gpt-4o-mini"}, "librarian": False}
    vault.save(update_fields=["chat_settings"])
    key = token_create(user=owner, name="metrics test").key
    web_log = tmp_path / "web.log"
    queues = {"default": settings.CELERY_TASK_DEFAULT_QUEUE, "answers": settings.CHAT_ANSWER_QUEUE}

    with gunicorn_serving(env={"DESIREPATH_CHAT_ANSWERS_IN_WORKER": "1"}, log=web_log) as port:
        before = _scrape(port)
        request_id = f"chat-{uuid.uuid4().hex}"
        question = json.dumps({"vaults": [vault.pk], "message": "When do I need a permit to work?"}).encode()
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json", "X-Request-ID": request_id}
        response, content = _request(port, "POST", "/api/chat/", headers, question)
        assert response.status == 200, content
        assert json.loads(content)["grounded"] and response.getheader("X-Request-ID") == request_id
        after = _scrape(port)

        # Refused without the token, or with another.
        for refused_headers in ({}, {"Authorization": "Bearer not-the-token"}):
            refused, _ = _request(port, "GET", "/metrics", refused_headers)
            assert refused.status == 401 and refused.getheader("WWW-Authenticate").startswith("Bearer")

    def grew(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    # Request latency by view: the chat's one POST.
    assert grew("django_http_requests_latency_seconds_by_view_method_count", view="chat", method="POST") == 1
    assert 0 < grew("django_http_requests_latency_seconds_by_view_method_sum", view="chat", method="POST") < 120
    # The answer's latency, measured in the worker from the question stored to the answer finished.
    assert grew("desirepath_answer_latency_seconds_count", outcome="complete") == 1
    assert 0 < grew("desirepath_answer_latency_seconds_sum", outcome="complete") < 120
    # The gate: the question had something pass, out of the candidates it weighed.
    assert grew("desirepath_gate_questions_total", outcome="passed") == 1
    assert grew("desirepath_gate_questions_total", outcome="nothing_passed") == 0
    passed = grew("desirepath_gate_candidates_total", outcome="passed")
    cut = grew("desirepath_gate_candidates_total", outcome="cut")
    assert passed >= 1 and 0 < passed / (passed + cut) <= 1
    # Model calls by slot: the streamed answer, with the scripted server's usage and litellm's price.
    assert grew("desirepath_model_calls_total", slot="chat", outcome="ok") == 1
    assert grew("desirepath_model_calls_total", slot="chat", outcome="error") == 0
    assert grew("desirepath_model_tokens_total", slot="chat", direction="in") == 42
    assert grew("desirepath_model_tokens_total", slot="chat", direction="out") > 0
    assert grew("desirepath_model_cost_usd_total", slot="chat") > 0
    assert grew("desirepath_model_calls_total", slot="scoring", outcome="ok") >= 1  # the gate's local scorer
    # Queue depth per queue: the answer was taken; the chat's follow-up signal waits in the general queue, which
    # no worker of this test consumes.
    assert _value(after, "desirepath_redis_up") == 1
    assert _value(after, "desirepath_queue_depth", queue=queues["answers"]) == 0
    assert _value(after, "desirepath_queue_depth", queue=queues["default"]) >= 1
    # Worker heartbeats: the answers worker, lately; none for the general queue.
    beats = {
        dict(labels)["queue"]: at
        for (name, labels), at in after.items()
        if name == "desirepath_worker_heartbeat_timestamp_seconds"
    }
    assert set(beats) == {queues["answers"]} and time.time() - beats[queues["answers"]] < 60

    # One request id from the web process into the worker: the request's lines, the task it queued, the task's run.
    web = [line for line in _json_lines(web_log) if line.get("request_id") == request_id]
    assert {"request_started", "request_finished"} <= {line["event"] for line in web}
    enqueued = [line for line in web if line["event"] == "task_enqueued"]
    assert "apps.chat.tasks.answer" in {line["child_task_name"] for line in enqueued}
    worker = [line for line in _json_lines(answer_worker.log_path) if line.get("request_id") == request_id]
    assert {"task_started", "task_succeeded"} <= {line["event"] for line in worker}
    assert {line["task_id"] for line in worker} <= {line["child_task_id"] for line in enqueued}
    # Lines of other requests carry ids of their own.
    scrapes = [line for line in _json_lines(web_log) if line.get("request") == "GET /metrics"]
    assert scrapes and request_id not in {line.get("request_id") for line in scrapes}


@pytest.mark.django_db
def test_metrics_open_to_the_token_or_the_listed_networks_only(settings):
    settings.METRICS_NETWORKS = ["10.0.0.0/8"]
    assert Client().get("/metrics").status_code == 401
    assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics").status_code == 200
    token = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {settings.METRICS_TOKEN}")
    assert token.status_code == 200 and b"desirepath_queue_depth" in token.content

    settings.METRICS_TOKEN = ""  # neither for this address: closed, and it says how to open it
    settings.METRICS_NETWORKS = []
    closed = Client().get("/metrics")
    assert closed.status_code == 403 and "DESIREPATH_METRICS_TOKEN" in closed.json()["detail"]


def test_a_request_id_is_kept_when_it_looks_like_one_and_made_otherwise(db):
    kept = Client().get("/healthz", HTTP_X_REQUEST_ID="proxy-1234.5")
    assert kept["X-Request-ID"] == "proxy-1234.5"
    for sent in ({}, {"HTTP_X_REQUEST_ID": "x" * 200}, {"HTTP_X_REQUEST_ID": "a b\nforged=1"}):
        made = Client().get("/healthz", **sent)["X-Request-ID"]
        assert str(uuid.UUID(made)) == made
