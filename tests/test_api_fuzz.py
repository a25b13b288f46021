"""Schemathesis sends every API operation inputs generated from the OpenAPI schema, as every kind of caller: the
server never answers 5xx, and every 4xx says why."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

from tests.factories import make_note, make_user, make_vault, share
from tests.openapi import api_schema

schema = schemathesis.openapi.from_dict(api_schema())
application = get_wsgi_application()
calls: dict[str, int] = {}
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@pytest.fixture(scope="module", autouse=True)
def _count_calls() -> Iterator[None]:
    """What was sent, per operation and caller, kept beside the other artifacts of the run."""
    yield
    ARTIFACTS.mkdir(exist_ok=True)
    summary = {"calls": sum(calls.values()), "operations": len({label.rsplit(" as ", 1)[0] for label in calls})}
    (ARTIFACTS / "api-fuzz.json").write_text(json.dumps({**summary, "per_operation": calls}, indent=1))


@pytest.fixture
def in_process(db: None) -> Iterator[None]:
    """Requests served by the WSGI application in this process, inside the test's transaction: as Django's test
    client does, the end of a request must not close the test's database connection."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def callers(in_process: None) -> dict[str, dict[str, str]]:
    """Headers of each kind of caller: nobody, a vault's owner, and a reader of it (a stranger's refusals are
    the anonymous caller's and the reader's, which the isolation suite checks by id)."""
    from apps.accounts.tokens import token_create

    owner, reader = make_user("fuzz-owner"), make_user("fuzz-reader")
    vault = make_vault(owner, "Fuzzed")
    share(vault, "reader", user=reader)
    make_note(vault, "Fuzzed note.md", "# Fuzzed note\n\nA sentence to find. [[Elsewhere]]\n", embed=False)

    def bearer(user: Any) -> dict[str, str]:
        key = token_create(user=user, name="fuzz").key
        return {"Authorization": f"Bearer {key}"}

    return {
        "anonymous": {},
        "owner": bearer(owner),
        "reader": bearer(reader),
    }


def _reason(response: Any) -> bool:
    try:
        body = response.json()
    except ValueError:
        return False
    if isinstance(body, dict):
        return any(body.values())
    return bool(body)


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_input_makes_the_api_fail_and_every_refusal_says_why(case, callers, llm_server):
    for caller, headers in callers.items():
        response = case.call(app=application, headers=headers)
        label = f"{case.operation.label} as {caller}"  # the coverage phase also tries methods it does not have
        calls[label] = calls.get(label, 0) + 1
        assert response.status_code < 500, (label, case.as_curl_command(headers=headers), response.text[:500])
        if 400 <= response.status_code < 500 and response.status_code != 405:
            assert _reason(response), (label, case.as_curl_command(headers=headers), response.status_code)
