"""MCP `search` beside the REST search endpoint: the same queries, in the same run, against the same live server.

The stack `make run` starts (bench/load.py's: embedded PostgreSQL and Redis, gunicorn with its default workers and
threads, the Celery workers) on its own data directory and port, with the sample vault the bootstrap imports. The
admin's API token asks each query of samples/queries.jsonl through both doors, one after the other, the order
rotating by round, through three doors:

- `rest`: `GET /api/search/?q=…&k=10`;
- `mcp`: the same search as a `tools/call` of `search`, one JSON-RPC POST to /mcp/ from the same kind of client:
  the endpoint's own cost beside REST's;
- `mcp_sdk`: the same tool call from the `mcp` SDK's `Client` over Streamable HTTP (one session, as an agent keeps
  one): what an agent using the SDK waits, its client's own work (validation, dispatch) included.

All three use async httpx2 clients. Two warm-up rounds are not counted (the first search loads the embedding model
in each web process).

Usage: .venv/bin/python bench/mcp_search.py [--rounds 20] [--json bench/results/mcp-search.json] [--keep-data]
"""

# isort: skip_file
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import DATA_DIR, free_port, load_average, percentile, queues_drain, stack_environment  # noqa: E402
from bench.load import stack_start, stack_stop  # noqa: E402
from tests.scripted_openai import Script, scripted_server  # noqa: E402

QUERIES = ROOT / "samples" / "queries.jsonl"
RESULTS = ROOT / "bench" / "results" / "mcp-search.json"
WARM_UP_ROUNDS = 2


def populate() -> dict[str, Any]:
    """A token of the admin, who owns the sample vault (run in a Django process of its own)."""
    import django

    django.setup()
    from django.contrib.auth.models import User

    from apps.core import row_security

    row_security.process_default_set(row_security.system("the benchmark reads its vault's size"))

    from apps.accounts.tokens import token_create
    from apps.vaults.models import Vault

    admin = User.objects.get(username="admin")
    vault = Vault.objects.get(owner=admin, name="Sample vault")
    return {"token": token_create(user=admin, name="mcp bench").key, "vault": vault.pk, "notes": vault.notes.count()}


async def measure(port: int, token: str, queries: list[str], rounds: int) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {token}"}
    timings: dict[str, list[float]] = {"rest": [], "mcp": [], "mcp_sdk": []}
    differing: set[str] = set()
    versions: set[str] = set()

    async def note_version(request: httpx2.Request) -> None:
        versions.add(request.headers.get("mcp-protocol-version", "none"))

    rpc_headers = {**headers, "Accept": "application/json, text/event-stream"}
    async with (
        httpx2.AsyncClient(base_url=base, headers=headers, timeout=60) as rest,
        httpx2.AsyncClient(base_url=base, headers=rpc_headers, timeout=60) as rpc,
        httpx2.AsyncClient(headers=headers, timeout=60, event_hooks={"request": [note_version]}) as mcp_http,
        Client(streamable_http_client(f"{base}/mcp/", http_client=mcp_http)) as mcp,
    ):

        async def by_rest(query: str) -> list[str]:
            response = await rest.get("/api/search/", params={"q": query, "k": 10})
            response.raise_for_status()
            return [hit["path"] for hit in response.json()["results"]]

        async def by_mcp(query: str) -> list[str]:
            call = {"name": "search", "arguments": {"query": query, "k": 10}}
            response = await rpc.post("/mcp/", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
            response.raise_for_status()
            result = response.json()["result"]
            assert not result.get("isError"), result
            return [hit["path"] for hit in result["structuredContent"]["results"]]

        async def by_mcp_sdk(query: str) -> list[str]:
            result = await mcp.call_tool("search", {"query": query, "k": 10})
            assert not result.is_error, result.content
            return [hit["path"] for hit in result.structured_content["results"]]

        doors = {"rest": by_rest, "mcp": by_mcp, "mcp_sdk": by_mcp_sdk}
        names = list(doors)
        for round_number in range(WARM_UP_ROUNDS + rounds):
            order = names[round_number % 3 :] + names[: round_number % 3]
            for query in queries:
                paths = {}
                for door in order:
                    started = time.perf_counter()
                    paths[door] = await doors[door](query)
                    if round_number >= WARM_UP_ROUNDS:
                        timings[door].append((time.perf_counter() - started) * 1000)
                if not paths["rest"] == paths["mcp"] == paths["mcp_sdk"]:
                    differing.add(query)
    report: dict[str, Any] = {}
    for door, values in timings.items():
        report[door] = {
            "requests": len(values),
            "p50_ms": percentile(values, 50),
            "p95_ms": percentile(values, 95),
            "mean_ms": round(sum(values) / len(values), 1),
        }
    for door in ("mcp", "mcp_sdk"):
        report[f"{door}_to_rest_p95"] = round(report[door]["p95_ms"] / report["rest"]["p95_ms"], 3)
        report[f"{door}_to_rest_p50"] = round(report[door]["p50_ms"] / report["rest"]["p50_ms"], 3)
    report["queries_with_different_hits"] = sorted(differing)
    report["sdk_client_protocol_versions"] = sorted(versions)
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20, help="times each query is asked through each door")
    parser.add_argument("--json", type=Path, default=RESULTS)
    parser.add_argument("--keep-data", action="store_true", help="reuse .data-load from an earlier run")
    parser.add_argument("--populate", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.populate:  # the set-up, run by the parent in a Django process of its own
        (DATA_DIR / "mcp-bench.json").write_text(json.dumps(populate()))
        return
    if not args.keep_data:
        shutil.rmtree(DATA_DIR, ignore_errors=True)
    queries = [json.loads(line)["q"] for line in QUERIES.read_text().splitlines() if line.strip()]
    port = free_port()
    report: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_average_at_start": load_average()}}
    with scripted_server(Script()) as script:
        env = stack_environment(port, script.base_url)
        stack = stack_start(env, port)
        try:
            subprocess.run([sys.executable, __file__, "--populate"], cwd=ROOT, env=env, check=True)
            setup = json.loads((DATA_DIR / "mcp-bench.json").read_text())
            report["queues_drained_after_seconds"] = queues_drain(env)
            report["config"] = {
                "queries": len(queries),
                "rounds": args.rounds,
                "warm_up_rounds": WARM_UP_ROUNDS,
                "k": 10,
                "vault_notes": setup["notes"],
                "web": "gunicorn, 2 workers x 8 threads (make run's defaults)",
            }
            report |= anyio.run(measure, port, setup["token"], queries, args.rounds)
            report["machine"]["load_average_at_end"] = load_average()
        finally:
            report["left_running"] = stack_stop(stack)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
