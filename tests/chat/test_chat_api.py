"""Chat over the API with the local defaults (model-free gate and extractive answerer) on the sample vault."""

from __future__ import annotations

import re

import pytest

from apps.chat.models import ContextItem, Message
from apps.chat.services.chat import WITHHELD
from apps.feedback.models import Feedback
from apps.llm.models import ModelUsage
from apps.vaults.models import Vault
from apps.vaults.services import vault_unshare
from tests.factories import api, make_note, make_user, make_vault, share
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db


def ask(user, message, vaults, conversation=None, status=200):
    body = {"vaults": vaults, "message": message}
    if conversation:
        body["conversation"] = conversation
    response = api(user).post("/api/chat/", body, format="json")
    assert response.status_code == status, response.content
    assert_matches_schema(response)
    return response.json()


def test_a_question_gets_a_grounded_cited_answer(sample):
    reply = ask(sample.owner, "What is a PTW and when do I need one?", [sample.pk])

    assert reply["grounded"] is True and reply["fallback"] is None
    assert reply["context"][0]["path"] == "ops/Permit to Work.md"
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", reply["answer"])}
    assert cited and cited <= {item["citation"] for item in reply["context"]}
    assert "PTW" in reply["answer"]
    assert reply["gate"]["passed_by"] == "score"  # what passed reached the threshold, and the page says so
    for item in reply["context"]:
        assert item["score"] >= 3 and item["survived"]
        assert item["sources"][0] == {
            "note": item["note"],
            "chunk": item["sources"][0]["chunk"],
            "vault": sample.pk,
            "path": item["path"],
        }
        assert item["provenance"] == "authored" and item["speculative"] is False
    # Every candidate the gate rated is kept with its score; most of the 30 did not survive.
    assert len(reply["candidates"]) > len(reply["context"])
    assert any(c["score"] < 3 and not c["survived"] for c in reply["candidates"])
    # The local scorer and the extractive answerer are model slots like any other: a usage row each, cost 0.
    for slot, purpose in (("scoring", "relevance gate"), ("chat", "answer"), ("scoring", "research judge")):
        usage = ModelUsage.objects.get(slot=slot, purpose=purpose)
        assert usage.purpose == purpose and usage.model.startswith("local/")
        assert usage.vault_id == sample.pk and usage.cost_usd == 0 and usage.outcome == "ok"


def test_a_follow_up_is_read_against_the_question_before_it(sample):
    first = ask(sample.owner, "How do I bake the focaccia?", [sample.pk])
    follow = ask(sample.owner, "and how long does it rest?", [sample.pk], conversation=first["conversation"])

    assert follow["conversation"] == first["conversation"]
    assert follow["resolved_query"] == "How do I bake the focaccia? and how long does it rest?"
    assert follow["context"][0]["path"] == "kitchen/focaccia.md"
    # The answer says what is asked now (the dough's rest), not the baking times the first question asked for.
    assert follow["answer"].startswith("**20 minutes** [1]"), follow["answer"]
    # The same follow-up in another conversation is read against that one: its words alone do not decide.
    other = ask(sample.owner, "What went wrong in the Redis outage?", [sample.pk])
    elsewhere = ask(sample.owner, "and how long does it rest?", [sample.pk], conversation=other["conversation"])
    assert elsewhere["resolved_query"] == "What went wrong in the Redis outage? and how long does it rest?"
    assert elsewhere["context"][0]["path"] == "ops/Redis Outage Postmortem.md"
    assert "kitchen/focaccia.md" not in [item["path"] for item in elsewhere["context"]]


def test_a_thing_that_is_always_of_something_asked_for_alone_is_of_what_was_asked_before(sample):
    # Both postmortems have a cause: which one "the root cause" means is what the conversation was about.
    for subject, path, said in (
        ("What went wrong in the Redis outage?", "ops/Redis Outage Postmortem.md", "broker URL"),
        ("What happened with the TLS misconfiguration?", "ops/TLS Misconfiguration Postmortem.md", "INC-2057"),
    ):
        first = ask(sample.owner, subject, [sample.pk])
        follow = ask(sample.owner, "What was the root cause?", [sample.pk], conversation=first["conversation"])
        assert follow["resolved_query"] == f"{subject} What was the root cause?"
        assert follow["context"][0]["path"] == path
        assert said in follow["answer"]
    # A follow-up asking its own question carries what the earlier one was about, not the root cause it asked for.
    cause = ask(sample.owner, "What was the root cause of the Redis outage?", [sample.pk])
    wrote = ask(sample.owner, "and who wrote it up?", [sample.pk], conversation=cause["conversation"])
    assert wrote["resolved_query"] == "What was the Redis outage? and who wrote it up?"
    assert wrote["answer"].startswith("**Tobias Kell** ["), wrote["answer"]
    # Said what of, it stands alone; asked first, it is searched as it is.
    alone = ask(sample.owner, "What was the root cause of the Redis outage?", [sample.pk], first["conversation"])
    assert alone["resolved_query"] == "What was the root cause of the Redis outage?"
    assert alone["context"][0]["path"] == "ops/Redis Outage Postmortem.md"
    assert ask(sample.owner, "What was the root cause?", [sample.pk])["resolved_query"] == "What was the root cause?"


