"""A real HTTP(S) server on 127.0.0.1 that serves a recorded fixture (``tests/live/fixtures/NAME.json``).

Used by the live tests and by the rule-example test for examples that declare
``needs=("http-fixture:NAME",)`` (or ``https-fixture:NAME``, served with a self-signed certificate): start
``serve_fixture(NAME)`` and replace ``{url}`` in the example's argv by ``server.url``.

Auth follows the recorded framework: SGLang (``utils/auth.py``) lets ``/health*`` and ``/metrics*`` through
and answers 401 ``{"error": "Unauthorized"}`` elsewhere; vLLM guards ``/v1`` only.
"""

from __future__ import annotations

import json
import ssl
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def load_fixture(name: str) -> dict[str, Any]:
    """A fixture; one that names a ``base`` is that fixture with ``edits`` applied (endpoint path -> the
    top-level JSON fields it changes), so a variant of a recorded payload stays a few lines (the fleet
    tests' replicas: one edited by hand, one auto-sized on another GPU)."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    if "base" not in data:
        return data
    base = load_fixture(data["base"])
    for path, fields in data.get("edits", {}).items():
        base["endpoints"][path]["json"].update(fields)
    base["name"] = data.get("name", name)
    base["sources"] = {**base.get("sources", {}), **data.get("sources", {})}
    return base


class FixtureServer:
    def __init__(self, fixture: dict[str, Any], *, tls: bool = False, delay: float = 0.0) -> None:
        self.fixture = fixture
        self.requests: list[tuple[str, str | None]] = []  # (path, Authorization header)
        self.delay = delay
        handler = self._handler()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.tls = tls
        if tls:
            self._tmp = tempfile.TemporaryDirectory()
            cert, key = Path(self._tmp.name) / "cert.pem", Path(self._tmp.name) / "key.pem"
            subprocess.run(
                [
                    "openssl",
                    "req",
                    "-x509",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-keyout",
                    str(key),
                    "-out",
                    str(cert),
                    "-days",
                    "1",
                    "-subj",
                    "/CN=argtrace-fixture",
                ],
                check=True,
                capture_output=True,
            )
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = str(self.httpd.server_address[0]), int(self.httpd.server_address[1])
        return f"{'https' if self.tls else 'http'}://{host}:{port}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                import time

                if server.delay:
                    time.sleep(server.delay)
                path = self.path.split("?", 1)[0]
                server.requests.append((self.path, self.headers.get("Authorization")))
                fx = server.fixture
                key = fx.get("api_key")
                if key and not self._open(path, fx):
                    if self.headers.get("Authorization") != f"Bearer {key}":
                        return self._send(
                            401, json.dumps({"error": "Unauthorized"}).encode(), "application/json"
                        )
                entry = fx["endpoints"].get(path) or fx.get("default")
                if entry is None:
                    return self._send(404, b'{"detail":"Not Found"}', "application/json")
                if "json" in entry:
                    body = json.dumps(entry["json"]).encode()
                    ctype = "application/json"
                else:
                    body = entry["text"].encode()
                    ctype = entry.get("content_type", "text/plain")
                self._send(entry["status"], body, ctype)

            def _open(self, path: str, fx: dict[str, Any]) -> bool:
                if fx.get("framework") == "vllm":
                    return not path.startswith("/v1")
                return path.startswith(("/health", "/metrics"))

            def _send(self, status: int, body: bytes, ctype: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler

    def start(self) -> FixtureServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.tls:
            self._tmp.cleanup()


@contextmanager
def serve_fixture(name: str, *, tls: bool = False, delay: float = 0.0) -> Iterator[FixtureServer]:
    server = FixtureServer(load_fixture(name), tls=tls, delay=delay).start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def serve_need(need: str) -> Iterator[FixtureServer]:
    """Serve what an Example's ``needs`` entry asks for: ``http-fixture:NAME`` or ``https-fixture:NAME``."""
    kind, _, name = need.partition(":")
    with serve_fixture(name, tls=kind == "https-fixture") as server:
        yield server
