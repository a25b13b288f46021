"""The whole isolation suite a second time, with the application's own scope filters switched off: every
vault-scoped statement then asks for every vault a read was asked for, whoever may read it (every vault when none
was asked for), and the database's row-level security alone must keep each requester to the vaults they read. Tests
that call a read function directly hold it to the wall as a request is held (`tests.factories.reading_as`). The
worker the chat tests start runs with its filters on: it is another process. The randomized sweep generates another
seed's world than the first run's: the two runs together try two worlds."""

from __future__ import annotations

import pytest

from tests import test_isolation
from tests.test_isolation import (  # noqa: F401 - collected again under the fixture below
    test_a_confirm_in_a_vault_the_asker_cannot_read_never_changes_the_asker_s_candidates,
    test_a_confirm_opens_doors_only_to_the_turns_beside_it_in_its_own_vault,
    test_a_conversation_is_deleted_by_its_owner_only,
    test_a_prewarmed_context_is_read_by_its_asker_only_and_only_while_they_read_its_vaults,
    test_an_entity_in_two_vaults_never_carries_the_unreadable_vault_s_facts_into_the_walk,
    test_candidates_are_never_read_from_outside_the_scope,
    test_chat_and_feedback_only_ever_use_readable_vaults,
    test_conversation_structure_is_read_only_from_the_requester_s_vaults,
    test_explorers_only_ever_scout_readable_vaults,
    test_export_and_coverage_of_a_vault_one_may_not_read_answer_as_a_missing_vault,
    test_filed_notes_and_daily_logs_stay_with_their_owner,
    test_insight_cards_are_read_and_answered_only_by_their_vaults_readers,
    test_search_for_a_marker_finds_it_only_for_readers,
    test_session_summaries_are_read_by_their_owner_only,
    test_the_note_editor_of_a_vault_one_may_not_read_answers_as_a_missing_note,
    test_the_opening_of_a_note_a_question_names_is_never_read_from_outside_the_scope,
    test_words_planted_in_an_unreadable_vault_never_change_a_readers_keyword_ranking,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _application_filters_off(settings) -> None:  # type: ignore[no-untyped-def]
    settings.SCOPE_FILTERS = False


def test_no_response_ever_contains_a_marker_from_an_unreadable_vault(tmp_path):
    test_isolation.test_no_response_ever_contains_a_marker_from_an_unreadable_vault(23, tmp_path)


def test_every_mcp_tool_only_ever_reaches_readable_vaults(tmp_path):
    test_isolation.test_every_mcp_tool_only_ever_reaches_readable_vaults_before_and_after_revocation(tmp_path)
