"""The OpenAPI schema describes every API response: clients generated from it know each field they get."""

from __future__ import annotations

from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.validation import validate_schema

from tests.factories import api
from tests.openapi import api_schema, generate_schema, operations, response_validator, untyped_responses


def test_every_successful_response_has_a_typed_schema():
    assert list(untyped_responses(api_schema())) == []


def test_the_check_finds_a_response_left_untyped():
    schema = {
        "paths": {
            "/api/x/": {
                "get": {"responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/c/X"}}}}}}
            },
            "/api/y/": {"post": {"responses": {"201": {"description": ""}, "204": {"description": ""}}}},
        },
        "components": {
            "schemas": {
                "X": {
                    "type": "object",
                    "properties": {
                        "fine": {"type": "array", "items": {"type": "integer"}},
                        "loose": {"type": "object", "additionalProperties": {}},
                        "rows": {"type": "array", "items": {}},
                    },
                }
            }
        },
    }
    assert list(untyped_responses(schema)) == [
        "GET /api/x/ 200: X.loose is an object of any keys and values",
        "GET /api/x/ 200: X.rows is a list of anything",
        "POST /api/y/ 201: no schema",
    ]


def test_a_response_that_drifted_from_its_schema_fails_the_check():
    check = response_validator("/api/conversations/{conversation_id}/cancel/", "post", "202")
    assert check.is_valid({"cancelled": 1})
    assert not check.is_valid({"cancelled": 1, "renamed": 1})  # a key the schema does not name
    assert not check.is_valid({})  # a key it promises is missing
    assert not check.is_valid({"cancelled": None})  # null where it promises a number


def test_the_schema_generates_without_warnings_and_is_valid_openapi():
    GENERATOR_STATS.reset()
    schema = generate_schema()
    assert [*GENERATOR_STATS._warn_cache, *GENERATOR_STATS._error_cache] == []
    validate_schema(schema)
    assert {(path, method) for path, method, _ in operations(schema)} >= {
        ("/api/chat/", "post"),
        ("/api/principles/", "get"),
        ("/api/graph/constellation/", "get"),
        ("/api/context-items/{item_id}/expand/", "get"),
        ("/api/search/", "get"),
    }


def test_the_served_schema_is_the_generated_one(db, owner):
    served = api(owner).get("/api/schema/", {"format": "json"})
    assert served.status_code == 200
    assert served.json()["paths"].keys() == api_schema()["paths"].keys()
