"""Any litellm embedding model by setting: a scripted OpenAI-compatible server on 127.0.0.1 (real HTTP)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from apps.llm.embeddings import embed_texts
from apps.notes.models import Chunk
from tests.factories import make_note

DIMS = 384


def _vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    raw = [((digest[i % 32] + i) % 17) - 8.0 for i in range(DIMS)]
    norm = sum(x * x for x in raw) ** 0.5
    return [x / norm for x in raw]


class _Embeddings(BaseHTTPRequestHandler):
    calls: list[list[str]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        type(self).calls.append(inputs)
        payload = {
            "object": "list",
            "model": body["model"],
            "data": [{"object": "embedding", "index": i, "embedding": _vector(t)} for i, t in enumerate(inputs)],
            "usage": {"prompt_tokens": 3, "total_tokens": 3},
        }
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def provider(settings, monkeypatch) -> Iterator[list[list[str]]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    settings.EMBEDDING_MODEL = "openai/house-embedder"
    settings.EMBEDDING_API_BASE = f"http://127.0.0.1:{server.server_address[1]}/v1"
    _Embeddings.calls = []
    yield _Embeddings.calls
    server.shutdown()


def test_a_litellm_model_embeds_through_the_same_interface(provider, settings):
    vectors = embed_texts(["alpha", "beta"])
    assert [len(v) for v in vectors] == [DIMS, DIMS]
    assert vectors[0] == pytest.approx(_vector("alpha"), abs=1e-6)
    assert provider == [["alpha", "beta"]]


@pytest.mark.django_db
def test_chunks_record_the_provider_model_and_wrong_sizes_are_refused(provider, vault, settings):
    note = make_note(vault, "Provider.md", "# Provider\nembedded elsewhere")
    assert set(Chunk.objects.filter(note=note).values_list("embedding_model", flat=True)) == {"openai/house-embedder"}
    settings.EMBEDDING_DIMENSIONS = 768
    with pytest.raises(ValueError, match="another size"):
        embed_texts(["gamma"])
