"""A file that holds no server launch: what it is instead (LG012).

Empty, binary, a piece of a framework's argument dump cut from its line, frames of a framework's traceback
without their exception line, a running server's steady lines (its start-up is not in the file), or text
from something else. Only for such a file is the head read again (64 KiB) to tell the pieces apart; and for a
launch that stops without an error, to tell a document that quotes a log between paragraphs of prose
(``quoted_in_prose``) from a log.
"""

from __future__ import annotations

import re

from argtrace.layers.log.lines import _decode
from argtrace.layers.log.prefix import split_prefix
from argtrace.layers.log.reader import Scan
from argtrace.layers.log.stages import (
    FRAME_LINE,
    PROCESS_TITLE,
    SERVING_LINE,
    VLLM_PROCESS,
    frames_framework,
)
from argtrace.model import Finding
from argtrace.rules import log as rules

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _not_a_log(scan: Scan, label: str, at: Any) -> Finding:
    if scan.bytes_read == 0:
        what = "is empty"
    elif scan.binary:
        what = "looks binary (NUL bytes), not a text log"
    else:
        dump = None if scan.gzip else _argument_dump_piece(scan.path)
        if dump is not None:
            framework, count = dump
            # a piece of the server's own argument dump, cut from its line (vllm#14992's excerpt): the file
            # is the server's, only too little of it to say what it saw; nothing points to another file
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) holding part of a {framework} argument dump "
                f"({count} of its settings as name=value) without the start of its line, so neither the "
                "release nor the launch it belongs to shows: it cannot say what the server saw.",
                at=None,
                severity="info",
                fix="Give argtrace the whole log, from the server's start.",
            )
        frames = None if scan.gzip else _traceback_piece(scan.path)
        if frames is not None:
            framework, count, last = frames
            # frames of the server's own traceback whose indentation and exception line the copy lost
            # (sglang#3460): the server's file, too little of it to name the error
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) holding {count} frame(s) of a {framework} traceback "
                f"(the last in {last}) without its exception line: the error and the settings that led to "
                "it are not in the file.",
                at=None,
                severity="info",
                fix="Give argtrace the whole log, from the server's start, or the full traceback with its "
                "last line (the exception).",
            )
        if SERVING_LINE.search(scan.last_line):
            # it ends in a running server's steady lines (SGLang's decode/prefill batches, vLLM's throughput
            # stats, the OpenAI API's requests): the server's file, read long after its start
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) that end in a running server's serving lines "
                f"(`{scan.last_line.strip()[:80]}`): it started and serves; its start-up, and so the values "
                "it started with, are not in the file.",
                at=None,
                severity="info",
                fix="Give argtrace the log from the server's start (an older rotated file, the journal).",
            )
        watchdog = None if scan.gzip else _nccl_watchdog_piece(scan.path)
        if watchdog is not None:
            ranks, said = watchdog
            # torch.distributed's NCCL watchdog inside the server's ranks (sglang#3932, sglang#3424): lines
            # of the server's own processes, not of something else; what the server logged is not in the file
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) of torch.distributed's NCCL watchdog from rank(s) "
                f"{', '.join(ranks)} and none of the server's own: a collective of the server's process "
                f"group failed or timed out (`{said}`). Which rank stopped first, and why, is in the "
                "server's log before these lines, not in the file.",
                at=None,
                severity="info",
                fix="Give argtrace the server's whole log (every node's, for a multi-node launch); rerun "
                "with NCCL_DEBUG=INFO to see the collective that hung.",
            )
        ranked = None if scan.gzip else _scheduler_line(scan.path)
        if ranked is not None:
            # SGLang's scheduler prefixes its lines with its ranks (``[.. DP6 TP6]``); it runs only once the
            # launcher logged server_args (sglang#26032's failed online weight update, behind a Ray actor's
            # tag): a running server's lines whose own words held no anchor
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) with SGLang's scheduler lines (`{ranked}`) and none "
                "of its start-up: the server had started (its scheduler runs only after it logged "
                "server_args=); the values it started with are not in the file.",
                at=None,
                severity="info",
                fix="Give argtrace the log from the server's start (an older rotated file, the journal, "
                "`docker logs`/`kubectl logs` of the whole container).",
            )
        workers = None if scan.gzip else _http_workers(scan.path)
        if workers is not None:
            said, died = workers
            # uvicorn's worker supervisor inside SGLang's HTTP server (sglang#10121): SGLang's own process,
            # in the format SGLang gives uvicorn; only --tokenizer-worker-num > 1 starts worker processes
            deaths = (
                f"; {len(died)} worker(s) died or hung past its health check ({', '.join(died)}), and "
                "uvicorn starts a new one in each's place (a worker that dies at once dies again)"
                if died
                else ""
            )
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) of uvicorn's worker supervisor in the format SGLang "
                f"gives uvicorn (`{said}`): SGLang's HTTP server running as several worker processes, which "
                f"only --tokenizer-worker-num above 1 starts{deaths}. Why a worker died, and the values the "
                "server started with, are in the server's lines, not in the file.",
                at=None,
                severity="info",
                fix="Give argtrace the server's whole log, from its start; to serve without the worker "
                "processes, --tokenizer-worker-num 1 (the default: one tokenizer in the server's process).",
            )
        titled = None if scan.gzip else _process_titles(scan.path)
        if titled is not None:
            framework, titles = titled
            # the titles SGLang and vLLM give their processes (``sglang::scheduler_TP0``,
            # ``VLLM::EngineCore``) in native stack frames or system messages (a docker json-file copy of a
            # Ray worker's C++ frames, Awesome-ML-SYS-Tutorial#106): the server's processes, not another's
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) naming {framework}'s own process(es) "
                f"({', '.join(f'`{t}`' for t in titles)}, the titles the server gives them) and none of the "
                "server's log lines: a native stack trace or a system message about the server's processes; "
                "what the server logged before it is not in the file.",
                at=None,
                severity="info",
                fix="Give argtrace the server's whole log, from its start (the terminal, `docker logs`, "
                "`kubectl logs`), with the Python traceback before the native frames.",
            )
        front = None if scan.gzip else _front_end(scan.path)
        if front is not None:
            name, runs, quoted = front
            # Ray Serve LLM runs vLLM's engine inside its LLMServer replicas (``ray.serve.llm``, ray PR#55754,
            # PR#66230); SGLang's router (``sglang_router_rs``, sglang PR#11453) sends requests to SGLang's
            # servers: the deployment's own lines, not another program's file, only not the server's
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) of {name} (`{quoted}`), which {runs}, and none of "
                "the server's own lines: what the server logged, and the values it started with, are in its "
                "own log, not in the file.",
                at=None,
                severity="info",
                fix="Give argtrace the server's log: Ray Serve LLM's replica log (Ray's session logs, "
                "`serve/replica_*.log`, or the `(ServeReplica:...)` lines from the deployment's start), or "
                "each worker's log behind the router.",
            )
        compiled = None if scan.gzip else _compile_tool(scan.path)
        if compiled is not None:
            # SGLang's DeepGEMM compile tool starts a server, sends it one request and stops it once the
            # kernels are compiled (0.5.23 compile_deep_gemm.py:218-224, 0.5.10.post1 :167): its own lines,
            # the server's are not in the file (sglang PR#31006's copy: the line, then the stop's
            # resource_tracker warnings)
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) of SGLang's DeepGEMM compile tool "
                f"(`python -m sglang.compile_deep_gemm`: `{compiled}`), which starts a server, sends it one "
                "request and stops it once the kernels are compiled: this run's compilation finished, and "
                "the stop follows it by design; the server's own lines are not in the file.",
                at=None,
                severity="info",
                fix="To serve, launch the server itself with the same arguments (`python -m "
                "sglang.launch_server ...`): it reuses the compiled kernels; if it fails, give argtrace its "
                "log.",
            )
        started = None if scan.gzip else _launcher(scan.path)
        if started is not None:
            framework, where, quoted = started
            # GPUStack's worker starts each model instance's server and logs its own steps (gpustack#5114:
            # "Creating vLLM container workload"); the server's lines go to the instance's log, not here
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) of GPUStack's worker (`{quoted}`), which starts the "
                f"{framework} server {where}, and none of the server's own: what the server logged, and the "
                "values it started with, are in the model instance's log, not in the file.",
                at=None,
                severity="info",
                fix="Give argtrace the model instance's log (GPUStack shows it for the instance; for a "
                "container it created, `docker logs` of that container).",
            )
        served = None if scan.gzip else _serving_lines(scan.path)
        if served is not None:
            count, last = served
            # serving lines before a last line that is none (a Prometheus scrape, a stats line a terminal
            # broke in two, a script's digest after the lines it picked: vllm#27073, tt-inference-server#3359)
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s), {count} of them a running server's serving lines "
                f"(the last: `{last}`): it started and served; its start-up, and so the values it started "
                "with, are not in the file.",
                at=None,
                severity="info",
                fix="Give argtrace the log from the server's start (an older rotated file, the journal).",
            )
        tagged = None if scan.gzip else _vllm_process_lines(scan.path)
        if tagged is not None:
            # vLLM's lines of which one is a message its catalog entry reads (an engine core that died): that
            # entry's note, before the one that only says whose lines they are
            head_of = _head(scan.path)
            own = _own_note(scan, label, head_of) if head_of is not None else None
            if own is not None:
                return own
            count, names, first = tagged
            # lines behind vLLM's own process tags that hold no step argtrace reads (a DP x EP engine's
            # expert placement, vllm PR#28037; a decode server's KV transfer metrics, vllm PR#42703): the
            # server's file, too little of it to say what it saw
            if names:
                whose = (
                    f"logged by vLLM's own processes ({', '.join(f'`{n}`' for n in names)}), and none that "
                    "shows a start-up step, an error or a serving line: the file is the server's, but too "
                    "little of it"
                )
            else:
                # vLLM's logger format without a process tag (before 0.10, or a wrapper's process: KServe's
                # huggingfaceserver, kserve PR#4368): vLLM's lines, the server's or another vLLM command's
                # (``vllm bench``, an offline script; SGLang <= 0.4 logs some through it too)
                whose = (
                    f"in vLLM's log format (`{first}`), and none that shows a start-up step, an error or a "
                    "serving line: lines of vLLM's code (a server, or another command that runs it), too "
                    "little of them"
                )
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s), {count} of them {whose} to say where the launch "
                "got to or what it started with.",
                at=None,
                severity="info",
                fix="Give argtrace the server's whole log, from its start (the terminal, `docker logs`, "
                "`kubectl logs`, the journal).",
            )
        head = None if scan.gzip else _head(scan.path)
        if head is not None:
            found = _kube_events(scan, label, head)
            if found is not None:
                return found
            own = _own_note(scan, label, head)
            if own is not None:
                return own
            plugin = _kv_library_lines(head)
            if plugin is not None:
                name, count, quoted = plugin
                # a KV cache library's own lines, which it logs from inside the server's processes (kvcached
                # PR#459's lines before SGLang's): the server's file, too little of it to say more
                return rules.LG012.finding(
                    f"{label} has {scan.total_lines} line(s), {count} of them {name}'s (`{quoted}`), a KV "
                    "cache library that runs inside the server's processes, and none of the server's own: "
                    "the server's file, but too little of it to say where the launch got to or what it "
                    "started with.",
                    at=None,
                    severity="info",
                    fix="Give argtrace the server's whole log, from its start (the terminal, `docker logs`, "
                    "`kubectl logs`, the journal).",
                )
        what = f"has {scan.total_lines} line(s) but none from an SGLang or vLLM server"
    return rules.LG012.finding(f"{label} {what}: it cannot say what the server saw.", at=None)


