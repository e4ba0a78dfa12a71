"""The HTTP client behind ``live``, ``check --url`` and ``--host`` (``collector.http_get``), against real
servers on 127.0.0.1: credentials only to the origin given, one deadline per request, a body cap, JSON no
parser recursion can blow up, and URLs that are not URLs refused before anything is asked."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from argtrace.layers.live import MAX_BODY, analyze_live, fetch_live, parse_json_body
from argtrace.remote import collector
from tests.conftest import REPO, run_cli
from tests.live.fixture_server import load_fixture, serve_fixture
from tests.live.raw_server import RawServer, respond, serve_raw

API_KEY = "sk-argtrace-redirect-key-00000000000"
SGLANG_INFO = json.dumps(load_fixture("sglang-0.5.10.post1")["endpoints"]["/server_info"]["json"]).encode()


def _redirect_to(target: RawServer | str, status: str = "307 Temporary Redirect"):  # type: ignore[no-untyped-def]
    base = target if isinstance(target, str) else target.url

    def answer(path: str, headers: dict[str, str], conn) -> None:  # type: ignore[no-untyped-def]
        respond(conn, status, b"", {"Location": base + path})

    return answer


def test_redirect_to_another_port_is_followed_without_the_api_key() -> None:
    with serve_fixture("sglang-0.5.10.post1") as other, serve_raw(_redirect_to(other.url)) as origin:
        result = analyze_live(origin.url, api_key=API_KEY)
    # Followed: the server behind the redirect was identified and compared ...
    assert result.sections["live"]["framework"] == "sglang"
    # ... but the key went to the origin given only (same host, another port: another origin).
    assert {h.get("authorization") for _, h in origin.requests} == {f"Bearer {API_KEY}"}
    assert other.requests and {auth for _, auth in other.requests} == {None}
    first = result.sections["live"]["endpoints"][0]
    assert first == {
        "path": "/server_info",
        "status": 200,
        "error": None,
        "content_type": "application/json",
        "redirected_to": f"{other.url}/server_info?config_format=json",
        "credentials_dropped": True,
    }


def test_redirect_within_the_origin_keeps_the_api_key() -> None:
    def answer(path: str, headers: dict[str, str], conn) -> None:  # type: ignore[no-untyped-def]
        if path.startswith("/server_info"):
            respond(conn, "302 Found", b"", {"Location": "/real_info"})  # relative: same origin
        elif path == "/real_info":
            respond(conn, "200 OK", SGLANG_INFO, {"Content-Type": "application/json"})
        else:
            respond(conn, "404 Not Found", b"{}", {"Content-Type": "application/json"})

    with serve_raw(answer) as server:
        snap = fetch_live(server.url, api_key=API_KEY)
    assert snap.framework == "sglang"
    assert [h.get("authorization") for h in server.headers_for("/real_info")] == [f"Bearer {API_KEY}"]
    assert snap.results[0].redirects == [f"{server.url}/real_info"]
    assert snap.results[0].credentials_dropped is False


def test_basic_auth_from_the_url_is_not_sent_to_another_origin() -> None:
    with serve_fixture("sglang-0.5.10.post1") as other, serve_raw(_redirect_to(other.url)) as origin:
        url = origin.url.replace("http://", "http://admin:hunter2pass@")
        result = run_cli(["live", url, "--format", "json"])
    basic = "Basic " + base64.b64encode(b"admin:hunter2pass").decode()
    assert {h.get("authorization") for _, h in origin.requests} == {basic}
    assert {auth for _, auth in other.requests} == {None}
    assert result.json["live"]["framework"] == "sglang"
    assert "hunter2pass" not in result.stdout


def test_credentials_in_a_location_are_never_used() -> None:
    with serve_fixture("sglang-0.5.10.post1") as other:
        sneaky = other.url.replace("http://", "http://thief:stolen@")
        with serve_raw(_redirect_to(sneaky, "301 Moved Permanently")) as origin:
            snap = fetch_live(origin.url)
    assert snap.framework == "sglang"
    assert {auth for _, auth in other.requests} == {None}
    assert all("stolen" not in url for r in snap.results for url in r.redirects)


def test_a_key_the_redirect_target_needs_is_explained() -> None:
    with serve_fixture("sglang-0.5.10.post1-apikey") as other, serve_raw(_redirect_to(other.url)) as origin:
        result = analyze_live(origin.url, api_key=API_KEY)
    lv004 = [f for f in result.findings if f.code == "LV004"]
    assert len(lv004) == 1
    assert lv004[0].message.endswith(
        f"(after a redirect to {other.url}/server_info?config_format=json, another origin: credentials are "
        "sent only to the origin given, so it got none)"
    )


def test_redirect_loops_end() -> None:
    def answer(path: str, headers: dict[str, str], conn) -> None:  # type: ignore[no-untyped-def]
        respond(conn, "302 Found", b"", {"Location": path})

    with serve_raw(answer) as server:
        got = collector.http_get(server.url + "/loop", timeout=5)
    assert got["status"] == 302 and len(got["redirects"]) == collector.MAX_REDIRECTS
    assert len(server.requests) == collector.MAX_REDIRECTS + 1


def _drip(head_first: bool):  # type: ignore[no-untyped-def]
    """A server that writes its answer one byte a second, for a minute."""

    def answer(path: str, headers: dict[str, str], conn) -> None:  # type: ignore[no-untyped-def]
        body = b"x" * 60
        head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\nContent-Type: application/json\r\n\r\n"
        data = head.encode() + body
        if head_first:
            conn.sendall(head.encode())
            data = body
        for i in range(len(data)):
            conn.sendall(data[i : i + 1])
            time.sleep(1)

    return answer


@pytest.mark.parametrize("head_first", [True, False], ids=["body-drips", "headers-drip"])
def test_a_dripping_server_ends_at_the_deadline(head_first: bool) -> None:
    with serve_raw(_drip(head_first)) as server:
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "argtrace", "live", server.url, "--timeout", "2", "--format", "json"],
            capture_output=True,
            text=True,
            timeout=40,  # a hang fails here instead of holding the suite for a minute
            env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        )
        elapsed = time.monotonic() - started
    assert proc.returncode == 1, proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    assert [(f["code"], f["message"]) for f in findings] == [
        ("LV001", f"{server.url}: timed out: no complete answer within 2 s")
    ]
    # One request was made and it ended at its deadline, not after the 60 s the server would drip.
    assert len(server.requests) == 1
    assert elapsed < 30


def test_a_body_nested_100000_deep_is_a_finding_not_a_crash() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000

    def answer(path: str, headers: dict[str, str], conn) -> None:  # type: ignore[no-untyped-def]
        respond(conn, "200 OK", deep, {"Content-Type": "application/json"})

    with serve_raw(answer) as server:
        result = run_cli(["live", server.url, "--format", "json"])
    assert result.status == 1, result.stderr
    assert result.stderr == ""
    messages = [(f["code"], f["message"]) for f in result.json["findings"]]
    assert (
        "LV003",
        f"{server.url}/server_info: the answer was not read: JSON nested deeper than 64 levels (HTTP 200)",
    ) in messages


def test_json_depth_guard() -> None:
    value, problem = parse_json_body(b"[" * 64 + b"]" * 64)
    assert problem is None and isinstance(value, list)
    assert parse_json_body(b"[" * 65 + b"]" * 65) == (None, "JSON nested deeper than 64 levels")
    # Below the json module's own recursion limit, but deeper than anything a server reports.
    assert parse_json_body(b'{"a":' * 900 + b"1" + b"}" * 900) == (None, "JSON nested deeper than 64 levels")
    assert parse_json_body(b"\xff") == (None, None)
    assert parse_json_body(b'{"max_total_num_tokens": 5}') == ({"max_total_num_tokens": 5}, None)


def test_a_body_over_the_cap_is_not_parsed() -> None:
    big = b'{"pad": "' + b"x" * MAX_BODY + b'"}'

    def answer(path: str, headers: dict[str, str], conn) -> None:  # type: ignore[no-untyped-def]
        respond(conn, "200 OK", big, {"Content-Type": "application/json"})

    with serve_raw(answer) as server:
        got = collector.http_get(server.url + "/server_info", timeout=20, limit=1000)
        assert (got["status"], got["truncated"], len(base64.b64decode(got["body"]))) == (200, True, 1000)
        result = analyze_live(server.url, timeout=20)
    lv003 = [f.message for f in result.findings if f.code == "LV003"]
    assert (
        f"{server.url}/server_info: the answer was not read: the body is larger than 16 MiB; not read "
        "further (HTTP 200)"
    ) in lv003


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://[::1/", "not a valid URL (Invalid IPv6 URL)"),
        ("http://[zz]:80", "not a valid URL ('zz' does not appear to be an IPv4 or IPv6 address)"),
        ("http://127.0.0.1:99999", "not a valid URL (Port out of range 0-65535)"),
        ("http://:8000", "not a valid URL (no host)"),
        ("ftp://127.0.0.1", "not an http:// or https:// URL"),
    ],
)
def test_urls_that_are_not_urls_are_usage_errors(url: str, why: str, tmp_path: Path) -> None:
    live = run_cli(["live", url])
    assert (live.status, live.stdout, live.stderr) == (2, "", f"argtrace live: {url}: {why}\n")
    script = tmp_path / "launch.sh"
    script.write_text("python3 -m sglang.launch_server --model-path /m --port 30000\n")
    check = run_cli(["check", "--url", url, "--no-shellcheck", str(script)])
    assert (check.status, check.stdout, check.stderr) == (2, "", f"argtrace check: --url {url}: {why}\n")


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e9"])
def test_timeouts_no_timer_can_wait_for_are_usage_errors(value: str, tmp_path: Path) -> None:
    shown = f"{float(value):g}"
    live = run_cli(["live", "http://127.0.0.1:1", "--timeout", value])
    assert (live.status, live.stderr) == (
        2,
        f"argtrace live: --timeout must be a number of seconds above 0 and at most 86400, got {shown}\n",
    )
    script = tmp_path / "launch.sh"
    script.write_text("python3 -m sglang.launch_server --model-path /m --port 30000\n")
    check = run_cli(["check", "--url", "http://127.0.0.1:1", "--url-timeout", value, str(script)])
    assert (check.status, check.stderr) == (
        2,
        f"argtrace check: --url-timeout must be a number of seconds above 0 and at most 86400, got {shown}\n",
    )


def test_a_tls_handshake_that_drips_ends_at_the_deadline() -> None:
    """The server answers the ClientHello with a record header announcing 16 kB, then one byte a second:
    every read gets a byte long before a socket timeout, so only the request's deadline can end it."""
    import socket as socket_mod

    listener = socket_mod.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)  # the ClientHello
            try:
                conn.sendall(b"\x16\x03\x03\x40\x00")
                for _ in range(60):
                    conn.sendall(b"\x02")
                    time.sleep(1)
            except OSError:
                pass

    import threading

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    started = time.monotonic()
    got = collector.http_get(f"https://127.0.0.1:{port}/server_info", timeout=2)
    elapsed = time.monotonic() - started
    listener.close()
    assert (got["status"], got["error"], got["detail"]) == (None, "timeout", "no complete answer within 2 s")
    assert elapsed < 10
