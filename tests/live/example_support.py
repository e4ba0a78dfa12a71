"""What rule examples of the live and observed-process layers need, provided for the rule-example harness.

    from tests.live.example_support import provide, unmet_live_needs

    with provide(example.needs, tmp_path) as subst:      # starts servers/processes, ends them afterwards
        argv = [word.format_map(subst) if "{" in word else word for word in example.argv]

``needs`` understood here:
- ``http-fixture:NAME`` / ``https-fixture:NAME``: serve ``tests/live/fixtures/NAME.json`` on 127.0.0.1
  (HTTPS with a fresh self-signed certificate; needs ``openssl``); ``{url}`` is its base URL.
- ``process-fixture:sglang`` / ``process-fixture:vllm``: a real process whose argv is
  ``python -m sglang.launch_server --model-path /models/qwen`` (or vLLM's module), started more than a
  second before the example's files are written (so a script written afterwards is newer); ``{pid}``.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tests.live.fixture_server import FIXTURES, serve_need

KINDS = ("http-fixture", "https-fixture", "process-fixture")


def handles(need: str) -> bool:
    return need.partition(":")[0] in KINDS


def unmet_live_needs(needs: Sequence[str]) -> list[str]:
    missing = []
    for need in needs:
        kind, _, arg = need.partition(":")
        if kind in ("http-fixture", "https-fixture") and not (FIXTURES / f"{arg}.json").exists():
            missing.append(need)
        elif kind == "https-fixture" and shutil.which("openssl") is None:
            missing.append(need)
        elif kind == "process-fixture" and arg not in ("sglang", "vllm"):
            missing.append(need)
    return missing


@contextmanager
def provide(needs: Sequence[str], tmp_path: Path | None = None) -> Iterator[dict[str, str]]:
    from tests.observed.fake_server import fake_site, start_fake_server, stop

    subst: dict[str, str] = {}
    with ExitStack() as stack:
        for need in needs:
            kind, _, arg = need.partition(":")
            if kind in ("http-fixture", "https-fixture"):
                server = stack.enter_context(serve_need(need))
                subst["url"] = server.url
                # several servers (argtrace fleet): {url1}, {url2}... in the order of the needs
                subst[f"url{sum(1 for k in subst if k.startswith('url'))}"] = server.url
            elif kind == "process-fixture":
                root = Path(stack.enter_context(tempfile.TemporaryDirectory(dir=tmp_path)))
                site = fake_site(root / "site", arg, "0.33.0" if arg == "vllm" else "0.5.10.post1")
                args = ["--model-path", "/models/qwen"] if arg == "sglang" else ["--model", "/models/qwen"]
                started = time.monotonic()
                proc = start_fake_server(site, args, framework=arg, port_file=root / "port")
                stack.callback(stop, proc)
                time.sleep(max(0.0, 1.2 - (time.monotonic() - started)))
                subst["pid"] = str(proc.pid)
        yield subst