# The loggers of the KV cache libraries SGLang and vLLM load into their own processes, each line's head:
# kvcached's ``[kvcached][INFO][2026-09-17 17:34:46][patches.py:131] `` (kvcached/utils.py,
# get_kvcached_logger: ``[{name}][%(levelname)s][%(asctime)s][%(filename)s:%(lineno)d] %(message)s``) and
# LMCache's ``[2025-08-14 10:00:00,123] LMCache INFO: `` (lmcache/logging.py, build_format:
# ``[%(asctime)s] LMCache %(levelname)s: %(message)s (%(filename)s:%(lineno)d:%(name)s)``).
_LEVEL = r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # LMCache colours its head on every stream, kvcached on a terminal
_KV_LIBRARIES = (
    (
        "kvcached",
        re.compile(rf"^\[kvcached[\w.]*\]\[{_LEVEL}\]\[\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d\]\[[\w.]+:\d+\] "),
    ),
    ("LMCache", re.compile(rf"^\[\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d,\d{{3}}\] LMCache {_LEVEL}: ")),
)


def _kv_library_lines(head: str) -> tuple[str, int, str] | None:
    """(the library, how many of its lines, the first cut to 120 characters) when the file's head holds
    lines of a KV cache library that runs inside the server's processes; None when it holds none."""
    for name, pattern in _KV_LIBRARIES:
        bodies = (_ANSI.sub("", split_prefix(line).body) for line in head.splitlines())
        found = [body for body in bodies if pattern.match(body)]
        if found:
            return name, len(found), _cut(found[0])
    return None


