"""The Librarian's filed notes record conversations: an ordinary question is answered from what people wrote, and
a filed note comes back only when the question is about past conversations."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.chat.services.chat import chat_run, chat_start
from apps.librarian.filing import file_exchange
from apps.librarian.summaries.write import summarise_conversation
from apps.notes.services.chunks import chunks_embed_pending
from apps.vaults.models import Vault
from tests.corpora import CORPORA
from tests.factories import api, import_folder, make_note, make_user, make_vault

pytestmark = pytest.mark.django_db


def asked(user, vaults, text):
    message = chat_start(user=user, vault_ids=[v.pk for v in vaults], text=text)
    for _ in chat_run(message=message, user=user):
        pass
    message.refresh_from_db()
    return message


def test_a_filed_note_is_no_candidate_for_an_ordinary_question_but_is_for_one_about_past_conversations():
    user = make_user()
    studio = make_vault(user, "Studio")
    make_note(studio, "Kiln.md", "# Kiln\nThe glaze firing reaches cone 6 in the electric kiln.\n")
    personal = Vault.objects.get(owner=user, is_personal=True)
    filed = file_exchange(asked(user, [studio], "What cone does the glaze firing reach?").pk)
    assert filed is not None and filed.vault == personal and filed.provenance == "summary"
    chunks_embed_pending(vault_id=personal.pk)  # the worker's follow-up: the filed note is searchable like any

    ordinary = asked(user, [studio, personal], "Which cone does the glaze firing reach in the kiln?")
    candidates = list(ordinary.context.all())
    assert any(item.path == "Kiln.md" and item.survived for item in candidates)  # the search worked
    assert not [item.path for item in candidates if item.vault_id == personal.pk]
    assert "filed from a conversation" not in ordinary.text

    past = asked(user, [studio, personal], "What did we discuss about the glaze firing last time?")
    assert filed.path in [item.path for item in past.context.all()]


def test_asking_again_across_all_vaults_answers_from_the_notes_and_not_from_the_filed_copy():
    user = make_user()
    studio = make_vault(user, "Studio")
    make_note(studio, "Kiln.md", "# Kiln\nThe glaze firing reaches cone 6 in the electric kiln.\n")
    personal = Vault.objects.get(owner=user, is_personal=True)
    question = "What cone does the glaze firing reach?"
    first = asked(user, [studio], question)
    filed = file_exchange(first.pk)
    session = summarise_conversation(first.conversation_id)
    assert filed is not None and session is not None
    chunks_embed_pending(vault_id=personal.pk)

    again = asked(user, [], question)  # no vault ticked: every vault the asker reads, the personal one too
    candidates = list(again.context.all())
    assert any(item.path == "Kiln.md" and item.survived for item in candidates)
    assert filed.path not in [item.path for item in candidates]
    assert not [item.path for item in candidates if item.vault_id == personal.pk]


def test_the_search_page_leaves_filed_notes_out_unless_the_personal_vault_is_ticked_or_the_query_asks():
    user = make_user()
    studio = make_vault(user, "Studio")
    make_note(studio, "Kiln.md", "# Kiln\nThe glaze firing reaches cone 6 in the electric kiln.\n")
    personal = Vault.objects.get(owner=user, is_personal=True)
    filed = file_exchange(asked(user, [studio], "What cone does the glaze firing reach?").pk)
    chunks_embed_pending(vault_id=personal.pk)
    browser = Client()
    browser.force_login(user)

    def shown(**query):
        page = browser.get("/", query).content.decode()
        hits = re.findall(r'<li class="hit">(.*?)</li>', page, re.S)
        return page, hits, [re.search(r"· ([^<·]+?\.md)", hit).group(1) for hit in hits]

    page, _, paths = shown(q="What cone does the glaze firing reach?")  # no vault ticked: every vault
    assert paths == ["Kiln.md"]
    assert "notes the Librarian filed from your conversations are left out" in page

    page, hits, paths = shown(q="What cone does the glaze firing reach?", vault=[studio.pk, personal.pk])
    assert paths[:2] == ["Kiln.md", filed.path]  # still found when asked for, after what people wrote
    assert "filed by the Librarian" in hits[1] and "filed by the Librarian" not in hits[0]
    assert "are left out" not in page

    _, _, paths = shown(q="What did we discuss about the glaze firing?")
    assert filed.path in paths


def test_a_search_that_leaves_filed_notes_out_still_returns_k_notes_people_wrote():
    from apps.retrieval.search import hybrid_search
    from apps.vaults.scope import scope_for

    user = make_user()
    studio = make_vault(user, "Studio")
    make_note(studio, "Kiln.md", "# Kiln\nThe glaze firing reaches cone 6 in the electric kiln.\n")
    make_note(studio, "Clay.md", "# Clay\nStoneware clay is wedged before it is thrown.\n")
    personal = Vault.objects.get(owner=user, is_personal=True)
    question = "What cone does the glaze firing reach?"
    for _ in range(3):
        file_exchange(asked(user, [studio], question).pk)
    chunks_embed_pending(vault_id=personal.pk)
    everything = scope_for(user, [])

    nearest = hybrid_search(scope=everything, query=question, k=3).hits
    assert {hit.vault for hit in nearest} == {personal.pk}  # the filed copies come nearest to their own question
    people = hybrid_search(scope=everything, query=question, k=2, include_filed=False).hits
    assert [hit.path for hit in people] == ["Kiln.md", "Clay.md"]


def test_the_answer_picker_lists_the_passage_a_filed_note_quotes_before_the_filed_note():
    user = make_user()
    foam = make_vault(user, "Foam docs")
    import_folder(foam, CORPORA / "foam-docs" / "user" / "features")
    question = "How do I create a daily note from a template?"
    filed = file_exchange(asked(user, [foam], question).pk)
    chunks_embed_pending(vault_id=filed.vault_id)

    def picker(query):  # what the chat's "Point to the answer" dialog asks for as the asker types
        return api(user).get("/api/search/", {"q": query, "k": 8}).json()["results"]

    hits = picker(question)
    paths = [hit["path"] for hit in hits]
    assert filed.path in paths  # the filed exchange is found: it quotes the docs word for word
    assert paths.index("daily-notes.md") < paths.index(filed.path)
    assert [hit["filed"] for hit in hits] == [False] * (len(hits) - 1) + [True]
    assert picker("what did we discuss about daily note templates")[0]["path"] == filed.path


def test_the_explorer_offers_no_filed_copy_of_the_question_as_its_speculative_unit():
    """On the sample vault, the exchange filed from a question and its session summary are the nearest passages in
    meaning to the same question asked again; the explorer's unit, shown beside the answer, is from the notes."""
    from apps.graph.services import graph_extract_pending
    from tests.factories import SAMPLE_VAULT

    user = make_user()
    sample = make_vault(user, "Sample")
    import_folder(sample, SAMPLE_VAULT)
    personal = Vault.objects.get(owner=user, is_personal=True)
    question = "Who signs off on work in the electrical room?"
    first = asked(user, [sample], question)
    assert file_exchange(first.pk) is not None and summarise_conversation(first.conversation_id) is not None
    chunks_embed_pending(vault_id=personal.pk)
    graph_extract_pending(vault_id=personal.pk)

    again = asked(user, [], question)
    shown = list(again.context.all())
    assert any(item.path == "People.md" and item.survived for item in shown)
    assert [item.path for item in shown if item.vault_id == personal.pk] == []
