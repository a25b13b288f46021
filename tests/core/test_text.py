"""Words are compared by one stem on both sides, so a question meets a note that says the same word in another form."""

from __future__ import annotations

import pytest

from apps.core.text import terms


@pytest.mark.parametrize(
    ("asked", "written"),
    [
        ("Who facilitated the retro?", "Facilitator: Adaeze."),
        ("What did ADR-004 decide?", "Decided by: Maren Vogt."),
        ("how do I log a place where I ate out?", "categories: Places"),
        ("Which language can I pick?", "Renders a block for a variety of languages"),
    ],
)
def test_a_word_meets_its_other_forms(asked, written):
    assert set(terms(asked)) & set(terms(written))
