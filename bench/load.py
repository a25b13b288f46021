"""Load test of the running service: the stack `make run` starts (embedded PostgreSQL and Redis, gunicorn, the
Celery workers for the general and the answers queues, beat), on its own data directory and port, with a real vault
imported, 50 people with access, and the chat model pointed at a scripted OpenAI-compatible server on 127.0.0.1
(real HTTP, a fixed delay before each answer). Locust (`bench/locustfile.py`, headless, its own process) then runs:

1. steady: 50 readers for 5 minutes (search through the API and the page, chat through the API and the page's
   event stream, note writes with If-Match, feedback), one person opening 20 streams of an answer at once, again
   and again, and a /healthz poller;
2. steps: the same mix with more and more readers, to find the requests/s at which p95 passes 1 s.

Everything it started is stopped at the end. Figures go to bench/results/load.json (and are printed).
Usage: .venv/bin/python bench/load.py [--readers 50] [--seconds 300] [--steps 10,30,60,90,120,150]
       [--step-seconds 50] [--corpus /work/shared/corpora/foam-docs] [--keep-data]
"""

# isort: skip_file
from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.scripted_openai import Script, scripted_server  # noqa: E402

BIN = Path(sys.executable).parent
DATA_DIR = ROOT / ".data-load"
RESULTS = ROOT / "bench" / "results" / "load.json"
QUERIES = Path("/work/shared/eval/vaults/foam-docs/queries.jsonl")
CORPUS = Path("/work/shared/corpora/foam-docs")
ANSWER_DELAY_SECONDS = 0.5
ANSWER = (
    "From your notes [1]: this is how it works, step by step, with the setting named in the passage. "
    "See also [2] for the related feature."
)
# Requests that wait for an answer to be written by design; the others should each take well under a second.
WAITS_FOR_ANSWER = ("/api/chat/", "/chat/stream/")


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def stack_environment(port: int, llm_base: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "desirepath.settings.dev",
        "DESIREPATH_DATA_DIR": str(DATA_DIR),
        "DESIREPATH_DB_NAME": os.environ.get("DESIREPATH_DB_NAME", "dp_load"),
        "DESIREPATH_TASK_QUEUE": os.environ.get("DESIREPATH_TASK_QUEUE", "dp_load"),
        "DESIREPATH_PORT": str(port),
        "DESIREPATH_ADMIN_PASSWORD": "load-admin-" + secrets.token_urlsafe(12),
        "DESIREPATH_LLM_CHAT": "openai/scripted-writer",
        "DESIREPATH_LLM_API_BASE": llm_base,
        "OPENAI_API_KEY": "sk-load-not-a-real-key",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }


def healthy(port: int) -> bool:
    try:
        probe = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        probe.request("GET", "/healthz")
        ok = probe.getresponse().status == 200
        probe.close()
        return ok
    except OSError:
        return False


