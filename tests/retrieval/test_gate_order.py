"""Passing the gate and coming first are different questions: the search's rank helps a passage pass, but among
what passed the one that answers is cited first even when the search ranked a look-alike above it."""

from __future__ import annotations

import pytest

from apps.retrieval.candidates import Candidate
from apps.retrieval.gate import gate

pytestmark = pytest.mark.django_db


def _candidate(rank: int, text: str, similarity: float) -> Candidate:
    return Candidate(rank + 1, rank + 1, 1, f"turn-{rank}.md", "", "", text, "authored", rank, similarity)


def test_among_what_passed_the_answer_comes_before_the_search_s_top_look_alike():
    look_alike = _candidate(0, "Maria: Shadow loves the park now, he runs after every ball we throw.", 0.62)
    answer = _candidate(1, "Maria: I adopted Shadow from the shelter on 14 May, best decision ever!", 0.50)
    result = gate("When did Maria adopt Shadow?", [look_alike, answer])
    assert [r.candidate for r in result.survivors] == [answer, look_alike]  # both pass; the answer is cited first
    estimate = {r.candidate.rank: r.probability for r in result.rated}
    assert estimate[0] > estimate[1]  # on the estimate that decides passing, the top search hit is ahead