def test_casual_messages_inject_nothing(sample):
    reply = ask(sample.owner, "thanks, that helps!", [sample.pk])
    assert (reply["context"], reply["candidates"], reply["grounded"], reply["fallback"]) == ([], [], False, "casual")
    assert not ContextItem.objects.exists() and not ModelUsage.objects.exists()
    # with no chat model, a reply that answers the courtesy and says what the chat is for, nothing about the notes
    assert reply["answer"] == (
        "You're welcome. Ask me anything about what is written in Sample vault, and I'll answer from it with sources."
    )
    assert ask(sample.owner, "hi", [sample.pk])["answer"].startswith("Hello! Ask me anything")


def test_a_message_about_the_chat_itself_injects_nothing_until_there_is_an_answer_to_rework(sample):
    first = ask(sample.owner, "can you put that in bullet points?", [sample.pk])
    assert (first["context"], first["candidates"], first["fallback"]) == ([], [], "casual")
    assert first["answer"].startswith("There is no earlier answer in this conversation to rework.")
    about = ask(sample.owner, "are you a bot?", [sample.pk])
    assert (about["context"], about["fallback"]) == ([], "casual")
    assert about["answer"].startswith("I'm the assistant of this knowledge base: I answer from what is written in")
    assert not ContextItem.objects.exists()

    # After an answer, with the local answerer (which can only quote): a rework or a courtesy that points back is
    # not searched again, and a follow-up after them reads against the question
    answered = ask(sample.owner, "How do I bake the focaccia?", [sample.pk])
    chat = answered["conversation"]
    rework = ask(sample.owner, "can you put that in bullet points?", [sample.pk], conversation=chat)
    assert (rework["context"], rework["fallback"]) == ([], "casual")
    assert rework["answer"].startswith("Reworking an answer needs a chat model")
    thanks = ask(sample.owner, "thanks, that helped", [sample.pk], conversation=chat)
    assert (thanks["context"], thanks["fallback"]) == ([], "casual")
    assert thanks["answer"].startswith("You're welcome.")
    follow = ask(sample.owner, "and how long does it rest?", [sample.pk], conversation=chat)
    assert follow["resolved_query"] == "How do I bake the focaccia? and how long does it rest?"


def test_a_chat_model_reworks_the_previous_answer_from_its_question(sample, llm_server):
    Vault.objects.filter(pk=sample.pk).update(
        chat_settings={"models": {"scoring": "local/model-free-scorer"}, "deep_research": False, "librarian": False}
    )
    llm_server.replies[:] = [{"content": "Bake it hot [1]."}, {"content": "- Bake it hot [1]"}, {"content": "1 h [1]."}]
    answered = ask(sample.owner, "How do I bake the focaccia?", [sample.pk])
    chat = answered["conversation"]
    rework = ask(sample.owner, "can you put that in bullet points?", [sample.pk], conversation=chat)
    assert rework["resolved_query"] == "How do I bake the focaccia? can you put that in bullet points?"
    assert rework["context"][0]["path"] == "kitchen/focaccia.md" and rework["answer"] == "- Bake it hot [1]"
    assert "bullet points" in llm_server.requests[1]["body"]["messages"][-1]["content"]
    follow = ask(sample.owner, "and how long does it rest?", [sample.pk], conversation=chat)
    assert follow["resolved_query"] == "How do I bake the focaccia? and how long does it rest?"


def test_the_vault_had_nothing_and_says_so(sample):
    reply = ask(sample.owner, "What is the capital of Mongolia?", [sample.pk])
    assert (reply["grounded"], reply["fallback"], reply["context"]) == (False, "explicit", [])
    assert reply["answer"].startswith("Nothing in Sample vault answers this.")


