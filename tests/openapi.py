"""The OpenAPI schema as clients read it (`/api/schema/`), and checks of real responses against it."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from typing import Any

from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from jsonschema import Draft202012Validator

# Fields whose shape is their author's, not ours: a note's YAML front matter holds whatever keys were written.
FREE_FORM = {"NoteOut.frontmatter"}


def generate_schema() -> dict[str, Any]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(schema))


@functools.cache
def api_schema() -> dict[str, Any]:
    return generate_schema()


def operations(schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            if method in ("get", "put", "patch", "post", "delete"):
                yield path, method, operation


def untyped_responses(schema: dict[str, Any]) -> Iterator[str]:
    """Every successful response without a schema, or with a part that says nothing of its shape (any value, or
    an object of unnamed keys with any values), as `METHOD path code: where`."""
    for path, method, operation in operations(schema):
        for code, response in operation["responses"].items():
            if not code.startswith("2"):
                continue
            label = f"{method.upper()} {path} {code}"
            content = response.get("content")
            if not content:
                if code != "204":
                    yield f"{label}: no schema"
                continue
            for media, body in content.items():
                if "schema" not in body:
                    yield f"{label}: no schema for {media}"
                    continue
                for where in _untyped(body["schema"], schema, "body", frozenset()):
                    yield f"{label}: {where}"


def _untyped(node: dict[str, Any], schema: dict[str, Any], where: str, seen: frozenset[str]) -> Iterator[str]:
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        if name not in seen:
            yield from _untyped(schema["components"]["schemas"][name], schema, name, seen | {name})
        return
    parts = [p for key in ("allOf", "oneOf", "anyOf") for p in node.get(key, [])]
    for part in parts:
        yield from _untyped(part, schema, where, seen)
    if parts or "enum" in node:
        return
    kind = node.get("type")
    if kind is None:
        yield f"{where} may be anything"
    elif kind == "object":
        properties, extra = node.get("properties") or {}, node.get("additionalProperties")
        if not properties and extra in (None, True, {}) and where not in FREE_FORM:
            yield f"{where} is an object of any keys and values"
        for name, sub in properties.items():
            yield from _untyped(sub, schema, f"{where}.{name}", seen)
        if isinstance(extra, dict) and extra:
            yield from _untyped(extra, schema, f"{where}.*", seen)
    elif kind == "array":
        if not node.get("items"):
            yield f"{where} is a list of anything"
        else:
            yield from _untyped(node["items"], schema, f"{where}[]", seen)


def assert_matches_schema(response: Any) -> None:
    """The body of a real test-client response validates against what the schema declares for its operation and
    status code, with no key missing and none the schema does not name."""
    route = "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", response.resolver_match.route)
    method = response.request["REQUEST_METHOD"].lower()
    operation = api_schema()["paths"][route][method]
    declared = operation["responses"].get(str(response.status_code))
    assert declared is not None, f"{method.upper()} {route} does not declare {response.status_code}"
    if "content" not in declared:
        assert not response.content, f"{method.upper()} {route} {response.status_code} declares no body"
        return
    media_type = response.get("Content-Type", "").split(";")[0]
    if media_type != "application/json":  # a file (a zip): its media type is the one declared, its bytes are its own
        assert media_type in declared["content"], f"{method.upper()} {route} {response.status_code} sent {media_type}"
        return
    problems = [
        f"{'/'.join(map(str, error.absolute_path)) or 'body'}: {error.message}"
        for error in response_validator(route, method, str(response.status_code)).iter_errors(response.json())
    ]
    assert problems == [], f"{method.upper()} {route} {response.status_code} differs from its schema"


@functools.cache
def response_validator(route: str, method: str, code: str) -> Draft202012Validator:
    schema = api_schema()
    body = schema["paths"][route][method]["responses"][code]["content"]["application/json"]["schema"]
    return Draft202012Validator(_closed(body, schema["components"]["schemas"]))


def _closed(node: Any, components: dict[str, Any]) -> Any:
    """An OpenAPI 3.0 schema as plain JSON Schema, its references inlined, `nullable` as a null alternative, and
    every object with named properties closed to other keys."""
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _closed(components[node["$ref"].rsplit("/", 1)[1]], components)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "patternProperties"):
            out[key] = {name: _closed(sub, components) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = _closed(value, components)
        elif key in ("allOf", "oneOf", "anyOf"):
            out[key] = [_closed(sub, components) for sub in value]
        elif key not in ("nullable", "readOnly", "writeOnly", "discriminator", "example"):
            out[key] = value
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return {"anyOf": [out, {"type": "null"}]} if node.get("nullable") else out