def _own_note(scan: Scan, label: str, head: str) -> Finding | None:
    """A note naming a line in the server's own words (a catalog entry of SGLang's or vLLM's: sglang#12827's
    lone "Received sigquit from a child process" behind a CI job's time, DeepSeek-OCR#110's lone "Engine core
    proc EngineCore_DP0 died unexpectedly"): the server's file, too little of it to say where the launch got
    to."""
    own = _own_message(head)
    if own is None:
        return None
    framework, sig, quoted = own
    return rules.LG012.finding(
        f"{label} has {scan.total_lines} line(s), among them {framework}'s own message "
        f"`{quoted}` ([{sig.id}] {sig.meaning}), and none of its start-up: the server's lines, "
        "too few of them to say where the launch got to or what it started with.",
        at=None,
        severity="info",
        fix=f"{sig.fix}; give argtrace the server's whole log, from its start.",
    )


def _kube_events(scan: Scan, label: str, head: str) -> Finding | None:
    from argtrace.layers.log.kube_events import describe, read_events  # only for a file of no launch

    events = read_events(head.splitlines())
    if events is None:
        return None
    pods = f" about {', '.join(f'`{p}`' for p in events.pods[:3])}" if events.pods else ""
    said = describe(events)
    return rules.LG016.finding(
        f"{label} holds {events.rows} Kubernetes event(s){pods}, not the server's log"
        + (f": {said}." if said else ": none of them says the server failed."),
        at=None,
        severity="warning" if events.alarming() else "info",
    )


