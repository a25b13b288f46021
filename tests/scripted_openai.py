"""A scripted OpenAI-compatible server on 127.0.0.1: real HTTP for the real litellm client, no internet."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Script:
    """Replies in order to /chat/completions (a status code, a delay, content; streamed a word at a time when the
    client asks for a stream), then `respond`'s reply to the request or `default` once they run out; embeddings come
    from `embed`."""

    replies: list[dict[str, Any]] = field(default_factory=list)
    default: dict[str, Any] = field(default_factory=lambda: {"content": "ok"})
    embed: Callable[[str], list[float]] | None = None
    respond: Callable[[dict[str, Any]], dict[str, Any]] | None = None  # instead of `default`: a reply per request
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""


def _chat_body(model: str, content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
    }


def _handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            key = self.headers.get("Authorization")
            script.requests.append({"path": self.path, "body": body, "authorization": key})
            if self.path.endswith("/embeddings"):
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                assert script.embed is not None
                data = [{"object": "embedding", "index": i, "embedding": script.embed(t)} for i, t in enumerate(inputs)]
                return self._send(
                    200,
                    {
                        "object": "list",
                        "model": body["model"],
                        "data": data,
                        "usage": {"prompt_tokens": 3, "total_tokens": 3},
                    },
                )
            if script.replies:
                reply = script.replies.pop(0)
            else:
                reply = script.respond(body) if script.respond else script.default
            time.sleep(reply.get("delay", 0))
            status = reply.get("status", 200)
            if status != 200:
                return self._send(status, {"error": {"message": "scripted failure", "type": "server_error"}})
            if body.get("stream"):
                return self._stream(body["model"], reply)
            return self._send(200, _chat_body(body["model"], reply.get("content", "")))

        def _stream(self, model: str, reply: dict[str, Any]) -> None:
            """Server-sent chunks, a word at a time, then usage and [DONE]; `cut_after` words drops the line."""
            words = re.findall(r"\S+\s*", reply.get("content", ""))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": model}
            for n, word in enumerate(words):
                if n == reply.get("cut_after"):
                    self.wfile.write(b"data: {broken")
                    self.wfile.flush()
                    self.close_connection = True
                    return
                delta = {"index": 0, "delta": {"role": "assistant", "content": word}, "finish_reason": None}
                self._event({**base, "choices": [delta]})
            self._event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            self._event(
                {
                    **base,
                    "choices": [],
                    "usage": {"prompt_tokens": 42, "completion_tokens": len(words), "total_tokens": 42 + len(words)},
                }
            )
            self.wfile.write(b"data: [DONE]\n\n")

        def _event(self, payload: dict[str, Any]) -> None:
            self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
            self.wfile.flush()

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@contextmanager
def scripted_server(script: Script) -> Iterator[Script]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    script.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield script
    finally:
        server.shutdown()
        server.server_close()
