"""The isolation suite a second time, with the application's own scope filters switched off (every vault-scoped
statement then asks for every vault): the database's row-level security alone must keep each requester to the
vaults they read. The worker the chat tests start runs with its filters on: it is another process."""

from __future__ import annotations

import pytest

from tests.test_isolation import *  # noqa: F403 - the same tests, collected again under the fixture below


@pytest.fixture(autouse=True)
def _application_filters_off(settings) -> None:  # type: ignore[no-untyped-def]
    settings.SCOPE_FILTERS = False
