"""A real TCP server on 127.0.0.1 that records each request's headers and answers with raw bytes.

Unlike the fixture server (well-formed HTTP from recorded payloads), each answer here is written by a
test's own function on the socket, so a test can redirect to another origin, drip one byte a second or
send a body no parser should recurse into.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

Answer = Callable[[str, dict[str, str], socket.socket], None]


@dataclass
class RawServer:
    port: int
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # (path, lower-cased headers)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def headers_for(self, path: str) -> list[dict[str, str]]:
        return [h for p, h in self.requests if p == path]


def _read_head(conn: socket.socket) -> tuple[str, dict[str, str]] | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return None
        data += chunk
    lines = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    path = lines[0].split(" ")[1]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return path, headers


def respond(conn: socket.socket, status: str, body: bytes, headers: dict[str, str] | None = None) -> None:
    """A complete HTTP/1.1 answer with Content-Length and ``Connection: close``."""
    head = f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n"
    for name, value in (headers or {}).items():
        head += f"{name}: {value}\r\n"
    conn.sendall(head.encode("latin-1") + b"\r\n" + body)


@contextlib.contextmanager
def serve_raw(answer: Answer) -> Iterator[RawServer]:
    """Serve ``answer(path, headers, conn)`` for every connection until the block ends."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    server = RawServer(listener.getsockname()[1])
    stop = threading.Event()

    def handle(conn: socket.socket) -> None:
        with conn:
            try:
                head = _read_head(conn)
                if head is not None:
                    server.requests.append(head)
                    answer(head[0], head[1], conn)
            except OSError:  # the client gave up (its deadline): nothing more to write
                pass

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        thread.join(5)
        listener.close()
