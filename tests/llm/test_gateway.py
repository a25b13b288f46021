"""The model gateway: real litellm over real HTTP to a scripted server; retries, timeouts, failures, usage rows."""

from __future__ import annotations

import pytest

from apps.llm.gateway import ModelUnavailable, complete
from apps.llm.models import ModelUsage
from tests.factories import make_user

pytestmark = pytest.mark.django_db
MESSAGES = [{"role": "user", "content": "Rate this."}]


def test_a_call_is_answered_and_accounted_for(llm_server):
    user = make_user()
    llm_server.replies.append({"content": "4"})
    result = complete(slot="scoring", purpose="gate", messages=MESSAGES, user=user, vault_id=7)

    assert (result.text, result.tokens_in, result.tokens_out, result.local) == ("4", 42, 7, False)
    assert llm_server.requests[0]["body"]["messages"] == MESSAGES
    row = ModelUsage.objects.get()
    assert (row.slot, row.purpose, row.model, row.user, row.vault_id) == (
        "scoring",
        "gate",
        "openai/scripted-scorer",
        user,
        7,
    )
    assert (row.tokens_in, row.tokens_out, row.outcome, row.attempts) == (42, 7, "ok", 1)


def test_a_500_is_retried_with_backoff(llm_server):
    llm_server.replies += [{"status": 500}, {"content": "3"}]
    assert complete(slot="scoring", purpose="gate", messages=MESSAGES).text == "3"
    assert ModelUsage.objects.get().attempts == 2


def test_a_provider_that_stays_down_is_reported_and_recorded(llm_server):
    llm_server.replies += [{"status": 500}] * 3
    with pytest.raises(ModelUnavailable, match="scoring model"):
        complete(slot="scoring", purpose="gate", messages=MESSAGES)
    row = ModelUsage.objects.get()
    assert (row.outcome, row.attempts) == ("error", 3) and "InternalServerError" in row.error


def test_a_timeout_is_a_clear_error(llm_server, settings):
    settings.LLM_TIMEOUT_SECONDS = 0.3
    settings.LLM_RETRIES = 0
    llm_server.replies.append({"delay": 2, "content": "late"})
    with pytest.raises(ModelUnavailable):
        complete(slot="scoring", purpose="gate", messages=MESSAGES)
    assert ModelUsage.objects.get().outcome == "error"


def test_local_defaults_run_offline_and_are_recorded_at_no_cost():
    result = complete(slot="chat", purpose="answer", messages=MESSAGES, local=lambda messages: "extractive answer")
    assert (result.text, result.local) == ("extractive answer", True)
    row = ModelUsage.objects.get()
    assert row.model.startswith("local/") and row.cost_usd == 0 and row.outcome == "ok"
    with pytest.raises(ValueError, match="no model-free implementation"):
        complete(slot="chat", purpose="answer", messages=MESSAGES)


def test_usage_api_is_for_vault_managers_and_totals_per_slot(llm_server):
    from tests.factories import api, make_vault, share

    owner, reader = make_user(), make_user()
    vault = make_vault(owner)
    share(vault, "reader", user=reader)
    llm_server.replies += [{"content": "5"}, {"content": "2"}]
    for _ in range(2):
        complete(slot="scoring", purpose="gate", messages=MESSAGES, user=owner, vault_id=vault.pk)
    complete(slot="chat", purpose="answer", messages=MESSAGES, local=lambda m: "x", vault_id=vault.pk)

    body = api(owner).get("/api/usage/", {"vault": vault.pk}).json()
    totals = {row["slot"]: row for row in body["totals"]}
    assert totals["scoring"]["calls"] == 2 and totals["scoring"]["tokens_in"] == 84
    assert totals["chat"]["calls"] == 1 and len(body["rows"]) == 3
    assert api(reader).get("/api/usage/", {"vault": vault.pk}).status_code == 403
    assert api(make_user()).get("/api/usage/", {"vault": vault.pk}).status_code == 404


def test_a_vault_can_use_its_own_model_for_a_slot(llm_server):
    from apps.vaults.chat_settings import parse

    vault_settings = parse({"models": {"scoring": "openai/vault-scorer"}})
    complete(slot="scoring", purpose="gate", messages=MESSAGES, model=vault_settings.model_for("scoring"))
    assert llm_server.requests[0]["body"]["model"] == "vault-scorer"
    assert ModelUsage.objects.get().model == "openai/vault-scorer"
