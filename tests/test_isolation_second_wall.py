"""Isolation through requests a second time, with the application's own scope filters switched off (every
vault-scoped statement then asks for every vault): the database's row-level security alone must keep each
requester to the vaults they read. Only the tests that go through requests are run again: the others call read
functions directly from the test, which arranges and reads under a system binding, where the wall is open by
design. The worker the chat tests start runs with its filters on: it is another process."""

from __future__ import annotations

import pytest

from tests import test_isolation
from tests.test_isolation import (  # noqa: F401 - collected again under the fixture below
    test_a_conversation_is_deleted_by_its_owner_only,
    test_chat_and_feedback_only_ever_use_readable_vaults,
    test_export_and_coverage_of_a_vault_one_may_not_read_answer_as_a_missing_vault,
    test_filed_notes_and_daily_logs_stay_with_their_owner,
    test_insight_cards_are_read_and_answered_only_by_their_vaults_readers,
    test_search_for_a_marker_finds_it_only_for_readers,
    test_the_note_editor_of_a_vault_one_may_not_read_answers_as_a_missing_note,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _application_filters_off(settings) -> None:  # type: ignore[no-untyped-def]
    settings.SCOPE_FILTERS = False


def test_no_response_ever_contains_a_marker_from_an_unreadable_vault(tmp_path):
    test_isolation.test_no_response_ever_contains_a_marker_from_an_unreadable_vault(11, tmp_path)