@pytest.mark.parametrize(
    ("fallback", "answer"),
    [
        ("refuse", "Nothing in Sample vault answers this, and Sample vault is set to refuse rather than guess."),
        ("silent", ""),
    ],
)
def test_refuse_and_silent_fallbacks(sample, fallback, answer):
    Vault.objects.filter(pk=sample.pk).update(chat_settings={"fallback": fallback})
    reply = ask(sample.owner, "What is the capital of Mongolia?", [sample.pk])
    assert (reply["grounded"], reply["fallback"], reply["answer"]) == (False, fallback, answer)


def test_a_chat_over_two_vaults_uses_the_strictest_threshold(sample):
    other = make_vault(sample.owner, "Strict vault")
    make_note(other, "Permits.md", "# Permits\nA PTW is signed by the facilities lead.\n")
    Vault.objects.filter(pk=other.pk).update(chat_settings={"gate_threshold": 5})
    reply = ask(sample.owner, "Who signs a PTW?", [sample.pk, other.pk])
    assert reply["gate"]["threshold"] == 5
    gated = [item for item in reply["context"] if not item["speculative"]]  # an explorer's unit is rated apart
    assert gated and all(item["score"] == 5 for item in gated)
    lenient = ask(sample.owner, "Who signs a PTW?", [sample.pk])
    assert lenient["gate"]["threshold"] == 3 and len(lenient["context"]) > len(reply["context"])


def test_proposals_are_labelled_in_the_answer(owner, vault):
    note = make_note(vault, "Proposal.md", "# Rota proposal\nThe on-call rota should rotate weekly on Mondays.\n")
    type(note).objects.filter(pk=note.pk).update(provenance="proposal")
    reply = ask(owner, "How should the on-call rota rotate?", [vault.pk])
    assert reply["context"][0]["provenance"] == "proposal"
    assert "(proposal) The on-call rota should rotate weekly on Mondays." in reply["answer"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"message": "   "}, "message"),
        ({"message": "x" * 1501}, "message"),
        ({"message": "a\x00b"}, "message"),
        ({}, "message"),
        ({"message": "hi", "vaults": ["one"]}, "vaults"),
    ],
)
def test_bad_messages_are_refused_with_a_reason_and_nothing_is_stored(sample, body, field):
    response = api(sample.owner).post("/api/chat/", {"vaults": [sample.pk], **body}, format="json")
    assert response.status_code == 400 and field in response.json()
    assert not Message.objects.exists()


def test_other_peoples_vaults_and_conversations_are_not_found(sample):
    stranger = make_user()
    response = api(stranger).post("/api/chat/", {"vaults": [sample.pk], "message": "What is a PTW?"}, format="json")
    assert response.status_code == 404
    mine = ask(sample.owner, "What is a PTW?", [sample.pk])
    own_vault = Vault.objects.get(owner=stranger, is_personal=True)
    body = {"vaults": [own_vault.pk], "message": "What is a PTW?", "conversation": mine["conversation"]}
    assert api(stranger).post("/api/chat/", body, format="json").status_code == 404
    assert api(stranger).get(f"/api/conversations/{mine['conversation']}/").status_code == 404
    assert api(stranger).get("/api/conversations/").json() == []


def test_conversation_history_hides_context_from_a_vault_no_longer_readable(sample):
    reader = make_user()
    share(sample, "reader", user=reader)
    reply = ask(reader, "What is a PTW?", [sample.pk])
    history = api(reader).get(f"/api/conversations/{reply['conversation']}/")
    assert_matches_schema(history)
    turns = history.json()["turns"]
    assert turns[0]["question"] == "What is a PTW?" and turns[0]["context"]
    listed = api(reader).get("/api/conversations/")
    assert_matches_schema(listed)
    assert [c["id"] for c in listed.json()] == [reply["conversation"]]
    from apps.vaults.services import vault_unshare

    vault_unshare(actor=sample.owner, vault=sample, user=reader)
    turns = api(reader).get(f"/api/conversations/{reply['conversation']}/").json()["turns"]
    assert turns[0]["context"] == [] and turns[0]["candidates"] == []
    assert turns[0]["answer"] == WITHHELD and turns[0]["question"] == "What is a PTW?"