_FRAMEWORK_NAME = {"sglang": "SGLang", "vllm": "vLLM"}


def _own_message(head: str) -> tuple[str, Any, str] | None:
    """The first line of ``head`` that a catalog entry of SGLang or vLLM reads (behind any prefix): the
    framework's name, the entry and the line's words."""
    from argtrace.layers.log.signatures import match_line  # only for a file of no launch

    for line in head.splitlines()[:400]:
        body = split_prefix(line).body.strip()
        if not body:
            continue
        hit = match_line(body, framework=None, stage=None)
        if hit is not None and hit[0].framework in _FRAMEWORK_NAME:
            return _FRAMEWORK_NAME[hit[0].framework], hit[0], _cut(body)
    return None


def _head(path: str, limit: int = 1 << 16) -> str | None:
    """The file's first ``limit`` bytes, each line decoded as the scan decodes a kept line (a docker json-file
    record unwrapped)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit)
    except OSError:
        return None
    return "\n".join(_decode(line).rstrip("\r") for line in data.split(b"\n"))


# SGLang's scheduler prefix with its ranks (``managers/scheduler.py`` builds it from the parallel sizes:
# ``DP0 TP0``, ``PP1``, ``TP3 EP3``); the launcher's own lines have no rank.
_SCHEDULER_PREFIX = re.compile(
    r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (?:(?:DP|PP|TP|EP|ATTN_CP|MOE_DP)\d+ ?)+\] ?(.*)"
)


# Ray Serve LLM's own words: its deployments (``LLMServer:<model>``, ``LLMRouter``), its replicas' actor tags
# (``(ServeReplica:default:LLMRouter pid=N)``) and its module (``ray.serve.llm``).
_RAY_SERVE_LLM = re.compile(
    r"\bray\.serve\.llm\b|\bServeReplica:[^ )]*:LLM(?:Server|Router)\b|name='LLM(?:Server|Router)\b"
)
# SGLang's router (sgl-router's Rust crate ``sglang_router_rs``, its Python launcher's ``[Router (Rust)]``;
# since 2026 the model gateway ``smg`` (smg-project/smg: ``smg::worker::...`` modules, ``[smg]`` when launched
# with its workers, sglang PR#12407).
_SGL_ROUTER = re.compile(r"\bsglang_router_rs::|\[Router \((?:Rust|Python)\)\]|\bsmg(?:_\w+)?::\w|^\[smg\] ")
# vLLM's router (vllm-project/router, a fork of SGLang's: the crate ``vllm_router_rs``; its Python
# ``vllm_router`` logger in production-stack).
_VLLM_ROUTER = re.compile(r"\bvllm_router_rs::|:vllm_router\.")
# GPUStack's worker: the logger of its backend for each server (``gpustack.worker.backends.vllm``, the
# module's name in its log lines, gpustack#2769 and #5114); "container workload" when it runs the server in a
# container it creates (GPUStack 2.x, gpustack#5114).
_GPUSTACK = re.compile(r"\bgpustack\.worker\.backends\.(?P<fw>vllm|sglang)\b")
_CONTAINER = re.compile(r"\bcontainer workload\b", re.IGNORECASE)


# The line SGLang's DeepGEMM compile tool prints once its server answered the request that compiles the
# kernels (``print("\nDeepGEMM Kernels compilation finished successfully.")``, 0.5.23
# compile_deep_gemm.py:218; 0.5.10.post1 :167).
_COMPILED = "DeepGEMM Kernels compilation finished successfully."


def _compile_tool(path: str) -> str | None:
    """The compile tool's line that says its compilation finished, when the file's head holds it; None
    otherwise. Read only for a file with no server line."""
    text = _head(path)
    if text is None or _COMPILED not in text:
        return None
    return _COMPILED


def _launcher(path: str) -> tuple[str, str, str] | None:
    """(the server's framework, where the launcher runs it, its line that says so, cut to 120 characters)
    when the file's head holds GPUStack's worker starting a server; None otherwise. Read only for a file with
    no server line."""
    text = _head(path)
    if text is None:
        return None
    lines = [line.strip() for line in text.splitlines() if _GPUSTACK.search(line)]
    if not lines:
        return None
    found = _GPUSTACK.search(lines[0])
    framework = {"vllm": "vLLM", "sglang": "SGLang"}[found.group("fw")] if found else "vLLM"
    inside = next((line for line in lines if _CONTAINER.search(line)), None)
    quoted = inside or lines[0]
    where = "in a container it creates" if inside else "as a process of its own"
    return framework, where, quoted if len(quoted) <= 120 else quoted[:117] + "..."


# A line either router logs (its Rust crate's module path, its launcher's tag).
ROUTER_LINE = re.compile(f"{_SGL_ROUTER.pattern}|{_VLLM_ROUTER.pattern}")


def _front_end(path: str) -> tuple[str, str, str] | None:
    """(what it is, what it runs, its first line cut to 120 characters) when the file's head holds the lines
    of a front end of SGLang's or vLLM's servers (Ray Serve LLM, SGLang's or vLLM's router); None otherwise.
    Read only for a file with no server line."""
    text = _head(path)
    if text is None:
        return None
    for line in text.splitlines():
        if _RAY_SERVE_LLM.search(line):
            found = ("Ray Serve LLM", "runs vLLM inside its LLMServer replicas")
        elif _SGL_ROUTER.search(line):
            found = ("SGLang's router", "sends the requests to SGLang's servers")
        elif _VLLM_ROUTER.search(line):
            found = ("vLLM's router", "sends the requests to vLLM's servers")
        else:
            continue
        line = line.strip()
        return (*found, line if len(line) <= 120 else line[:117] + "...")
    return None


# A sentence of prose: a letter first and no log prefix (split_prefix takes none off), ten words or more,
# seven in ten of them plain words, no ``name=value``. A server's own lines start with a time, a level, a tag
# or a bar, or are made of names, numbers and settings.
_WORD = re.compile(r"^[(\"'`]?[A-Za-z][a-z'’-]*[)\"'`,.;:!?]*$")


def _prose(line: str) -> bool:
    if not line[:1].isalpha() or "=" in line or "|" in line or split_prefix(line).body.strip() != line:
        return False
    words = line.split()
    return len(words) >= 10 and 10 * sum(1 for w in words if _WORD.match(w)) >= 7 * len(words)


def quoted_in_prose(path: str) -> bool:
    """True when the file's head is a document quoting a log (a blog post, a tutorial): at least three
    different paragraphs of prose, a third or more of its non-blank lines. Where its quote stops is its
    author's cut, not where a launch stopped. Read only for a launch that stops without an error."""
    text = _head(path)
    if text is None:
        return False
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    prose = len({line for line in lines if _prose(line)})
    return prose >= 3 and 3 * prose >= len(lines)


def _cut(line: str) -> str:
    line = line.strip()
    return line if len(line) <= 120 else line[:117] + "..."


def _serving_lines(path: str) -> tuple[int, str] | None:
    """(how many, the last cut to 120 characters) of a running server's serving lines in the file's head;
    None when there is none. Read only for a file with no server line whose last line is not one."""
    text = _head(path)
    if text is None:
        return None
    found = [line for line in text.splitlines() if SERVING_LINE.search(line)]
    return (len(found), _cut(found[-1])) if found else None


def _vllm_process_lines(path: str) -> tuple[int, list[str], str] | None:
    """(how many, up to four process names, the first line's prefix) of the lines in the file's head that
    carry vLLM's process tag (``(EngineCore_DP0 pid=N)``, stages.VLLM_PROCESS) or its logger's prefix
    (``INFO 04-07 06:07:11 [config.py:583]``: a level, a month-day time and the module); None when there is
    none. Read only for a file with no server line."""
    text = _head(path)
    if text is None:
        return None
    count = 0
    names: list[str] = []
    first = ""
    for line in text.splitlines():
        p = split_prefix(line)
        tagged = p.proc is not None and VLLM_PROCESS.match(p.proc) is not None
        if not tagged and (p.month_day is None or p.src is None):
            continue
        count += 1
        if tagged and p.proc not in names:
            names.append(p.proc or "")
        if not first:
            cut = line.find(f"[{p.src}]") if p.src else -1
            first = line[: cut + len(p.src or "") + 2].strip() if cut >= 0 else _cut(line)
    return (count, names[:4], first) if count else None


def _scheduler_line(path: str) -> str | None:
    """The last of SGLang's scheduler lines in the file's head (prefix and text, cut to 120 characters);
    None when there is none. Read only for a file with no server line."""
    text = _head(path)
    if text is None:
        return None
    last = None
    for line in text.splitlines():
        m = _SCHEDULER_PREFIX.search(line)
        if m:
            last = line[m.start() :].strip()
    if last is None:
        return None
    return last if len(last) <= 120 else last[:117] + "..."


# SGLang sets uvicorn's formatter to ``[%(asctime)s] %(levelprefix)s %(message)s`` with ``%Y-%m-%d %H:%M:%S``
# (sglang/srt/utils/common.py set_uvicorn_logging_configs, 0.5.10.post1 and 0.5.23), and its HTTP server hands
# uvicorn ``workers=tokenizer_worker_num`` (entrypoints/http_server.py); uvicorn's supervisor
# (uvicorn/supervisors/multiprocess.py) then logs "Started parent process [N]", "Waiting for child process
# [N]", "Child process [N] died" and "Child process [N] failed to start, stopping the parent process.".
# uvicorn's own format has no time, vLLM's puts its process tag first: the time in brackets is SGLang's.
_HTTP_WORKER = re.compile(
    r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] (?:INFO|WARNING|ERROR|CRITICAL|DEBUG):\s+"
    r"(?:Started parent process|Waiting for child process|Child process) \[(\d+)\]( died| failed to start)?"
)


