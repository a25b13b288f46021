"""Scoring arithmetic on a tiny hand-made conversation, including LoCoMo's malformed evidence ids."""

from __future__ import annotations

import json

import pytest

from apps.evaluation import locomo
from apps.evaluation.metrics import Item, injected_figures, question_scores
from apps.llm.gateway import tokens_of

TINY = {
    "sample_id": "tiny-1",
    "conversation": {
        "speaker_a": "Ada",
        "speaker_b": "Bo",
        "session_1_date_time": "9:00 am on 1 March, 2024",
        "session_1": [
            {"speaker": "Ada", "dia_id": "D1:1", "text": "I adopted a grey cat called Pixel."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely! I started climbing at the old quarry."},
            {"speaker": "Ada", "dia_id": "D1:3", "text": "Look at this", "blip_caption": "a cat on a windowsill"},
        ],
        "session_2_date_time": "6:30 pm on 9 April, 2024",
        "session_2": [
            {"speaker": "Bo", "dia_id": "D2:1", "text": "I sprained my ankle climbing last week."},
            {"speaker": "Ada", "dia_id": "D2:2", "text": "Pixel knocked my plant over again."},
        ],
        "session_3_date_time": "1:00 pm on 1 May, 2024",
    },
    "qa": [
        {"question": "What is the name of Ada's cat?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
        {"question": "When did Bo hurt the ankle?", "answer": 2024, "evidence": ["D2:1; D1:2"], "category": 2},
        {"question": "Broken ids", "answer": "x", "evidence": ["D", "D:11:26", "D1:3 D2:2", "D9:9"], "category": 1},
        {"question": "No evidence", "answer": "y", "evidence": [], "category": 3},
        {"question": "What is Bo's dog called?", "adversarial_answer": "Rex", "evidence": [], "category": 5},
    ],
}


@pytest.fixture
def conversation(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([TINY]))
    return locomo.load(path)[0]


def test_loader_repairs_evidence_and_skips_empty_sessions(conversation):
    assert [t.dia_id for t in conversation.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert sorted(conversation.sessions) == [1, 2]  # session 3 has a date but no turns
    assert "[shares a photo: a cat on a windowsill]" in conversation.turns[2].text
    evidence = [q.evidence for q in conversation.questions]
    assert evidence == [("D1:1",), ("D2:1", "D1:2"), ("D1:3", "D2:2"), (), ()]  # "D", "D:11:26", unknown D9:9 dropped
    assert [q.answer for q in conversation.questions][1] == "2024"  # integer answers become strings


def test_ranking_metrics_by_hand():
    ranking = [Item(("D1:2",), 10), Item(("D2:2",), 10), Item(("D2:1",), 10)]
    scores = question_scores(ranking, {"D2:1", "D1:3"})
    # one of two evidence turns in the top 5 and top 10; first evidence at rank 3; both evidence sessions (1 and 2)
    # appear among the retrieved turns, so session-level recall is complete
    assert scores == {
        "recall@5": 0.5,
        "recall@10": 0.5,
        "hit@10": 1.0,
        "mrr": pytest.approx(1 / 3),
        "session_recall@10": 1.0,
    }
    miss = question_scores(ranking, {"D1:1"})
    assert miss["mrr"] == 0.0 and miss["hit@10"] == 0.0 and miss["session_recall@10"] == 1.0


def test_ranks_beyond_ten_count_for_mrr_only_up_to_fifty():
    filler = [Item((f"D9:{i}",), 1) for i in range(60)]
    assert question_scores([*filler[:11], Item(("D1:1",), 1)], {"D1:1"})["mrr"] == pytest.approx(1 / 12)
    assert question_scores([*filler[:50], Item(("D1:1",), 1)], {"D1:1"})["mrr"] == 0.0
    assert question_scores([*filler[:11], Item(("D1:1",), 1)], {"D1:1"})["recall@10"] == 0.0


def test_noise_is_counted_per_source_turn_so_bundling_cannot_hide_it():
    bundle = Item(("D1:1", "D1:2", "D1:3", "D2:1", "D2:2"), tokens_of("x" * 400))
    figures = injected_figures([bundle], {"D1:1"})
    assert figures == {"items": 1.0, "source_turns": 5.0, "tokens": 100.0, "noise": 4.0}
    assert injected_figures([], {"D1:1"})["items"] == 0.0
