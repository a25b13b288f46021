"""The fusion calibration replays exactly what the search statement ranks, so what it chooses is what users get."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import override_settings

from apps.evaluation import corpus
from apps.evaluation.fusion_fit import DevVault, Half, calibrate_fusion, current_fusion, fuse, measure
from apps.evaluation.runner import eval_user, read_jsonl
from apps.retrieval.search import hybrid_search
from apps.vaults.scope import scope_for
from tests.factories import SAMPLE_VAULT

pytestmark = pytest.mark.django_db(transaction=True)

SAMPLE_QUERIES = SAMPLE_VAULT.parent / "queries.jsonl"
CURRENT_BM25 = (float(settings.SEARCH_BM25_K1), float(settings.SEARCH_BM25_B), float(settings.SEARCH_NOTE_MORE_CHUNKS))


def test_the_replayed_fusion_ranks_notes_as_the_search_does_and_every_vault_is_held_out_once():
    user = eval_user()
    try:
        dev = DevVault("sample", SAMPLE_VAULT, SAMPLE_QUERIES)
        measured = measure(user, dev, points=(CURRENT_BM25,))
        rows = [row for row in read_jsonl(SAMPLE_QUERIES) if row["relevant"]]
        assert len(measured.vector) == len(rows) == len(measured.keyword[CURRENT_BM25])
        vault_id = measured.vault_id
        for fusion in (("lead", 0.4), ("lead", 0.6), ("score", 0.5), ("score", 0.3), ("rrf", 0.5)):
            family, weight = fusion
            shift = float(settings.SEARCH_FUSION_LEAD_SHIFT) if family == "lead" else 0.0
            statement = "score" if family == "lead" else family
            with override_settings(
                SEARCH_FUSION=statement, SEARCH_FUSION_VECTOR_WEIGHT=weight, SEARCH_FUSION_LEAD_SHIFT=shift
            ):
                for row, vector, keyword in zip(rows, measured.vector, measured.keyword[CURRENT_BM25], strict=True):
                    hits = hybrid_search(query=row["q"], scope=scope_for(user, [vault_id]), k=20).hits
                    searched = [hit.path for hit in hits]
                    assert fuse(vector, keyword, fusion)[:20] == searched, (fusion, row["q"])

        other = DevVault("sample again", SAMPLE_VAULT, SAMPLE_QUERIES)
        both = [measured, measure(user, other, points=(CURRENT_BM25,))]
        report = calibrate_fusion(both, (CURRENT_BM25, current_fusion()))
        assert [fold["measured_on"] for fold in report["folds"]] == ["sample", "sample again"]
        hybrid = report["folds"][0]["current_figures"]["hybrid"]
        assert 0.9 <= hybrid["recall@5"] <= 1.0  # the sample vault's own questions find their notes
    finally:
        corpus.teardown(user)


def test_an_adaptive_fusion_trusts_the_half_whose_best_note_stands_out():
    # meaning scores all alike, one keyword match far ahead of the rest: a fixed half-half fusion still ranks the
    # meaning half's best note first, the adaptive ones the keyword match
    vector = Half(notes=[("a.md", 1, 0.50), ("b.md", 2, 0.49), ("c.md", 3, 0.48), ("d.md", 4, 0.47), ("e.md", 5, 0.46)])
    keyword = Half(notes=[("e.md", 5, 10.0), ("a.md", 1, 3.0), ("b.md", 2, 2.0), ("c.md", 3, 1.0), ("d.md", 4, 0.5)])
    assert fuse(vector, keyword, ("score", 0.5))[0] == "a.md"
    for fusion in (("separation", 1.0), ("separation", 2.0), ("gap", 0.1)):
        assert fuse(vector, keyword, fusion)[0] == "e.md", fusion