def stack_start(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    log = (DATA_DIR / "stack.log").open("ab")
    stack = subprocess.Popen([sys.executable, "-m", "desirepath.run"], cwd=ROOT, env=env, stdout=log, stderr=log)
    log.close()
    deadline = time.monotonic() + 900
    try:
        while not healthy(port):
            if stack.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the stack did not come up; see {DATA_DIR / 'stack.log'}")
            time.sleep(1)
    except BaseException:  # an interrupt while it starts stops it too
        stack_stop(stack)
        raise
    return stack


def stack_stop(stack: subprocess.Popen[bytes]) -> list[str]:
    """SIGTERM to `make run`'s process (it stops its web server, workers and the servers it started); what is left
    of ours afterwards, by command line, is named and killed by its id."""
    if stack.poll() is None:
        stack.send_signal(signal.SIGTERM)
        try:
            stack.wait(timeout=120)
        except subprocess.TimeoutExpired:
            stack.kill()
            stack.wait()
    from desirepath import embedded

    # Servers of this data directory that `make run` found running (an interrupted earlier run) and so left alone.
    if embedded.postgres_running(DATA_DIR):
        embedded.stop_postgres(DATA_DIR / "postgres")
    if embedded.redis_running(DATA_DIR):
        embedded.stop_redis(DATA_DIR)
    time.sleep(1)
    left = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(DATA_DIR) in command:
            left.append(f"{proc.name} {command[:120]}")
            os.kill(int(proc.name), signal.SIGKILL)
    return left


def populate(readers: int, corpus: Path) -> dict[str, Any]:
    """The corpus imported into a vault of the admin's, `readers` people (and the storm's) sharing it as
    contributors and the sample vault as readers, each with an API token and a note of their own to write."""
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from apps.core import row_security

    row_security.process_default_set(row_security.system("the load test arranges its people and vaults"))
    from django.test import Client

    from apps.accounts.services import user_create
    from apps.accounts.tokens import token_create
    from apps.notes.models import Note
    from apps.notes.services.notes import note_create
    from apps.vaults.models import Vault
    from apps.vaults.services import vault_create, vault_share

    admin = User.objects.get(username="admin")
    sample = Vault.objects.get(owner=admin, name="Sample vault")
    vault = Vault.objects.filter(owner=admin, name="Foam docs").first() or vault_create(owner=admin, name="Foam docs")
    if not vault.notes.exists():
        call_command("import_vault", str(corpus), vault=str(vault.pk), user="admin", label="foam-docs")

    def account(username: str) -> dict[str, Any]:
        user = User.objects.filter(username=username).first() or user_create(
            actor=None, username=username, password="load-" + secrets.token_urlsafe(16)
        )
        vault_share(actor=admin, vault=vault, role="contributor", user=user)
        vault_share(actor=admin, vault=sample, role="reader", user=user)
        path = f"load/{username}.md"
        note = Note.objects.filter(vault=vault, path=path).first() or note_create(
            actor=user, vault=vault, path=path, body=f"# Notes of {username}\n\nFirst draft.\n"
        )
        key = token_create(user=user, name="load test").key
        browser = Client()
        browser.force_login(user)  # people already logged in, as most are at any moment
        session = browser.cookies["sessionid"].value
        return {"username": username, "token": key, "session": session, "note": note.pk, "note_path": path}

    return {
        "vaults": [vault.pk, sample.pk],
        "readers": [account(f"reader{i:03d}") for i in range(readers)],
        "storm": account("storm"),
    }


def queues_drain(env: dict[str, str], limit: float = 300) -> float:
    """Wait until both task queues stay empty for 5 s (the import's follow-up work done); the seconds waited."""
    import redis

    port = int((DATA_DIR / "redis" / "port").read_text())
    client = redis.Redis(port=port)
    queue = env["DESIREPATH_TASK_QUEUE"]
    started = time.monotonic()
    quiet = 0
    while time.monotonic() - started < limit and quiet < 5:
        busy = client.llen(queue) + client.llen(f"{queue}-answers")
        quiet = quiet + 1 if busy == 0 else 0
        time.sleep(1)
    return round(time.monotonic() - started, 1)


def warm_up(port: int, accounts: dict[str, Any]) -> dict[str, list[float]]:
    """The first search in each web process and the first answer in each answers worker load the embedding model
    (tens of seconds on a busy machine): done here, before the clock starts, and reported as the cold start."""
    from concurrent.futures import ThreadPoolExecutor
    from urllib.parse import quote

    token = accounts["readers"][0]["token"]
    queries = [json.loads(line)["q"] for line in QUERIES.read_text().splitlines() if line.strip()]

    def timed(method: str, path: str, body: dict[str, Any] | None = None) -> float:
        started = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        connection.request(method, path, body=json.dumps(body) if body else None, headers=headers)
        connection.getresponse().read()
        connection.close()
        return round((time.perf_counter() - started) * 1000, 1)

    rounds: dict[str, list[float]] = {}
    with ThreadPoolExecutor(8) as pool:
        for n in range(3):
            searches = [f"/api/search/?q={quote(queries[(8 * n + i) % len(queries)])}" for i in range(8)]
            rounds[f"search round {n + 1} (8 at once), ms"] = list(pool.map(lambda p: timed("GET", p), searches))
        for n in range(2):
            asks = [{"message": queries[i], "vaults": accounts["vaults"]} for i in range(2)]
            rounds[f"chat round {n + 1} (2 at once), ms"] = list(
                pool.map(lambda b: timed("POST", "/api/chat/", b), asks)
            )
    return rounds


def load_average() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def locust_run(
    port: int, env: dict[str, str], records: Path, *, users: int, seconds: float, steps: str = "", alone: str = ""
) -> dict[str, Any]:
    """Run the locustfile headless; load-average samples every 10 s while it runs."""
    records.unlink(missing_ok=True)
    locust_env = {
        **env,
        "LOAD_ACCOUNTS": str(DATA_DIR / "accounts.json"),
        "LOAD_RECORDS": str(records),
        "LOAD_QUERIES": str(QUERIES),
    }
    command = [str(BIN / "locust"), "-f", str(ROOT / "bench" / "locustfile.py"), "--headless", "--only-summary"]
    command += ["-H", f"http://127.0.0.1:{port}", "--stop-timeout", "60", "--loglevel", "WARNING"]
    if steps:
        locust_env |= {"LOAD_STEPS": steps, "LOAD_STEP_SECONDS": str(seconds)}
    elif alone:  # one user class by itself: the reference the same machine gives at the same time
        command += [alone, "-u", "1", "-r", "1", "-t", f"{int(seconds)}s"]
    else:
        command += ["-u", str(users + 2), "-r", "5", "-t", f"{int(seconds)}s"]
    log = (DATA_DIR / f"locust-{records.stem}.log").open("wb")
    started = time.time()
    process = subprocess.Popen(command, cwd=ROOT, env=locust_env, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    samples = [load_average()]
    try:
        while process.poll() is None:
            time.sleep(10)
            samples.append(load_average())
    except BaseException:
        process.terminate()
        process.wait(timeout=90)
        raise
    return {"seconds": round(time.time() - started, 1), "load_average_1min": [s[0] for s in samples]}


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))], 1)


