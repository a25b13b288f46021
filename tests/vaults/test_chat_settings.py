"""Per-vault answering settings, and the strictest combination when a chat reads several vaults."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from apps.vaults.chat_settings import ChatSettings, parse, strictest


def test_defaults_follow_the_deployment(settings):
    settings.LLM_SLOTS = {**settings.LLM_SLOTS, "chat": "local/extractive"}
    defaults = parse({})
    assert (defaults.gate_threshold, defaults.fallback) == (3, "explicit")
    assert defaults.switches == {"discovery": True, "deep_research": True, "librarian": True}
    assert defaults.model_for("chat") == "local/extractive"
    assert parse({"models": {"chat": "ollama/llama3"}}).model_for("chat") == "ollama/llama3"


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"gate_threshold": 9}, "gate_threshold"),
        ({"fallback": "guess"}, "fallback"),
        ({"deep_research": "yes"}, "deep_research"),
        ({"models": {"judge": "x"}}, "models"),
        ({"weights": 0.9}, "settings"),  # nobody sets weights by hand
    ],
)
def test_bad_settings_are_refused_with_a_reason(raw, field):
    with pytest.raises(ValidationError) as caught:
        parse(raw)
    assert field in caught.value.message_dict


def test_the_strictest_settings_win_across_vaults():
    relaxed = parse({"gate_threshold": 2, "fallback": "explicit", "models": {"scoring": "openai/a"}})
    strict = parse(
        {"gate_threshold": 4, "fallback": "refuse", "deep_research": False, "models": {"scoring": "openai/b"}}
    )
    combined = strictest([relaxed, strict, ChatSettings()])
    assert combined.gate_threshold == 4
    assert combined.fallback == "refuse"
    assert combined.switches == {"discovery": True, "deep_research": False, "librarian": True}
    assert "scoring" not in combined.models  # the vaults disagree: the deployment's model is used
    same = strictest([parse({"models": {"chat": "openai/x"}}), parse({"models": {"chat": "openai/x"}})])
    assert same.model_for("chat") == "openai/x"


@pytest.mark.django_db
def test_managers_change_settings_through_the_api_with_validation_and_audit(vault, settings):
    from apps.audit.models import AuditEvent
    from tests.factories import api
    from tests.openapi import assert_matches_schema

    client = api(vault.owner)
    url = f"/api/vaults/{vault.pk}/settings/"
    assert client.get(url).json()["gate_threshold"] == 3
    body = {"gate_threshold": 4, "fallback": "refuse", "deep_research": False, "models": {"chat": "ollama/llama3"}}
    unset_up = client.put(url, body, format="json")  # a model the deployment has no server or key for
    assert unset_up.status_code == 400 and "not one of this deployment's models" in unset_up.json()["models"][0]
    settings.LLM_SLOTS = {**settings.LLM_SLOTS, "scoring": "ollama/llama3"}  # now configured (in another slot)
    changed = client.put(url, body, format="json")
    assert changed.status_code == 200
    assert_matches_schema(changed)
    assert changed.json()["models"] == {"chat": "ollama/llama3"}
    assert (changed.json()["fallback"], changed.json()["switches"]["deep_research"]) == ("refuse", False)
    refused = client.put(url, {"gate_threshold": 0, "strength": 0.95}, format="json")
    assert refused.status_code == 400 and {"gate_threshold", "settings"} <= set(refused.json())
    assert_matches_schema(refused)
    assert client.get(url).json()["gate_threshold"] == 4  # nothing stored from the refused request
    assert AuditEvent.objects.filter(vault_id=vault.pk, action="vault.settings").count() == 1
    settings.LLM_SLOTS = {**settings.LLM_SLOTS, "scoring": "local/model-free-scorer"}
    assert client.put(url, body, format="json").status_code == 200  # a vault keeps the model it has
    # what GET returns can be sent back as it is, its switches nested, changed or not
    read_back = client.get(url).json()
    assert client.put(url, read_back, format="json").json() == read_back
    read_back["switches"]["librarian"] = False
    assert client.put(url, read_back, format="json").json()["switches"]["librarian"] is False
    assert client.put(url, {"switches": {"weights": True}}, format="json").json()["switches"] == [
        "a mapping of discovery, deep_research, librarian to true or false"
    ]
