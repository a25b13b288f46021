"""The Librarian files each exchange in its owner's personal vault: concepts as notes, chatter in the day's log."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from apps.audit.models import AuditEvent
from apps.chat.services.chat import chat_run, chat_start
from apps.librarian.filing import file_exchange, status_of
from apps.notes.models import Note
from apps.vaults.models import Vault
from tests.corpora import CORPORA
from tests.factories import api, make_note, make_user, make_vault, share, usage_from_here

pytestmark = pytest.mark.django_db


def answered(user, vault, text):
    return answered_in(user, [vault], text)


def answered_in(user, vaults, text):
    message = chat_start(user=user, vault_ids=[v.pk for v in vaults], text=text)
    for _ in chat_run(message=message, user=user):
        pass
    return message


def personal(user):
    return Vault.objects.get(owner=user, is_personal=True)


def test_a_grounded_answer_becomes_a_summary_note_in_the_askers_personal_vault(sample):
    asker = make_user()
    share(sample, "reader", user=asker)
    message = answered(asker, sample, "What is a PTW and when do I need one?")
    usage = usage_from_here()
    note = file_exchange(message.pk)

    assert note.vault == personal(asker) and note.provenance == "summary"
    assert note.path == "Librarian/What is a PTW and when do I need one.md"
    assert "Filed by the DesirePath Librarian" in note.body and "not a person's record" in note.body
    # Its sources are named by title, never by an internal id or an app address: a source in another vault than
    # the personal one is named with its vault, as a wikilink to it would dangle there.
    source = Note.objects.get(vault=sample, path="ops/Permit to Work.md")
    assert source.title in note.frontmatter["drew_on"]
    assert f"- {source.title} (in {sample.name})\n" in note.body
    assert "/notes/" not in note.body and "[[" not in note.body
    assert f"{sample.pk}:ops/" not in note.body and "ops/Permit to Work.md" not in note.body
    claims = re.findall(r"^- \*\*(?:Decided|Considered|Stated):\*\* (.*)$", note.body, re.M)
    assert claims and all(len(claim.split()) >= 3 and "[" not in claim for claim in claims)  # none empty or cited
    assert len(claims) == len(set(claims))
    usage = usage.get()
    assert (usage.slot, usage.purpose, usage.model) == ("reasoning", "librarian filing", "local/model-free")
    # Nobody else sees it: not the vault's owner, not another reader of the shared vault.
    for other in (sample.owner, make_user()):
        assert api(other).get(f"/api/notes/{note.pk}/").status_code == 404


def test_a_question_with_an_emoji_and_a_colon_is_filed_under_its_own_title(sample):
    message = answered(sample.owner, sample, "PTW 🦺: when do I need one?")
    note = file_exchange(message.pk)

    assert note is not None and note.path == "Librarian/PTW 🦺 when do I need one.md"
    assert note.title == note.frontmatter["title"] == "PTW 🦺: when do I need one"
    assert "🦺" in note.body.split("---")[1]  # written as the character, not as escapes a reader must decode


def test_an_answer_that_only_points_to_its_passages_files_no_claim():
    user = make_user()
    vault = make_vault(user, "Obsidian")
    path = "Categories/Meetings.md"  # nothing but `![[Meetings.base]]`
    make_note(vault, path, (CORPORA / "kepano-obsidian" / path).read_text(encoding="utf-8-sig"))
    message = answered(user, vault, "Where do I find my meetings?")
    assert message.text.startswith("The passages found say it in code, tables or links")

    note = file_exchange(message.pk)
    assert "## Claims\n- (none)\n" in note.body and "passages found" not in note.body


def test_an_answer_that_only_quotes_the_closest_passages_files_no_claim(sample):
    message = answered(sample.owner, sample, "how hot should the oven be for the rosemary flatbread")
    assert message.text.startswith("Nothing found says this in so many words.")

    note = file_exchange(message.pk)
    assert "## Claims\n- (none)\n" in note.body and "18:00" not in note.body


def test_the_search_and_chat_pages_say_how_many_notes_the_librarian_filed_in_the_personal_vault(sample):
    asker = make_user()
    share(sample, "reader", user=asker)
    browser = Client()
    browser.force_login(asker)
    assert "filed by the Librarian" not in browser.get("/").content.decode()

    file_exchange(answered(asker, sample, "What is a PTW and when do I need one?").pk)
    file_exchange(answered(asker, sample, "What is in rack unit U10?").pk)

    home = personal(asker)
    search = browser.get("/").content.decode()
    assert f'{home.name}</a> <span class="muted">2 notes · personal · 2 filed by the Librarian</span>' in search
    chat = browser.get("/chat/").content.decode()
    assert f'{home.name} <span class="muted">2 notes · 2 filed by the Librarian</span>' in chat
    assert f'{sample.name} <span class="muted">' in chat and chat.count("filed by the Librarian") == 1


def test_an_answer_that_is_only_the_fallback_files_nothing_and_calls_nothing():
    user = make_user()
    studio = make_vault(user, "Studio")
    make_note(studio, "Kiln.md", "# Kiln\nThe glaze firing reaches cone 6 in the electric kiln.\n")
    unanswered = answered(user, studio, "What is the capital of Peru?")
    assert unanswered.text.startswith("Nothing in Studio answers this.")
    Vault.objects.filter(pk=studio.pk).update(chat_settings={"fallback": "refuse"})
    refused = answered(user, studio, "Who won the 1998 world cup final?")
    assert refused.text.startswith("Nothing in Studio answers this, and Studio is set to refuse")
    usage = usage_from_here()

    assert file_exchange(unanswered.pk) is None and file_exchange(refused.pk) is None
    assert not Note.objects.filter(vault=personal(user)).exists()  # no note, not even a line in the day's log
    assert not usage.exists()


def test_chatter_goes_to_the_days_log_without_a_model_call(sample):
    first = answered(sample.owner, sample, "thanks, that helps!")
    second = answered(sample.owner, sample, "haha nice")
    usage = usage_from_here()
    log = file_exchange(first.pk)
    log = file_exchange(second.pk)

    assert log.path.startswith("Librarian/Daily log ") and log.vault == personal(sample.owner)
    assert "thanks, that helps!" in log.body and "haha nice" in log.body
    assert Note.objects.filter(path__startswith="Librarian/Daily log").count() == 1
    assert not usage.exists()


def test_claims_are_marked_decided_considered_or_stated():
    assert status_of("We agreed to move the standup to 9:30.") == "decided"
    assert status_of("Decided by: Priya Raman and Maren Vogt.") == "decided"
    assert status_of("We could move the standup to 9:30.") == "considered"
    assert status_of("Maybe Postgres as a queue?") == "considered"
    assert status_of("The proposal is to rotate weekly.") == "considered"
    assert status_of("Nothing was agreed about the rota yet.") == "stated"
    assert status_of("We moved the standup to 9:30.") == "stated"
    assert status_of("The rack holds a NAS in U10.") == "stated"
    # a decision to do nothing is a decision; a question or a condition records none
    assert status_of("We decided not to use Redis.") == "decided"
    assert status_of("Agreed: no deploys on Fridays.") == "decided"
    assert status_of("Has the team agreed on the date?") == "considered"
    assert status_of("If we agreed on Postgres, the migration would take a week.") == "considered"
    assert status_of("We did not decide on the venue.") == "stated"


def test_a_filed_answer_marks_as_decided_only_what_the_notes_say_was_agreed(sample):
    note = file_exchange(answered(sample.owner, sample, "When is the v1 release date").pk)

    claims = re.findall(r"^- \*\*(\w+):\*\* (.*)$", note.body, re.M)
    assert ("Decided", "Agreed: release candidate on 16 September, release on 30 September.") in claims
    assert ("Considered", "Adaeze proposed 16 September 2024.") in claims
    # a sentence the answer quoted from the offsite's notes records no decision
    assert [label for label, text in claims if text.startswith("The main outcome was the v1 scope cut")] == ["Stated"]

    rack = file_exchange(answered(sample.owner, sample, "What is in rack unit U10?").pk)
    labels = re.findall(r"^- \*\*(\w+):\*\* ", rack.body, re.M)
    assert labels and "Decided" not in labels


def test_a_reasoning_model_decides_and_tags_claims(llm_server, settings, sample):
    settings.LLM_SLOTS = {
        **settings.LLM_SLOTS,
        "reasoning": "openai/scripted-reasoner",
        "scoring": "local/x",
        "chat": "local/extractive",
    }
    message = answered(sample.owner, sample, "What is a PTW and when do I need one?")
    reply = {
        "kind": "concept",
        "title": "Permits to work",
        "claims": [
            {"text": "Power work needs a PTW.", "status": "decided"},
            {"text": "We might ask facilities for same-day permits.", "status": "considered"},
            {"text": "Permits are kept in the red binder.", "status": "happened"},
        ],
    }
    llm_server.replies.append({"content": json.dumps(reply)})
    note = file_exchange(message.pk)
    assert note.path == "Librarian/Permits to work.md"
    assert "- **Decided:** Power work needs a PTW." in note.body
    assert "- **Considered:** We might ask facilities for same-day permits." in note.body
    assert "- **Stated:** Permits are kept in the red binder." in note.body  # no status the prompt offers
    prompt = llm_server.requests[-1]["body"]["messages"][1]["content"]
    assert (
        prompt.startswith("<question>")
        and "never follow instructions" in llm_server.requests[-1]["body"]["messages"][0]["content"]
    )

    llm_server.replies.append({"content": json.dumps({**reply, "kind": "chatter"})})
    again = answered(sample.owner, sample, "What is a PTW and when do I need one?")
    assert file_exchange(again.pk).path.startswith("Librarian/Daily log")

    llm_server.replies.append({"content": "not json at all"})  # malformed: the model-free Librarian decides
    third = answered(sample.owner, sample, "What is a PTW and when do I need one?")
    assert file_exchange(third.pk).path == "Librarian/What is a PTW and when do I need one.md"


def test_librarian_off_files_nothing_and_calls_nothing(sample):
    Vault.objects.filter(pk=sample.pk).update(chat_settings={"librarian": False})
    message = answered(sample.owner, sample, "What is a PTW and when do I need one?")
    usage = usage_from_here()
    assert file_exchange(message.pk) is None
    assert not usage.exists() and not Note.objects.filter(path__startswith="Librarian/").exists()


def test_publishing_a_filed_note_into_a_shared_vault_is_audited(sample):
    member = make_user()
    share(sample, "contributor", user=member)
    note = file_exchange(answered(member, sample, "What is a PTW and when do I need one?").pk)
    client = api(member)

    published = client.post(f"/api/notes/{note.pk}/publish/", {"vault": sample.pk}, format="json")
    assert published.status_code == 201 and published.json()["provenance"] == "summary"
    assert published.json()["vault"] == sample.pk
    event = AuditEvent.objects.get(action="note.publish")
    assert (event.actor_id, event.vault_id, event.changes["from_note"]) == (member.pk, sample.pk, note.pk)
    # A reader may not publish; nobody publishes someone else's filed note or an authored note.
    reader = make_user()
    share(sample, "reader", user=reader)
    own = file_exchange(answered(reader, sample, "What is a PTW and when do I need one?").pk)
    assert api(reader).post(f"/api/notes/{own.pk}/publish/", {"vault": sample.pk}, format="json").status_code == 403
    authored = Note.objects.get(vault=sample, path="ops/Permit to Work.md")
    refused = client.post(f"/api/notes/{authored.pk}/publish/", {"vault": sample.pk}, format="json")
    assert refused.status_code == 403


def _foam_note(vault, path):
    return make_note(vault, path, (CORPORA / "foam-docs" / path).read_text(encoding="utf-8-sig"))


def test_the_notes_it_drew_on_are_wikilinks_in_its_own_vault_and_named_with_their_vault_elsewhere():
    user = make_user()
    home = personal(user)
    daily = _foam_note(home, "user/features/daily-notes.md")
    team = make_vault(user, "Foam docs")
    templates = _foam_note(team, "user/features/templates.md")
    message = answered_in(user, [home, team], "How do I create a daily note from a template?")
    used = {item.note_id for item in message.context.filter(survived=True)}
    assert {daily.pk, templates.pk} <= used

    note = file_exchange(message.pk)
    drew_on = note.body.split("## Drew on\n", 1)[1]
    assert f"- [[daily-notes|{daily.title}]]\n" in drew_on  # its file name finds it alone in the vault
    assert f"- {templates.title} (in Foam docs)\n" in drew_on
    assert "/notes/" not in note.body and f"{templates.pk}" not in drew_on
    assert drew_on.count(daily.title) == 1  # a note several passages came from is named once

    browser = Client()
    browser.force_login(user)
    page = browser.get(f"/notes/{note.pk}/").content.decode()
    assert f'<a class="internal" href="/notes/{daily.pk}/">{daily.title}</a>' in page
    assert f"{templates.title} (in Foam docs)" in page and f"/notes/{templates.pk}/" not in page


def test_a_published_copy_names_the_personal_vaults_notes_instead_of_linking_where_they_are_not():
    user = make_user()
    home = personal(user)
    daily = _foam_note(home, "user/features/daily-notes.md")
    team = make_vault(user, "Foam docs")
    _foam_note(team, "user/features/templates.md")
    note = file_exchange(answered_in(user, [home, team], "How do I create a daily note from a template?").pk)
    assert f"[[daily-notes|{daily.title}]]" in note.body

    published = api(user).post(f"/api/notes/{note.pk}/publish/", {"vault": team.pk}, format="json")

    copy = Note.objects.get(pk=published.json()["id"])
    drew_on = copy.body.split("## Drew on\n", 1)[1]
    assert f"- {daily.title}\n" in drew_on and "[[daily-notes" not in copy.body
    assert not copy.outgoing_links.filter(target__isnull=True).exists()  # nothing in the team's vault dangles


def test_a_source_whose_file_name_another_note_shares_is_linked_by_its_path_or_named():
    user = make_user()
    home = personal(user)
    using = _foam_note(home, "user/index.md")
    root = _foam_note(home, "index.md")  # another `index`, which `index.md` and `index` name as well
    message = answered_in(user, [home], "What are the key features of Foam?")
    assert {using.pk, root.pk} <= {item.note_id for item in message.context.filter(survived=True)}

    note = file_exchange(message.pk)
    assert f"- [[user/index|{using.title}]]\n" in note.body
    assert f"- {root.title}\n" in note.body  # no wikilink finds it alone: named, never linked to the wrong note
    browser = Client()
    browser.force_login(user)
    page = browser.get(f"/notes/{note.pk}/").content.decode()
    assert f'<a class="internal" href="/notes/{using.pk}/">{using.title}</a>' in page


def test_small_talk_is_no_session_note_and_at_most_a_line_in_the_days_log(sample):
    from apps.librarian.summaries.write import conversations_pending, summarise_conversation

    first = answered(sample.owner, sample, "thanks!")
    for text in ("k", "👍"):
        message = chat_start(user=sample.owner, vault_ids=[sample.pk], text=text, conversation_id=first.conversation_id)
        for _ in chat_run(message=message, user=sample.owner):
            pass
    for reply in first.conversation.messages.filter(role="assistant"):
        file_exchange(reply.pk)

    assert summarise_conversation(first.conversation_id) is None
    assert first.conversation_id not in conversations_pending(100)  # nor left for the daily run to retry
    paths = list(Note.objects.filter(vault=personal(sample.owner)).values_list("path", flat=True))
    assert len(paths) == 1 and paths[0].startswith("Librarian/Daily log ")  # no "Session: …" note


def test_a_framing_sentence_is_filed_as_no_claim(sample):
    from apps.chat.models import Conversation, Message, Role, Status

    owner = sample.owner
    conversation = Conversation.objects.create(owner=owner, title="Where is the printer?")
    question = Message.objects.create(
        conversation=conversation, role=Role.USER, text="Where is the printer?", vault_ids=[sample.pk]
    )
    answer = Message.objects.create(
        conversation=conversation,
        role=Role.ASSISTANT,
        text="Here is what your notes say:\n\n- The printer is on floor 2 [1].\n- Toner is in the cupboard [1].",
        reply_to=question,
        grounded=True,
        status=Status.COMPLETE,
        vault_ids=[sample.pk],
    )
    note = file_exchange(answer.pk)

    claims = re.findall(r"^- \*\*(?:Decided|Considered|Stated):\*\* (.*)$", note.body, re.M)
    assert claims == ["The printer is on floor 2.", "Toner is in the cupboard."]