def _http_workers(path: str) -> tuple[str, list[str]] | None:
    """(the last supervisor line, the pids of the workers it says died) when the file's head holds uvicorn's
    worker supervisor lines in SGLang's format; None otherwise. Read only for a file with no server line."""
    text = _head(path)
    if text is None:
        return None
    last = None
    died: list[str] = []
    for line in text.splitlines():
        m = _HTTP_WORKER.search(line)
        if m is None:
            continue
        last = line[m.start() :].strip()
        if m.group(2) == " died" and m.group(1) not in died:  # a worker that failed to start stops them all
            died.append(m.group(1))
    if last is None:
        return None
    return (last if len(last) <= 120 else last[:117] + "..."), died


def _process_titles(path: str) -> tuple[str, list[str]] | None:
    """(framework, titles) when the file's head names the processes of one framework by their titles; None
    otherwise. Read only for a file with no server line."""
    text = _head(path)
    if text is None:
        return None
    found: dict[str, list[str]] = {}
    for m in PROCESS_TITLE.finditer(text):
        title = f"{m.group(1)}::{m.group(2)}"
        names = found.setdefault(m.group(1), [])
        if title not in names:
            names.append(title)
    if len(found) != 1:
        return None
    prefix, titles = next(iter(found.items()))
    return ("SGLang" if prefix == "sglang" else "vLLM"), titles[:4]