def test_feedback_is_one_choice_per_user_and_item(sample):
    reply = ask(sample.owner, "What is a PTW?", [sample.pk])
    item = reply["context"][0]["id"]
    client = api(sample.owner)
    first = client.post("/api/feedback/", {"context_item": item, "signal": "confirm"}, format="json")
    again = client.post("/api/feedback/", {"context_item": item, "signal": "confirm"}, format="json")
    other = client.post("/api/feedback/", {"context_item": item, "signal": "used"}, format="json")
    assert (first.status_code, again.status_code, other.status_code) == (201, 200, 201)
    assert_matches_schema(first)
    assert_matches_schema(again)
    assert again.json()["created"] is False
    assert other.json()["replaced"] == first.json()["id"]  # the latest choice replaces the earlier
    assert list(Feedback.objects.filter(withdrawn_at__isnull=True).values_list("signal", flat=True)) == ["used"]

    missing = client.post("/api/feedback/", {"context_item": item, "signal": "correct"}, format="json")
    assert missing.status_code == 400 and "text" in missing.json()
    fixed = {"context_item": item, "signal": "correct", "text": "Facilities issue PTWs, not IT."}
    corrected = client.post("/api/feedback/", fixed, format="json")
    assert corrected.status_code == 201 and corrected.json()["correction"]["status"]
    assert_matches_schema(corrected)
    assert Feedback.objects.get(signal="correct").text == "Facilities issue PTWs, not IT."
    assert list(Feedback.objects.filter(withdrawn_at__isnull=True).values_list("signal", flat=True)) == ["correct"]
    bad = client.post("/api/feedback/", {"context_item": item, "signal": "love"}, format="json")
    assert bad.status_code == 400

    # A reader of the vault who does not own the conversation cannot rate its items.
    reader = make_user()
    share(sample, "reader", user=reader)
    body = {"context_item": item, "signal": "reject"}
    assert api(reader).post("/api/feedback/", body, format="json").status_code == 404
    assert Feedback.objects.count() == 3


def test_a_why_question_is_researched_and_reports_its_run(sample):
    reply = ask(sample.owner, "Why did the Redis outage happen and what changed after it?", [sample.pk])
    research = reply["research"]
    assert research["ran"] is True and "why" in research["reason"] and not research["cancelled"]
    # The model-free planner splits the clauses; the question's own words reshuffled would be its own search again.
    assert research["sub_questions"] == ["Why did the Redis outage happen", "what changed after it"]
    assert research["dispatches"] == 2
    assert research["paths"] == ["Why did the Redis outage happen?", "What changed after it?"]
    assert "ops/Redis Outage Postmortem.md" in [item["path"] for item in reply["context"]]
    plain = ask(sample.owner, "What is a PTW?", [sample.pk])["research"]
    assert plain["ran"] is False and plain["sub_questions"] == []


def test_deep_research_off_means_no_judge_call(sample):
    Vault.objects.filter(pk=sample.pk).update(chat_settings={"deep_research": False})
    reply = ask(sample.owner, "Why did the Redis outage happen and what changed after it?", [sample.pk])
    assert reply["research"]["ran"] is False and "switched off" in reply["research"]["reason"]
    assert not ModelUsage.objects.filter(purpose__startswith="research").exists()


def test_skip_cancels_the_research_and_the_answer_comes_from_an_ordinary_search(sample):
    from apps.chat.services.chat import chat_run, chat_start

    message = chat_start(user=sample.owner, vault_ids=[sample.pk], text="Why did the Redis outage happen?")
    skipped = api(sample.owner).post(f"/api/conversations/{message.conversation_id}/cancel/")
    assert skipped.status_code == 202 and skipped.json() == {"cancelled": 1}
    assert_matches_schema(skipped)
    events = list(chat_run(message=message, user=sample.owner))
    steps = [e.data["step"] for e in events if e.kind == "research"]
    assert steps == ["judged", "planned"]  # judged, planned, then Skip before the first dispatch
    final = events[-1].data
    assert final["research"]["cancelled"] is True and final["research"]["dispatches"] == 0
    assert final["grounded"] and any("skipped" in n for n in final["notices"])
    stranger = api(make_user()).post(f"/api/conversations/{message.conversation_id}/cancel/")
    assert stranger.status_code == 404


def test_with_no_worker_to_answer_the_question_is_kept_and_the_api_says_so(settings, sample):
    settings.CHAT_ANSWERS_IN_WORKER = True  # production's path, but no worker runs for this test
    settings.CHAT_UNCLAIMED_SECONDS = 1.0
    reply = ask(sample.owner, "What is a PTW?", [sample.pk], status=503)

    assert reply["detail"].startswith("No worker has picked this answer up yet")
    assert reply["status"] == "pending" and reply["answer"] == ""
    question = Message.objects.get(pk=reply["message"]).reply_to
    assert question is not None and question.text == "What is a PTW?"


