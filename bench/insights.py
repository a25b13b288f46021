"""Benchmark: the insights page and API at 10,000 notes, and the daily run that prepares them.

Synthetic vault in a throwaway database (`desirepath_bench`, dropped at the end): N notes of one embedded chunk each
(`tests/retrieval/synthetic.py`, clustered vectors), every seventh with an open task, and collision metadata for
every note (two of twelve bridging domains, a claim, a tension on every fifth). The daily run (`insights_daily`:
collision verdicts, ranking, narratives) runs once with the local defaults, timed. Then a reader (a real share)
loads the page and the API, after warm-up, and the model-usage rows are counted before and after: the page must
add none.
Usage: .venv/bin/python bench/insights.py [--notes 10000] [--requests 200] [--json bench/results/insights.json]
"""

# isort: skip_file
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.search import ROOT, drop_database, fresh_database, summary  # sets Django up

from django.db import connection
from django.test import Client

from apps.insights.models import Card, Collision
from apps.insights.tasks import insights_daily
from apps.llm.models import ModelUsage
from tests.factories import make_user, make_vault, share
from tests.retrieval.synthetic import populate

WARMUP = 20
DOMAINS = [
    "operations and reliability",
    "team process",
    "software architecture",
    "cooking and food",
    "law and compliance",
    "security and access control",
    "decision making",
    "finance and budgeting",
    "health and medicine",
    "education and learning",
    "travel and logistics",
    "design and user experience",
]
METADATA = """
INSERT INTO librarian_notemetadata (note_id, vault_id, core_claim, bridging_domains, tensions, model, content_hash,
                                    written_at)
SELECT n.id, n.vault_id, 'Note ' || n.id || ' claims that topic ' || (n.id %% 97) || ' matters for cluster work',
       ARRAY[(%(domains)s::text[])[1 + n.id %% 12], (%(domains)s::text[])[1 + (n.id / 12) %% 12]],
       CASE WHEN n.id %% 5 = 0 THEN ARRAY['topic ' || ((n.id + 1) %% 97) || ' matters less than cluster speed']
            ELSE ARRAY[]::text[] END,
       'bench', n.content_hash, now()
FROM notes_note n WHERE n.vault_id = %(vault)s
"""


def timed_gets(client: Client, url: str, requests: int) -> list[float]:
    for _ in range(WARMUP):
        assert client.get(url).status_code == 200
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--json", default=str(ROOT / "bench" / "results" / "insights.json"))
    args = parser.parse_args()
    fresh_database()
    try:
        owner, reader = make_user("bench-owner"), make_user("bench-reader")
        vault = make_vault(owner, "Bench vault")
        share(vault, "reader", user=reader)
        populate([vault], args.notes, 384)
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE notes_note SET body = body || E'\\n- [ ] follow up on ' || id"
                " WHERE vault_id = %s AND id %% 7 = 0",
                [vault.pk],
            )
            cursor.execute(METADATA, {"domains": DOMAINS, "vault": vault.pk})
        started = time.perf_counter()
        insights_daily(vault.pk)
        daily_s = time.perf_counter() - started
        calls_before = ModelUsage.objects.count()
        browser = Client(HTTP_HOST="localhost")  # a host the dev settings allow
        browser.force_login(reader)
        page = summary(timed_gets(browser, f"/vaults/{vault.pk}/insights/", args.requests))
        api = summary(timed_gets(browser, f"/api/insights/?vault={vault.pk}", args.requests))
        report = {
            "notes": args.notes,
            "requests": args.requests,
            "daily_run_s": round(daily_s, 2),
            "collisions_judged": Collision.objects.filter(vault=vault).count(),
            "cards_ready": Card.objects.filter(vault=vault).exclude(narrative="").count(),
            "page_ms": page,
            "api_ms": api,
            "model_calls_during_page_loads": ModelUsage.objects.count() - calls_before,
        }
        print(json.dumps(report, indent=2))
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=2))
    finally:
        drop_database()


if __name__ == "__main__":
    main()
