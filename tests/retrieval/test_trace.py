"""A unit's trace survives storage, and whatever an old row or bad data holds reads as a trace: feedback on a
malformed unit moves nothing rather than failing."""

from __future__ import annotations

import json

from apps.retrieval.trace import Trace, stored


def test_a_trace_comes_back_from_storage_as_it_went_in():
    walked = Trace(
        intent="lookup",
        entities=(3, 5),
        edges=(8,),
        prior=0.42,
        learned=1.0,
        rhythm=0.0,
        mention=13,
        doors=("grafana", "team"),
        asks="when",
        walk_ms=2.5,
        constraint=True,
        speculative=True,
        summaries=(21, 34),
        summary=21,
        prewarmed=True,
    )
    for trace in (walked, Trace(), Trace(intent="what", mention=0)):
        assert Trace.parse(json.loads(json.dumps(trace.to_json()))) == trace


def test_storage_keeps_the_keys_old_rows_and_sql_read():
    assert Trace(intent="what", entities=(1,), edges=(2,), mention=3).to_json() == {
        "intent": "what",
        "entities": [1],
        "edges": [2],
        "mention": 3,
    }
    assert stored(None) == {}
    assert Trace.parse({"intent": "what", "entities": [], "edges": [], "mention": None}) == Trace(intent="what")


def test_junk_reads_as_an_empty_trace_or_keeps_only_what_has_the_right_type():
    for junk in (None, [], "edges", 7, {}, {"unknown": 1}):
        assert Trace.parse(junk) == Trace()
    trace = Trace.parse(
        {
            "intent": 5,
            "entities": [1, "2", None, 3.0, True, 4],
            "edges": "12",
            "prior": "0.5",
            "learned": True,
            "rhythm": 2,
            "mention": "9",
            "doors": ["grafana", 3, None, ""],
            "asks": ["when"],
            "walk_ms": None,
            "speculative": 1,
            "summaries": {"1": 2},
            "summary": 1.5,
        }
    )
    assert trace == Trace(entities=(1, 4), rhythm=2.0, doors=("grafana", ""), speculative=True)
