from __future__ import annotations

import pytest

from tests.factories import make_user, make_vault


@pytest.fixture
def owner(db):
    return make_user("owner")


@pytest.fixture
def vault(owner):
    return make_vault(owner, "Team vault")
