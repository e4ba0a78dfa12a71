"""Big logs made of the frameworks' real steady-state lines, rendered from their own format strings.

The progress lines a running server repeats are read out of each framework release's logging code in the
resolver environments (site-packages, ~/.cache/argtrace/resolvers): SGLang's ``Decode batch{iter_msg},
#running-req: ...`` and ``Prefill batch{iter_msg}, #new-seq: ...`` f-strings (``scheduler_metrics_mixin.py``
in 0.5.10, ``scheduler_components/metrics_reporter.py`` in 0.5.23), vLLM's ``log_parts`` of
``v1/metrics/loggers.py`` (``Engine 000: Avg prompt throughput: %.1f tokens/s, ...``). Only the parts a
plain single-node launch prints are kept (branches on disaggregation, multimodal encoders, speculative
decoding or hybrid models are left out). The logging prefixes (``[%(asctime)s TP0] `` of SGLang's
``configure_logger``, vLLM's ``LEVEL MM-DD HH:MM:SS [file:line] ``) and uvicorn's access line are written
here as those formats print them. Used by tests/log/test_realformat.py and bench/log_throughput.py; logs
are generated under a temporary directory, never committed.
"""

from __future__ import annotations

import ast
import gzip
import random
from collections.abc import Callable
from pathlib import Path
from typing import IO

from argtrace.resolver import environments

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
SGLANG_FILES = (
    "sglang/srt/observability/scheduler_metrics_mixin.py",  # 0.5.10
    "sglang/srt/managers/scheduler_components/metrics_reporter.py",  # 0.5.23
    "sglang/srt/managers/scheduler_metrics_mixin.py",
)
VLLM_FILE = "vllm/v1/metrics/loggers.py"
# Branches a plain launch never takes (their message parts are not printed).
_SKIPPED_BRANCHES = (
    "disagg",
    "language_only",
    "encoder",
    "spec",
    "is_hybrid",
    "swa",
    "hisparse",
    "RECORD_STEP_TIME",
)
HTTP = '[2026-11-29 {t}] INFO:     127.0.0.1:{p} - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
VLLM_HTTP = '(APIServer pid=1) INFO:     172.18.0.1:{p} - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'


def site_packages(framework: str, version: str) -> Path | None:
    manifest = environments.find_environment(framework, version)
    if manifest is None:
        return None
    found = sorted(Path(manifest.path).glob("lib/python*/site-packages"))
    return found[0] if found else None


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _skipped(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and any(word in ast.unparse(node.test) for word in _SKIPPED_BRANCHES):
            return True
    return False


def _value(expr: str, spec: str, rng: random.Random) -> str:
    if spec:
        big = any(word in expr.lower() for word in ("throughput", "flops", "bw", "bandwidth", "len"))
        return format(rng.uniform(1, 400) if big else rng.uniform(0, 1), spec)
    if "graph" in expr:
        return "cuda graph" if "backend" in expr else rng.choice(("True", "False"))
    return str(rng.randint(0, 4096))


def _render(node: ast.JoinedStr, rng: random.Random, names: dict[str, str]) -> str:
    out = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            out.append(str(part.value))
        elif isinstance(part, ast.FormattedValue):
            expr = ast.unparse(part.value)
            spec = ""
            if isinstance(part.format_spec, ast.JoinedStr):
                spec = "".join(str(v.value) for v in part.format_spec.values if isinstance(v, ast.Constant))
            out.append(names[expr] if expr in names else _value(expr, spec, rng))
    return "".join(out)


def sglang_templates(version: str) -> dict[str, Callable[[random.Random], str]] | None:
    """``{"decode": render, "prefill": render}`` from the release's own f-strings, or None (no env)."""
    site = site_packages("sglang", version)
    if site is None:
        return None
    source = next((site / rel for rel in SGLANG_FILES if (site / rel).is_file()), None)
    if source is None:
        return None
    tree = ast.parse(source.read_text(encoding="utf-8"))
    parents = _parents(tree)
    found: dict[str, Callable[[random.Random], str]] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        msg: list[ast.JoinedStr] = []
        usage: list[ast.JoinedStr] = []
        for node in sorted(
            ast.walk(fn), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))
        ):
            if isinstance(node, ast.Assign | ast.AugAssign) and isinstance(node.value, ast.JoinedStr):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "msg" for t in targets) and not _skipped(
                    node, parents
                ):
                    msg.append(node.value)
            # the token-usage part of a plain (not hybrid) model: msg_parts.append(f"...token usage...")
            if _usage_part(node, parents):
                usage.append(node.args[0])  # type: ignore[attr-defined]
        head = ast.unparse(msg[0]) if msg else ""
        kind = "decode" if "Decode batch" in head else "prefill" if "Prefill batch" in head else None
        if kind is None or kind in found:
            continue
        if not usage:  # 0.5.23: the parts come from pool_stats_observer.get_{kind}_usage_msg_parts
            usage = _observer_usage(source.parent / "pool_stats_observer.py", kind)
        if not usage:
            continue

        def render(
            rng: random.Random, msg: list[ast.JoinedStr] = msg, usage: list[ast.JoinedStr] = usage
        ) -> str:
            names = {"iter_msg": "", "token_usage_msg": _render(usage[-1], rng, {}) + ", "}
            return "".join(_render(part, rng, names) for part in msg)

        found[kind] = render
    return found if set(found) == {"decode", "prefill"} else None


