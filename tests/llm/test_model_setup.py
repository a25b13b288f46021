"""Models in minutes: each slot calls its own server with its own key, the Models page shows and tests every slot
(the test runs in a worker and lands on the usage ledger), and a failing slot puts a banner on every page."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from django.test import Client

from apps.llm.embeddings import embed_texts
from apps.llm.gateway import ModelUnavailable, complete
from apps.llm.models import ModelUsage
from apps.llm.services import TEST_PURPOSE
from apps.llm.tasks import try_model
from tests.factories import make_user
from tests.scripted_openai import Script, scripted_server

pytestmark = pytest.mark.django_db
ASK = [{"role": "user", "content": "Say something."}]
NO_CONNECTION = {"provider": None, "api_base": None, "api_key_env": None}


@pytest.fixture
def two_servers(settings, monkeypatch) -> Iterator[tuple[Script, Script]]:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # every key below comes from the slot's own variable
    monkeypatch.setenv("CHAT_PROVIDER_KEY", "sk-alpha")
    monkeypatch.setenv("SCORING_PROVIDER_KEY", "sk-beta")
    with scripted_server(Script()) as first, scripted_server(Script()) as second:
        settings.LLM_API_BASE = None
        settings.LLM_BACKOFF_SECONDS = 0.01
        settings.LLM_SLOTS = {"chat": "openai/writer", "reasoning": "plain-reasoner", "scoring": "openai/scorer"}
        settings.LLM_SLOT_CONNECTIONS = {
            "chat": {"provider": None, "api_base": first.base_url, "api_key_env": "CHAT_PROVIDER_KEY"},
            "reasoning": {"provider": "openai", "api_base": first.base_url, "api_key_env": "CHAT_PROVIDER_KEY"},
            "scoring": {"provider": None, "api_base": second.base_url, "api_key_env": "SCORING_PROVIDER_KEY"},
            "embedding": dict(NO_CONNECTION),
        }
        yield first, second


def _seen(script: Script) -> list[tuple[str, str]]:
    return [(r["body"]["model"], r["authorization"]) for r in script.requests]


def test_each_slot_calls_its_own_server_with_its_own_key(two_servers):
    first, second = two_servers
    complete(slot="chat", purpose="answer", messages=ASK)
    complete(slot="scoring", purpose="gate", messages=ASK)
    complete(slot="reasoning", purpose="summary", messages=ASK)  # provider given apart from the model's name

    assert _seen(first) == [("writer", "Bearer sk-alpha"), ("plain-reasoner", "Bearer sk-alpha")]
    assert _seen(second) == [("scorer", "Bearer sk-beta")]


def test_a_vaults_own_model_travels_with_the_server_and_key_it_is_configured_with(two_servers):
    first, second = two_servers
    complete(slot="scoring", purpose="gate", messages=ASK, model="openai/writer")  # the chat slot's model

    assert _seen(first) == [("writer", "Bearer sk-alpha")]
    assert second.requests == []
    assert ModelUsage.objects.get().slot == "scoring"  # charged to the work it did


def test_a_model_no_slot_is_configured_with_never_gets_a_slots_key(two_servers, settings, monkeypatch):
    first, _ = two_servers
    settings.LLM_API_BASE = first.base_url  # the deployment-wide server, and the provider's usual key variable
    monkeypatch.setenv("OPENAI_API_KEY", "sk-usual")
    complete(slot="chat", purpose="answer", messages=ASK, model="openai/stray")  # stored before the models changed

    assert _seen(first) == [("stray", "Bearer sk-usual")]


def test_a_key_variable_that_is_not_set_fails_clearly_without_calling(two_servers, settings):
    first, _ = two_servers
    settings.LLM_SLOT_CONNECTIONS["chat"]["api_key_env"] = "NOBODY_SET_THIS_KEY"

    with pytest.raises(ModelUnavailable, match="NOBODY_SET_THIS_KEY"):
        complete(slot="chat", purpose="answer", messages=ASK)
    assert first.requests == []
    row = ModelUsage.objects.get()
    assert (row.outcome, "NOBODY_SET_THIS_KEY" in row.error) == ("error", True)


def test_the_embedding_slot_has_its_own_server_and_key(settings, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("EMBEDDING_PROVIDER_KEY", "sk-gamma")
    with scripted_server(Script(embed=lambda text: [1.0] + [0.0] * 383)) as server:
        settings.EMBEDDING_MODEL = "openai/house-embedder"
        settings.EMBEDDING_API_BASE = None
        settings.LLM_SLOT_CONNECTIONS = {
            **{slot: dict(NO_CONNECTION) for slot in ("chat", "reasoning", "scoring")},
            "embedding": {"provider": None, "api_base": server.base_url, "api_key_env": "EMBEDDING_PROVIDER_KEY"},
        }
        assert len(embed_texts(["alpha"], model="openai/house-embedder")[0]) == 384
        assert _seen(server) == [("house-embedder", "Bearer sk-gamma")]


def test_a_providers_embedding_calls_land_on_the_ledger_and_a_failing_one_shows_the_banner(settings, monkeypatch):
    monkeypatch.setenv("EMBEDDING_PROVIDER_KEY", "sk-gamma")
    size = [384]
    with scripted_server(Script(embed=lambda text: [1.0] + [0.0] * (size[0] - 1))) as server:
        settings.EMBEDDING_MODEL = "openai/house-embedder"
        settings.EMBEDDING_API_BASE = None
        settings.LLM_SLOT_CONNECTIONS = {
            **{slot: dict(NO_CONNECTION) for slot in ("chat", "reasoning", "scoring")},
            "embedding": {"provider": None, "api_base": server.base_url, "api_key_env": "EMBEDDING_PROVIDER_KEY"},
        }
        member = _browser(make_user())
        embed_texts(["alpha", "beta"])
        row = ModelUsage.objects.get()
        assert (row.slot, row.purpose, row.model, row.outcome, row.tokens_in) == (
            "embedding",
            "embedding",
            "openai/house-embedder",
            "ok",
            3,
        )

        size[0] = 12  # the provider now sends vectors search cannot compare
        with pytest.raises(ValueError, match="another size"):
            embed_texts(["gamma"])
        failed = ModelUsage.objects.latest("pk")
        assert (failed.outcome, "another size" in failed.error) == ("error", True)
        banner = "The embedding model (<code>openai/house-embedder</code>) is not answering"
        assert banner in member.get("/").content.decode()

        size[0] = 384
        try_model("embedding")  # the Test button: the provider answers again
        test = ModelUsage.objects.get(purpose=TEST_PURPOSE)
        assert (test.slot, test.outcome) == ("embedding", "ok")
        assert "is not answering" not in member.get("/").content.decode()


def _browser(user) -> Client:  # type: ignore[no-untyped-def]
    browser = Client()
    browser.force_login(user)
    return browser


def test_the_models_page_is_for_staff_and_never_shows_a_key(two_servers):
    staff, member = make_user(staff=True), make_user()

    assert _browser(member).get("/models/").status_code == 403
    page = _browser(staff).get("/models/").content.decode()
    for shown in ("openai/writer", "openai/scorer", "plain-reasoner", "CHAT_PROVIDER_KEY", "SCORING_PROVIDER_KEY"):
        assert shown in page
    assert "local/all-MiniLM-L6-v2" in page  # the embedding slot, local: no server or key needed
    embedding = page[page.index('id="slot-embedding"') :].split("</tr>")[0]
    assert "its calls are not on the ledger" in embedding and "no call yet" not in embedding  # searches ran, unrecorded
    assert "sk-alpha" not in page and "sk-beta" not in page
    assert page.count(">set</span>") == 3  # chat, reasoning and scoring keys are set
    assert _browser(staff).post("/models/", {"slot": "nonsense"}).status_code == 400


def test_a_failing_slot_shows_a_banner_on_every_page_until_it_answers_again(two_servers):
    first, _ = two_servers
    member = _browser(make_user())
    first.replies.extend([{"status": 500}] * 3)
    try_model("chat")  # what the Test button runs in the worker: the provider answers 500 three times

    page = member.get("/").content.decode()
    assert "The chat model (<code>openai/writer</code>) is not answering" in page
    assert "Models page" not in page  # the link is for staff
    row = ModelUsage.objects.get(purpose=TEST_PURPOSE)
    assert (row.slot, row.outcome, row.attempts) == ("chat", "error", 3)

    # the answer that followed came from the notes (a local call): the chat model is still not answering
    complete(slot="chat", purpose="answer", messages=ASK, local=lambda _: "From your notes.", model="local/extractive")
    assert "The chat model (<code>openai/writer</code>) is not answering" in member.get("/").content.decode()

    try_model("chat")  # the provider is back
    assert "is not answering" not in member.get("/").content.decode()
    assert ModelUsage.objects.filter(purpose=TEST_PURPOSE, outcome="ok").count() == 1


def test_a_vaults_own_model_failing_puts_no_banner_on_everyones_pages(two_servers, settings):
    first, _ = two_servers
    settings.LLM_SLOTS = {**settings.LLM_SLOTS, "reasoning": "openai/team-planner"}
    first.replies.extend([{"status": 500}] * 3)
    with pytest.raises(ModelUnavailable):  # a vault's choice: the reasoning slot's model, used for scoring
        complete(slot="scoring", purpose="gate", messages=ASK, model="openai/team-planner")

    assert "is not answering" not in _browser(make_user()).get("/").content.decode()


@pytest.mark.django_db(transaction=True)  # the worker's usage row is committed: flushed after the test
def test_the_test_button_runs_one_call_in_the_worker_with_its_configuration(
    monkeypatch, settings, worker_models, another_worker
):
    monkeypatch.setenv("DESIREPATH_LLM_CHAT", "openai/worker-writer")
    monkeypatch.setenv("DESIREPATH_LLM_CHAT_API_KEY_ENV", "WORKER_CHAT_KEY")
    monkeypatch.setenv("WORKER_CHAT_KEY", "sk-delta")
    # started with the environment above (the configuration under test is the worker's), and only the answers'
    # worker: an import holding the general worker never holds a test up
    another_worker(queues=[settings.CHAT_ANSWER_QUEUE])
    staff = _browser(make_user("tester", staff=True))
    before = len(worker_models.requests)

    assert staff.post("/models/", {"slot": "chat"}).status_code == 302
    page = staff.get("/models/").content.decode()
    deadline = time.time() + 60
    while "Works</strong>" not in page and time.time() < deadline:
        assert "data-refresh-seconds" in page  # the page follows the test until the worker has recorded it
        time.sleep(0.5)
        page = staff.get("/models/").content.decode()

    assert "Works</strong>" in page and "data-refresh-seconds" not in page
    row = ModelUsage.objects.get(purpose=TEST_PURPOSE)
    assert (row.slot, row.model, row.outcome, row.user.username) == ("chat", "openai/worker-writer", "ok", "tester")
    assert [r["authorization"] for r in worker_models.requests[before:]] == ["Bearer sk-delta"]


def test_a_call_made_seconds_ago_reads_just_now_on_the_models_page(two_servers):
    first, _ = two_servers
    first.replies.append({"content": "Hello."})
    complete(slot="chat", purpose="answer", messages=ASK)

    chat = _browser(make_user(staff=True)).get("/models/").content.decode()
    chat = chat[chat.index('id="slot-chat"') :].split("</tr>")[0]
    assert re.search(r"answered</span>\s+just now \(answer,", chat)
    assert "0\xa0minutes" not in chat and "0 minutes" not in chat
