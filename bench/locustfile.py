"""The load test's users, run by `bench/load.py` (locust, headless, in its own process: gevent stays out of
Django and pytest).

- `Reader` (the many): searches through the API and the page, reads and rewrites their own note with If-Match
  (PUT and PATCH), asks through the API and rates what it was shown, asks through the chat page and follows the
  answer's event stream to its end.
- `StreamStorm` (one): asks on the chat page, then opens 20 streams of that answer at once, again and again.
- `HealthPoller` (one): GET /healthz twice a second.

Every request is written to LOAD_RECORDS (one JSON line each) with its outcome: `ok`, `busy` (refused by design:
no wait slot left for this person or this server; the answer is still written), `late` (202: still being
written when the wait ended) or `error`. `bench/load.py` turns them into the figures.
Environment: LOAD_ACCOUNTS (the accounts file `bench/load.py` writes), LOAD_RECORDS, LOAD_QUERIES (a queries.jsonl),
LOAD_STEPS and LOAD_STEP_SECONDS (a step run: counts of readers, each held that long).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import time
from pathlib import Path
from typing import Any

from gevent.pool import Group
from locust import HttpUser, LoadTestShape, between, constant, events, task

ACCOUNTS = json.loads(Path(os.environ["LOAD_ACCOUNTS"]).read_text())
QUERIES = [json.loads(line)["q"] for line in Path(os.environ["LOAD_QUERIES"]).read_text().splitlines() if line.strip()]
_records = open(os.environ["LOAD_RECORDS"], "a", buffering=1)  # noqa: SIM115 - open for the whole run
_readers = itertools.count()
_runner: Any = None
STORM_STREAMS = 20
FEEDBACK_SIGNALS = ["confirm", "used", "not_relevant", "not_useful"]


@events.init.add_listener
def _keep_runner(environment: Any, **kwargs: Any) -> None:
    global _runner
    _runner = environment.runner


@events.request.add_listener
def _record(
    request_type: str, name: str, response_time: float, exception: Any, context: dict[str, Any], **kwargs: Any
) -> None:
    outcome = context.get("outcome") or ("error" if exception else "ok")
    row = {
        "t": round(time.time(), 3),
        "method": request_type,
        "name": name,
        "ms": round(response_time, 1),
        "full_ms": context.get("full_ms"),
        "outcome": outcome,
        "status": context.get("status"),
        "detail": str(exception)[:300] if exception else context.get("detail"),
        "users": _runner.user_count if _runner is not None else None,
    }
    _records.write(json.dumps(row) + "\n")


@events.user_error.add_listener
def _record_task_error(user_instance: Any, exception: Exception, tb: Any, **kwargs: Any) -> None:
    """A task that raised (a body that was not what the page promises, say) is an error too."""
    row = {"t": round(time.time(), 3), "method": "TASK", "name": type(user_instance).__name__, "ms": 0.0}
    row |= {"full_ms": None, "outcome": "error", "status": None, "detail": repr(exception)[:300]}
    _records.write(json.dumps({**row, "users": _runner.user_count if _runner is not None else None}) + "\n")


class Browser(HttpUser):
    """Logged in on the pages (a session made by the set-up) and on the API (a token), as a person with both
    would be; the chat page hands the CSRF cookie over."""

    abstract = True
    account: dict[str, Any]

    def on_start(self) -> None:
        self.client.cookies.set("sessionid", self.account["session"])
        self.api = {"Authorization": f"Token {self.account['token']}"}
        self.call("GET", "/chat/", "/chat/ (page)")

    def csrf(self) -> dict[str, str]:
        return {"X-CSRFToken": self.client.cookies.get("csrftoken") or "", "Referer": f"{self.host}/chat/"}

    def call(
        self, method: str, url: str, name: str, *, ok: tuple[int, ...] = (200,), **kwargs: Any
    ) -> tuple[int, Any, dict[str, str]]:
        """One request, its outcome recorded: the status, the decoded JSON body (None if not JSON), the headers."""
        with self.client.request(method, url, name=name, catch_response=True, **kwargs) as reply:
            context = reply.request_meta["context"]  # what the request event is fired with
            context["status"] = reply.status_code
            body = None
            if reply.headers.get("Content-Type", "").startswith("application/json"):
                body = reply.json()
            detail = body.get("detail", "") if isinstance(body, dict) else ""
            if reply.status_code in ok:
                reply.success()
            elif reply.status_code == 202 and str(detail).startswith("Not waited for"):
                context["outcome"], context["detail"] = "busy", detail
                reply.success()
            elif reply.status_code == 202:
                context["outcome"], context["detail"] = "late", detail
                reply.success()
            else:
                reply.failure(f"{reply.status_code}: {detail or reply.text[:200]}")
            return reply.status_code, body, dict(reply.headers)

    def stream(self, message: int, name: str) -> str:
        """Follow an answer's event stream to its last event; that event's kind (`busy` when refused)."""
        started = time.perf_counter()
        url = f"/chat/stream/{message}/"
        with self.client.get(url, name=name, stream=True, catch_response=True) as reply:
            context = reply.request_meta["context"]
            context["status"] = reply.status_code
            kind, data = "", {}
            if reply.status_code == 200:
                for line in reply.iter_lines(decode_unicode=True):
                    if line and line.startswith("event: "):
                        kind = line[len("event: ") :]
                    elif line and line.startswith("data: ") and kind in ("done", "failure", "timeout", "busy"):
                        data = json.loads(line[len("data: ") :])
                        break
            reply.close()
            context["full_ms"] = round((time.perf_counter() - started) * 1000, 1)
            if kind == "done":
                reply.success()
            elif kind == "busy":
                context["outcome"], context["detail"] = "busy", data.get("detail")
                reply.success()
            elif kind == "timeout" and (data.get("queued") or data.get("status") != "pending"):
                context["outcome"], context["detail"] = "late", f"timeout: {data}"  # kept, answered later
                reply.success()
            else:
                reply.failure(f"stream ended with {kind or reply.status_code}")
            return kind


class Reader(Browser):
    wait_time = between(3, 8)

    def on_start(self) -> None:
        self.account = ACCOUNTS["readers"][next(_readers) % len(ACCOUNTS["readers"])]
        super().on_start()
        self.items: list[int] = []

    @task(4)
    def search_api(self) -> None:
        query = {"q": random.choice(QUERIES), "k": 10}
        self.call("GET", "/api/search/", "/api/search/", params=query, headers=self.api)

    @task(2)
    def search_page(self) -> None:
        self.call("GET", "/", "/?q= (search page)", params={"q": random.choice(QUERIES)})

    def _note_write(self, method: str) -> None:
        url = f"/api/notes/{self.account['note']}/"
        _, _, headers = self.call("GET", url, "/api/notes/[id]/", headers=self.api)
        version = headers.get("ETag", "")
        stamp = f"{time.time():.3f}"
        body = f"# Notes of {self.account['username']}\n\nEdited at {stamp}: {random.choice(QUERIES)}\n"
        payload = {"body": body} if method == "PATCH" else {"path": self.account["note_path"], "body": body}
        self.call(method, url, "/api/notes/[id]/", json=payload, headers={**self.api, "If-Match": version})

    @task(2)
    def note_put(self) -> None:
        self._note_write("PUT")

    @task(1)
    def note_patch(self) -> None:
        self._note_write("PATCH")

    @task(1)
    def chat_api(self) -> None:
        question = {"message": random.choice(QUERIES), "vaults": ACCOUNTS["vaults"]}
        status, body, _ = self.call("POST", "/api/chat/", "/api/chat/", json=question, headers=self.api)
        if status == 200 and body:
            self.items = [item["id"] for item in body.get("candidates") or body.get("context") or []][:5]
        if self.items:
            self.feedback()

    def feedback(self) -> None:
        item = random.choice(self.items)
        self.call(
            "POST",
            "/api/feedback/",
            "/api/feedback/",
            ok=(200, 201),
            json={"context_item": item, "signal": random.choice(FEEDBACK_SIGNALS)},
            headers=self.api,
        )

    @task(1)
    def chat_page(self) -> None:
        self.call("GET", "/chat/", "/chat/ (page)")
        data = {"message": random.choice(QUERIES), "vault": [str(v) for v in ACCOUNTS["vaults"]]}
        status, body, _ = self.call("POST", "/chat/send/", "/chat/send/", data=data, headers=self.csrf())
        if status == 200 and body:
            self.stream(body["message"], "/chat/stream/[id]/")


class StreamStorm(Browser):
    """One person opening 20 streams of one answer at once: all but their share of wait slots are refused at
    once (`busy`), and nobody else may notice."""

    fixed_count = 1
    wait_time = constant(5)

    def on_start(self) -> None:
        self.account = ACCOUNTS["storm"]
        super().on_start()

    @task
    def storm(self) -> None:
        data = {"message": random.choice(QUERIES), "vault": [str(v) for v in ACCOUNTS["vaults"]]}
        status, body, _ = self.call("POST", "/chat/send/", "/chat/send/ (storm)", data=data, headers=self.csrf())
        if status != 200 or not body:
            return
        group = Group()
        for _ in range(STORM_STREAMS):
            group.spawn(self.stream, body["message"], "/chat/stream/[id]/ (storm, 20 at once)")
        group.join()


class HealthPoller(HttpUser):
    fixed_count = 1
    wait_time = constant(0.5)

    @task
    def healthz(self) -> None:
        self.client.get("/healthz", name="/healthz")


if os.environ.get("LOAD_STEPS"):

    class StepShape(LoadTestShape):
        """Readers in steps (plus the storm and the poller), each step held LOAD_STEP_SECONDS."""

        steps = [int(n) for n in re.split(r"[, ]+", os.environ["LOAD_STEPS"].strip())]
        seconds = float(os.environ.get("LOAD_STEP_SECONDS", "60"))

        def tick(self) -> tuple[int, float] | None:
            step = int(self.get_run_time() // self.seconds)
            if step >= len(self.steps):
                return None
            return self.steps[step] + 2, 10.0