def _usage_part(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """``msg_parts.append(f"...token usage...")`` / ``parts.append(...)`` outside the skipped branches."""
    return (
        isinstance(node, ast.Call)
        and ast.unparse(node.func) in ("msg_parts.append", "parts.append")
        and bool(node.args)
        and isinstance(node.args[0], ast.JoinedStr)
        and "token usage" in ast.unparse(node.args[0])
        and not _skipped(node, parents)
    )


def _observer_usage(path: Path, kind: str) -> list[ast.JoinedStr]:
    if not path.is_file():
        return []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = _parents(tree)
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == f"get_{kind}_usage_msg_parts":
            return [n.args[0] for n in ast.walk(fn) if _usage_part(n, parents)]  # type: ignore[attr-defined]
    return []


def vllm_template(version: str) -> Callable[[random.Random], str] | None:
    """``Engine 000: Avg prompt throughput: ...`` from the release's ``log_parts``, or None (no env)."""
    site = site_packages("vllm", version)
    if site is None or not (site / VLLM_FILE).is_file():
        return None
    tree = ast.parse((site / VLLM_FILE).read_text(encoding="utf-8"))
    parents = _parents(tree)
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or fn.name != "log":
            continue
        parts: list[str] = []
        for node in sorted(
            ast.walk(fn), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))
        ):
            if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]).startswith("log_parts"):
                if isinstance(node.value, ast.List):
                    parts += [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
            if (
                isinstance(node, ast.Call)
                and ast.unparse(node.func) == "log_parts.append"
                and isinstance(node.args[0], ast.Constant)
                and not any(isinstance(p, ast.If) for p in _ancestors(node, parents, fn))
            ):
                parts.append(node.args[0].value)
        if parts and parts[0].startswith("Avg prompt throughput"):
            fmt = ", ".join(parts)

            def render(rng: random.Random, fmt: str = fmt) -> str:
                args: list[object] = []
                i = 0
                while (i := fmt.find("%", i)) >= 0:
                    code = fmt[i + 1 : i + 4]
                    if code.startswith("%"):
                        i += 2
                        continue
                    args.append(
                        rng.uniform(0, 100)
                        if code.startswith(".1f")
                        else "GPU"
                        if code[0] == "s"
                        else rng.randint(0, 64)
                    )
                    i += 2
                return "Engine 000: " + fmt % tuple(args)

            return render
    return None


def _ancestors(node: ast.AST, parents: dict[ast.AST, ast.AST], stop: ast.AST) -> list[ast.AST]:
    out = []
    while node in parents and node is not stop:
        node = parents[node]
        out.append(node)
    return out


def _fixture_head(name: str, until: str) -> str:
    """The start-up part of a committed fixture log (args dump, memory and ready lines)."""
    text = (LOGS / name).read_text(encoding="utf-8")
    cut = text.find(until)
    return text if cut < 0 else text[: text.find("\n", cut) + 1]


FAILURE = (
    "[2026-11-29 23:59:58 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/sgl/srt/managers/scheduler.py", line 2009, in run_scheduler_process\n'
    '  File "/sgl/srt/model_executor/cuda_graph_runner.py", line 269, in __init__\n'
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB.\n"
)


def generate(
    path: Path, size: int, framework: str, version: str, *, seed: int = 18, compress: bool = False
) -> bool:
    """Write a log of about ``size`` bytes (of text) to ``path``: the start-up lines of a fixture, then the
    release's steady-state lines, a traceback near the end. False when the release's environment is absent."""
    rng = random.Random(seed)
    if framework == "sglang":
        templates = sglang_templates(version)
        if templates is None:
            return False
        head = _fixture_head("sglang_0.5.4_issue12726_timeline.log", "fired up")

        def line(i: int) -> str:
            t = f"21:{i // 60 % 60:02d}:{i % 60:02d}"
            if i % 13 == 5:
                return f"[2026-11-29 {t} TP0] {templates['prefill'](rng)}\n"
            if i % 13 in (6, 9):
                return HTTP.format(t=t, p=40000 + i % 20000)
            return f"[2026-11-29 {t} TP0] {templates['decode'](rng)}\n"

    else:
        stats = vllm_template(version)
        if stats is None:
            return False
        head = _fixture_head("vllm_0.20_qwen36_mtp.log", "Application startup complete")

        def line(i: int) -> str:
            if i % 4 == 0:
                return (
                    f"(APIServer pid=1) INFO 11-29 21:{i // 60 % 60:02d}:{i % 60:02d} [loggers.py:283] "
                    f"{stats(rng)}\n"
                )
            return VLLM_HTTP.format(p=40000 + i % 20000)

    block = "".join(line(i) for i in range(2000)).encode()
    opener: Callable[[Path], IO[bytes]] = (
        (lambda p: gzip.open(p, "wb", compresslevel=1)) if compress else (lambda p: p.open("wb"))  # type: ignore[arg-type,return-value]
    )
    with opener(path) as fh:
        written = fh.write(head.encode())
        half = False
        while written < size:
            written += fh.write(block)
            if not half and written >= size // 2:
                half = True  # a warning in the middle: a hit far from both ends
                written += fh.write(b"[2026-11-29 22:00:00 TP0] WARNING: request 17 exceeds the soft limit\n")
        fh.write(FAILURE.encode() if framework == "sglang" else FAILURE.replace(" TP0]", "]").encode())
    return True