def endpoint_table(rows: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    by_name: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_name[f"{row['method']} {row['name']}"].append(row)
    table = {}
    for name, group in sorted(by_name.items()):
        outcomes: dict[str, int] = defaultdict(int)
        for row in group:
            outcomes[row["outcome"]] += 1
        answered = [r for r in group if r["outcome"] == "ok"]
        entry: dict[str, Any] = {
            "requests": len(group),
            "per_second": round(len(group) / seconds, 2),
            **{k: outcomes[k] for k in ("ok", "busy", "late", "error")},
            "p50_ms": percentile([r["ms"] for r in answered], 50),
            "p95_ms": percentile([r["ms"] for r in answered], 95),
        }
        fulls = [r["full_ms"] for r in answered if r.get("full_ms") is not None]
        if fulls:
            entry |= {"to_last_event_p50_ms": percentile(fulls, 50), "to_last_event_p95_ms": percentile(fulls, 95)}
        busy = [r["ms"] for r in group if r["outcome"] == "busy"]
        if busy:
            entry["busy_p95_ms"] = percentile(busy, 95)
        table[name] = entry
    return table


def steady_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = max(r["t"] for r in rows) - min(r["t"] for r in rows)
    health = [r for r in rows if r["name"] == "/healthz"]
    start = min(r["t"] for r in health)
    windows: dict[int, list[float]] = defaultdict(list)
    for r in health:
        windows[int((r["t"] - start) // 30)].append(r["ms"])
    errors = [r for r in rows if r["outcome"] == "error"]
    error_kinds: dict[str, int] = defaultdict(int)
    for r in errors:
        error_kinds[f"{r['method']} {r['name']}: {str(r['detail'])[:160]}"] += 1
    busy = [r for r in rows if r["outcome"] == "busy"]
    quick = [r["ms"] for r in rows if r["outcome"] == "ok" and not r["name"].startswith(WAITS_FOR_ANSWER)]
    return {
        "seconds": round(seconds, 1),
        "requests": len(rows),
        "requests_per_second": round(len(rows) / seconds, 2),
        "errors": len(errors),
        "error_kinds": dict(error_kinds),
        "busy": len(busy),
        "busy_by_endpoint": _count(busy),
        "late": _count([r for r in rows if r["outcome"] == "late"]),
        "healthz": {
            "requests": len(health),
            "errors": sum(r["outcome"] == "error" for r in health),
            "p50_ms": percentile([r["ms"] for r in health], 50),
            "p95_ms": percentile([r["ms"] for r in health], 95),
            "max_ms": max(r["ms"] for r in health),
            "p95_ms_by_30s_window": [percentile(windows[k], 95) for k in sorted(windows)],
        },
        "quick_requests_p95_ms": percentile(quick, 95),
        "endpoints": endpoint_table(rows, seconds),
    }


def _count(rows: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for r in rows:
        counts[f"{r['method']} {r['name']}"] += 1
    return dict(counts)


def steps_summary(rows: list[dict[str, Any]], steps: list[int], step_seconds: float) -> dict[str, Any]:
    """Per step, from the moment its readers are all running to its end: requests/s, the p95 of the requests
    that do not wait for an answer, and of those that do; where the first passes 1 s (interpolated)."""
    start = min(r["t"] for r in rows)
    table = []
    for n, readers in enumerate(steps):
        lo, hi = start + n * step_seconds, start + (n + 1) * step_seconds
        group = [r for r in rows if lo <= r["t"] < hi and r["users"] == readers + 2]
        if not group:
            continue
        span = max(r["t"] for r in group) - min(r["t"] for r in group) or 1
        ok = [r for r in group if r["outcome"] == "ok"]
        quick = [r["ms"] for r in ok if not r["name"].startswith(WAITS_FOR_ANSWER)]
        waits = [r["ms"] for r in ok if r["name"] == "/api/chat/"]
        table.append(
            {
                "readers": readers,
                "requests_per_second": round(len(group) / span, 2),
                "quick_p50_ms": percentile(quick, 50),
                "quick_p95_ms": percentile(quick, 95),
                "chat_api_p95_ms": percentile(waits, 95),
                "healthz_p95_ms": percentile([r["ms"] for r in group if r["name"] == "/healthz"], 95),
                "errors": sum(r["outcome"] == "error" for r in group),
                "busy": sum(r["outcome"] == "busy" for r in group),
            }
        )
    crossing = None
    for before, after in itertools.pairwise(table):
        if (before["quick_p95_ms"] or 0) < 1000 <= (after["quick_p95_ms"] or 0):
            share = (1000 - before["quick_p95_ms"]) / (after["quick_p95_ms"] - before["quick_p95_ms"])
            rps = before["requests_per_second"] + share * (after["requests_per_second"] - before["requests_per_second"])
            crossing = round(rps, 1)
            break
    if table and (table[0]["quick_p95_ms"] or 0) >= 1000:
        crossing = table[0]["requests_per_second"]
    return {"step_seconds": step_seconds, "steps": table, "p95_passes_1s_at_requests_per_second": crossing}


def read_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--steps", default="10,30,60,90,120,150", help="readers per step ('' skips the step run)")
    parser.add_argument("--step-seconds", type=float, default=50)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--keep-data", action="store_true", help="reuse .data-load from an earlier run")
    parser.add_argument("--json", type=Path, default=RESULTS)
    parser.add_argument("--populate", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.populate is not None:  # the set-up, run by the parent in a Django process of its own
        (DATA_DIR / "accounts.json").write_text(json.dumps(populate(args.populate, args.corpus)))
        return
    if not args.keep_data:
        shutil.rmtree(DATA_DIR, ignore_errors=True)
    port = free_port()
    report: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_average_at_start": load_average()}}
    script = Script(default={"delay": ANSWER_DELAY_SECONDS, "content": ANSWER})
    with scripted_server(script):
        env = stack_environment(port, script.base_url)
        started = time.monotonic()
        stack = stack_start(env, port)
        left: list[str] = []
        try:
            report["stack_up_seconds"] = round(time.monotonic() - started, 1)
            # An account per reader at the largest step: two readers on one note would conflict (409) by design.
            people = max([args.readers] + [int(n) for n in args.steps.split(",") if n.strip()])
            subprocess.run(
                [sys.executable, __file__, "--populate", str(people), "--corpus", str(args.corpus)],
                cwd=ROOT,
                env=env,
                check=True,
            )
            report["queues_drained_after_seconds"] = queues_drain(env)
            report["cold_start"] = warm_up(port, json.loads((DATA_DIR / "accounts.json").read_text()))
            report["config"] = {
                "readers": args.readers,
                "seconds": args.seconds,
                "corpus": args.corpus.name,
                "answer_delay_seconds": ANSWER_DELAY_SECONDS,
                "web": "gunicorn, 2 workers x 8 threads (make run's defaults)",
                "answers_worker_concurrency": int(os.environ.get("DESIREPATH_ANSWER_CONCURRENCY", "2")),
                "chat_waits_per_user": int(os.environ.get("DESIREPATH_CHAT_WAITS_PER_USER", "4")),
            }
            alone_file = DATA_DIR / "healthz-alone.jsonl"
            report["healthz_alone_run"] = locust_run(port, env, alone_file, users=1, seconds=60, alone="HealthPoller")
            alone = [r["ms"] for r in read_records(alone_file)]
            report["healthz_alone"] = {
                "requests": len(alone),
                "p50_ms": percentile(alone, 50),
                "p95_ms": percentile(alone, 95),
                "max_ms": max(alone, default=None),
            }
            steady_file = DATA_DIR / "steady.jsonl"
            report["steady_run"] = locust_run(port, env, steady_file, users=args.readers, seconds=args.seconds)
            report["steady"] = steady_summary(read_records(steady_file))
            report["answers_asked_of_the_model"] = len(script.requests)
            if args.steps:
                steps = [int(n) for n in args.steps.split(",")]
                step_file = DATA_DIR / "steps.jsonl"
                report["step_run"] = locust_run(
                    port, env, step_file, users=0, seconds=args.step_seconds, steps=args.steps
                )
                report["steps"] = steps_summary(read_records(step_file), steps, args.step_seconds)
        finally:
            left = stack_stop(stack)
        report["left_running_after_stop"] = left
    report["machine"]["load_average_at_end"] = load_average()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "steady"}, indent=1))
    steady = report["steady"]
    print(f"\n{'endpoint':<48} {'n':>6} {'p50':>8} {'p95':>8} {'busy':>5} {'late':>5} {'err':>4}")
    for name, e in steady["endpoints"].items():
        print(
            f"{name:<48} {e['requests']:>6} {e['p50_ms']!s:>8} {e['p95_ms']!s:>8} {e['busy']:>5} {e['late']:>5} "
            f"{e['error']:>4}"
        )
    print(f"errors {steady['errors']}  busy {steady['busy']}  healthz p95 {steady['healthz']['p95_ms']} ms")


if __name__ == "__main__":
    main()