def test_a_question_queued_behind_answers_being_written_is_waiting_its_turn_not_lost(settings, sample):
    from apps.chat.services.relay import answer_writing

    settings.CHAT_ANSWERS_IN_WORKER = True
    settings.CHAT_UNCLAIMED_SECONDS = 1.0
    settings.CHAT_WAIT_SECONDS = 3.0
    with answer_writing():  # what a worker busy with another answer says the whole time
        reply = ask(sample.owner, "What is a PTW?", [sample.pk], status=202)

    assert reply["detail"].startswith("Waiting its turn")
    assert reply["status"] == "pending" and reply["answer"] == ""


def test_a_follow_up_naming_no_vault_stays_in_the_vaults_its_conversation_asked(sample):
    user = sample.owner
    garden = make_vault(user, "Garden")
    make_note(garden, "Focaccia rival.md", "# Focaccia\nThe garden club bakes focaccia with rosemary from the beds.")
    first = ask(user, "How do I bake the focaccia?", [sample.pk])
    conversation = first["conversation"]

    follow = ask(user, "and the focaccia again?", [], conversation=conversation)
    assert Message.objects.get(pk=follow["message"]).vault_ids == [sample.pk]
    assert {item["vault"] for item in follow["candidates"]} == {sample.pk}  # the garden note was never searched

    # Reopened, the conversation says which vaults it asks, and the page ticks them.
    detail = api(user).get(f"/api/conversations/{conversation}/")
    assert_matches_schema(detail)
    assert detail.json()["vaults"] == [sample.pk]
    browser = api(user)
    browser.force_login(user)
    page = browser.get(f"/chat/?c={conversation}").content.decode()
    assert re.search(rf'value="{sample.pk}" checked', page) and not re.search(rf'value="{garden.pk}" checked', page)

    # Naming other vaults changes what the conversation asks from then on.
    switched = ask(user, "focaccia in the garden?", [garden.pk], conversation=conversation)
    assert {item["vault"] for item in switched["candidates"]} == {garden.pk}
    after = ask(user, "and with rosemary?", [], conversation=conversation)
    assert Message.objects.get(pk=after["message"]).vault_ids == [garden.pk]


def test_a_follow_up_whose_vaults_were_all_revoked_is_refused_with_the_reason(sample):
    owner, reader = sample.owner, make_user("leaving-reader")
    shared = make_vault(owner, "Shared kitchen")
    make_note(shared, "Bread.md", "# Bread\nBread rests for an hour before baking.")
    share(shared, "reader", user=reader)
    first = ask(reader, "How long does bread rest?", [shared.pk])

    vault_unshare(actor=owner, vault=shared, user=reader)
    refused = api(reader).post(
        "/api/chat/",
        {"vaults": [], "message": "and before that?", "conversation": first["conversation"]},
        format="json",
    )
    assert refused.status_code == 400
    assert "none of the vaults this conversation searched is readable to you now" in str(refused.json())
    assert Message.objects.filter(conversation_id=first["conversation"]).count() == 2  # nothing new stored


def test_a_reopened_conversation_shows_which_feedback_its_asker_gave(sample):
    reply = ask(sample.owner, "What is a PTW and when do I need one?", [sample.pk])
    rated, other = reply["context"][0], reply["candidates"][-1]
    assert rated["signals"] == [] and other["signals"] == []
    voted = api(sample.owner).post("/api/feedback/", {"context_item": rated["id"], "signal": "confirm"}, format="json")
    assert voted.status_code in (200, 201), voted.content

    detail = api(sample.owner).get(f"/api/conversations/{reply['conversation']}/")
    assert_matches_schema(detail)
    [turn] = detail.json()["turns"]
    signals = {item["id"]: item["signals"] for item in turn["candidates"]}
    assert signals[rated["id"]] == ["confirm"] and signals[other["id"]] == []


def test_passages_let_through_in_the_search_s_order_are_not_shown_as_passing_the_threshold():
    from apps.chat.services.chat import _passed_by

    passed = ContextItem(score=4, survived=True, provenance="authored")
    let_through = ContextItem(score=2, survived=True, provenance="authored")
    cut = ContextItem(score=1, survived=False, provenance="authored")
    assert _passed_by([passed, cut], 3) == "score"
    assert _passed_by([passed, let_through, cut], 3) == "search order"