# torch's ProcessGroupNCCL lines: ``[rank3]:[E227 16:30:43.526290891 ProcessGroupNCCL.cpp:1785] [PG ID 2 ...]
# Exception (either an error or timeout) detected by watchdog ...`` (c10d's own log prefix after the rank).
_WATCHDOG = re.compile(
    r"\[rank(\d+)\]:\[[EW]\d{3,4} [\d:.]+ ProcessGroupNCCL\.cpp:\d+\] (?:\[[^\]]*\] )?(.*)"
)


def _nccl_watchdog_piece(path: str, limit: int = 1 << 16) -> tuple[list[str], str] | None:
    """(ranks, the first message) when the file's head holds torch's NCCL watchdog lines; None otherwise.
    Read only for a file with no server line."""
    text = _head(path, limit)
    if text is None:
        return None
    found = [m for m in map(_WATCHDOG.search, text.splitlines()) if m]
    if not found:
        return None
    ranks = sorted({m.group(1) for m in found}, key=int)
    said = found[0].group(2).strip()
    return ranks, said if len(said) <= 160 else said[:157] + "..."


def _traceback_piece(path: str, limit: int = 1 << 16) -> tuple[str, int, str] | None:
    """(framework, frames, last function) when the file's head holds traceback frames through one
    framework's source files; None otherwise. Read only for a file with no server line."""
    text = _head(path, limit)
    if text is None:
        return None
    # frames behind a prefix (a Ray actor's tag, a container runtime's time) are frames too
    found = [m for m in (FRAME_LINE.match(split_prefix(line).body) for line in text.splitlines()) if m]
    framework = frames_framework("\n".join(m.group("path") for m in found))
    if framework is None or len(found) < 2:
        return None
    return framework, len(found), found[-1].group("fn")


# How many of a framework's setting names, written ``name=``, make a text a piece of its argument dump
# (``Namespace(...)``/``ServerArgs(...)`` print every field; a config file or prose holds a few at most).
_DUMP_NAMES = 8


def _argument_dump_piece(path: str, limit: int = 1 << 16) -> tuple[str, int] | None:
    """(framework, names) when the file's head holds ``name=value`` pairs of one framework's settings, as
    its argument dump prints them; None otherwise. Read only for a file with no server line."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    try:
        with open(path, "rb") as handle:
            text = handle.read(limit).decode("utf-8", "replace")
    except OSError:
        return None
    names = set(re.findall(r"(?<![\w.])([a-z][a-z0-9_]*)=", text))
    if len(names) < _DUMP_NAMES:
        return None
    best: tuple[str, int] | None = None
    for framework in ("vllm", "sglang"):
        versions = bundled_versions(framework)
        if not versions:
            continue
        dests = {o.dest for o in load_schema(framework, versions[-1]).options}
        count = len(names & dests)
        if count >= _DUMP_NAMES and (best is None or count > best[1]):
            best = (framework, count)
    return best
