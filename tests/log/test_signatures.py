"""The error-signature catalog: well-formed, sourced, stable, at least 40 entries, and its doc is fresh."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from argtrace.layers.log.signatures import (
    Signature,
    _top_level_alternation,
    alternative_needles,
    catalog_markdown,
    load_catalog,
    match_line,
    required_prefix,
)
from argtrace.rules import rule_by_code

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "src" / "argtrace" / "data" / "error_signatures.json"
REQUIRED = {"id", "code", "framework", "pattern", "meaning", "settings", "fix", "source"}


def test_catalog_entries_are_complete_and_sourced() -> None:
    raw = json.loads(DATA.read_text())
    assert raw["version"] == 1
    entries = raw["signatures"]
    assert len(entries) >= 40
    for e in entries:
        assert REQUIRED <= set(e), e["id"]
        assert re.fullmatch(r"[a-z0-9][a-z0-9-]+", e["id"]), e["id"]
        assert rule_by_code(e["code"]) is not None, e["code"]
        assert e["framework"] in ("sglang", "vllm", "any")
        assert e["source"].startswith("https://") or "public" in e["source"], e["id"]
        re.compile(e["pattern"])
    assert len({e["id"] for e in entries}) == len(entries)


def test_the_required_failure_kinds_are_covered() -> None:
    ids = {s.id for s in load_catalog().signatures}
    for needed in (
        "cuda-oom-weights",
        "cuda-oom-kv-cache",
        "cuda-oom-mamba-cache",
        "cuda-oom-cuda-graph",
        "cuda-oom-draft-worker",
        "sglang-not-enough-memory",
        "sglang-spec-mamba-no-buffer",
        "sglang-extra-buffer-unsupported-arch",
        "sglang-max-running-capped-by-mamba",
        "sglang-negative-profiled-tokens",
        "argparse-unrecognized",
        "sglang-deprecated-flag",
        "vllm-unknown-env",
        "port-in-use",
        "nccl-error",
        "libnuma-missing",
        "draft-dtype-mismatch",
    ):
        assert needed in ids, needed


def test_oom_is_placed_by_stage() -> None:
    line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    got = {
        stage: match_line(line, framework="sglang", stage=stage) for stage in ("weights", "cuda_graph", None)
    }
    assert {k: v[0].id for k, v in got.items() if v} == {
        "weights": "cuda-oom-weights",
        "cuda_graph": "cuda-oom-cuda-graph",
        None: "cuda-oom",
    }


CASES = [
    (
        "launch_server.py: error: unrecognized arguments: --mamba-scheduler-strategy x",
        "argparse-unrecognized",
    ),
    ("launch_server.py: error: argument --port: expected one argument", "argparse-expected-one-argument"),
    (
        "ImportError: libnuma.so.1: cannot open shared object file: No such file or directory",
        "libnuma-missing",
    ),
    ("ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000)", "port-in-use"),
    (
        "Exception: Capture cuda graph failed: "
        "mat1 and mat2 must have the same dtype, but got Float and Half",
        "draft-dtype-mismatch",
    ),
    (
        "ValueError: max_num_seqs (1024) exceeds available Mamba cache blocks (969).",
        "vllm-max-num-seqs-mamba-blocks",
    ),
    ("Unknown vLLM environment variable detected: VLLM_USE_V1", "vllm-unknown-env"),
    ("Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 448.00 MiB.", "cuda-oom"),
]


def test_specific_lines() -> None:
    for line, want in CASES:
        got = match_line(line, framework=None, stage=None)
        assert got is not None and got[0].id == want, (line, got and got[0].id)


def test_generated_doc_is_fresh() -> None:
    assert (REPO / "docs" / "log_signatures.md").read_text() == catalog_markdown()


def test_required_prefix_is_the_literal_every_match_starts_with() -> None:
    cases = {
        "Not enough space for mamba cache": "Not enough space for mamba cache",
        r"Load weight end\.(?P<rest>.*)": "Load weight end.",
        r"^usage: (\S+)": "usage: ",
        r"max_num_seqs \((?P<n>\d+)\) exceeds": "max_num_seqs (",
        "colou?r": "colo",  # the "u" may be absent
        "ab+c": "ab",
        "ab{2}": "a",
        "a[bc]": "a",
        "a(b|c)": "a",
        r"x\|y": "x|y",
        "(?i)abc": "",  # case-insensitive: no literal
        "abc|def": "",  # either branch
        "[|]x|": "",
        r"\bfoo": "",
    }
    assert {regex: required_prefix(regex) for regex in cases} == cases


def test_a_needle_is_in_every_line_its_signature_matches() -> None:
    # Every line of every recorded log under tests/data, with and without its timestamp prefix: the entries'
    # needles never hide a match, and match_line answers as it does without them.
    from argtrace.layers.log.analyze import split_prefix

    catalog = load_catalog()
    # logs6: vllm-worker-proc-init-failed; logs18: sglang-kv-pool-exhausted; logs19: ray-worker-died,
    # vllm-api-server-proc-died; logs20: the five router entries (LG015), nccl-watchdog-collective-timeout;
    # logs21: gloo-monitored-barrier-rank0; logs25: vllm-engine-core-hit-exception,
    # vllm-worker-failed-with-error, vllm-engine-core-proc-died; logs26: vllm-no-kv-cache-memory lost its
    # needle (it also reads the negative ``Available KV cache memory: -0.83 GiB`` its check raises on);
    # logs28: compiled-extension-torch-abi, compiled-extension-cuda-driver-symbol, cuda-no-kernel-image
    # (cuda-illegal-memory-access has none: two alternatives); sgl29: sglang-mamba-conv-dtype-kernel,
    # sglang-mamba-conv-dtype-index-put; logs29: vllm-spec-draft-model-unsupported; sgl30: marlin-repack-tile,
    # sglang-compressed-tensors-scheme-undefined, sglang-rerank-template-messages,
    # sglang-embedding-request-on-generation-model (rocm-no-kernel-for-gfx has none: three alternatives);
    # sgl32: sglang-pd-decode-no-draft-input
    assert sum(1 for sig in catalog.signatures if sig.needle) == 67
    lines = []
    for path in sorted((REPO / "tests" / "data").rglob("*.log")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            lines += [line, split_prefix(line).body]
    matched = 0
    for line in lines:
        for sig in catalog.signatures:
            if sig.pattern.search(line):
                matched += 1
                assert sig.needle in line, (sig.id, line)
                assert not sig.needles or any(needle in line for needle in sig.needles), (sig.id, line)
        for framework in ("sglang", "vllm", None):
            plain = next(
                (
                    sig
                    for sig in catalog.signatures
                    if (framework is None or sig.framework in ("any", framework))
                    and sig.when_stage is None
                    and sig.frames is None  # an entry for the frames that raised: no frames here
                    and sig.pattern.search(line)
                ),
                None,
            )
            found = match_line(line, framework=framework, stage=None, catalog=catalog)
            assert (found[0] if found else None) is plain, line
    assert matched >= 40


def test_alternative_needles_are_the_literal_start_of_each_alternative() -> None:
    cases = {
        "CUDA out of memory|OutOfMemoryError|GPU \\d+ has": (
            "CUDA out of memory",
            "OutOfMemoryError",
            "GPU ",
        ),
        "^Killed$|Killed process \\d+|oom-kill": ("Killed", "Killed process ", "oom-kill"),
        "(?:Prefill|Decode) failed|KVTransferError\\(room": ("Prefill", "Decode", "KVTransferError(room"),
        "(?:a|b)?c|d": (),  # the group may be absent
        "(?:a|[bc])x|d": (),  # a class starts an alternative
        "(?i)abc|def": (),  # a flag
        "abc|": (),  # an empty alternative matches anywhere
        "a|a": ("a",),
        "abc": (),  # one literal start: the entry's needle
        "[|]x|y": (),
        "x[|]|y": ("x", "y"),
    }
    assert {regex: alternative_needles(regex) for regex in cases} == cases
    # 24 of the 31 entries without a needle (logs38); the other seven start with a class, a flag or \\b
    catalog = load_catalog()
    assert sum(1 for sig in catalog.signatures if sig.needles) == 24
    assert not any(sig.needle and sig.needles for sig in catalog.signatures)


def test_the_frames_that_raised_decide_between_two_readings_of_one_line() -> None:
    # vllm#11617: EADDRINUSE raised in vLLM's own free-port search is not the HTTP port taken
    line = "OSError: [Errno 98] Address already in use"
    own = '  File "/venv/lib/python3.10/site-packages/vllm/utils.py", line 572, in get_open_port'
    http = '  File "/venv/lib/python3.12/site-packages/uvicorn/server.py", line 161, in startup'
    found = {
        frames: hit[0].id if (hit := match_line(line, framework="vllm", stage=None, frames=frames)) else None
        for frames in (own, http, "")
    }
    assert found == {own: "vllm-free-port-search", http: "port-in-use", "": "port-in-use"}
    # only vLLM's own function: another package's get_open_port binding the HTTP port is the port taken
    other = own.replace("site-packages/vllm/utils.py", "site-packages/myserver/net.py")
    hit = match_line(line, framework="sglang", stage=None, frames=other)
    assert hit is not None and hit[0].id == "port-in-use"


def _required_prefix_walked(regex: str) -> str:
    """``required_prefix`` as it was until logspeed28: one character at a time (the reference)."""
    if _alternation_walked(regex):
        return ""
    out: list[str] = []
    i = 1 if regex.startswith("^") else 0
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            if i + 1 >= len(regex) or regex[i + 1].isalnum():
                break
            literal, step = regex[i + 1], 2
        elif c in ".^$*+?{}[]()|\\":
            break
        else:
            literal, step = c, 1
        after = regex[i + step : i + step + 1]
        if after and after in "*?{":
            break
        out.append(literal)
        i += step
        if after == "+":
            break
    return "".join(out)


def _alternation_walked(regex: str) -> bool:
    depth, i, in_class = 0, 0, False
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            i += 2 if regex[i + 1 : i + 2] == "^" else 1
            if regex[i : i + 1] == "]":
                i += 1
            continue
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return True
        i += 1
    return False


def test_required_prefix_answers_as_the_character_walk_did() -> None:
    # every catalog entry, and 20,000 random strings over the characters that matter (escapes of letters,
    # digits, punctuation, a backslash, a newline and a non-ASCII letter and digit, quantifiers after each)
    import random

    patterns = [sig.regex for sig in load_catalog().signatures]
    rng = random.Random(28)
    alphabet = ["a", "b", " ", "\\", "\\\\", "\\.", "\\d", "\\n", "\n", "é", "٣", "\\é", "\\٣", "\\_"]
    alphabet += list(".^$*+?{}[]()|_-:=")
    for _ in range(20_000):
        patterns.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))))
    assert [required_prefix(p) for p in patterns] == [_required_prefix_walked(p) for p in patterns]
    assert [_top_level_alternation(p) for p in patterns] == [_alternation_walked(p) for p in patterns]
    assert sum(map(_top_level_alternation, patterns)) > 1000  # both answers were tried
    assert sum(1 for sig in load_catalog().signatures if sig.needle) == 67


def test_the_catalog_kept_between_runs_equals_the_one_parsed_from_the_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from argtrace.layers.log import signatures
    from argtrace.resolver import data_cache

    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(tmp_path))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    parsed = signatures.parse_catalog(json.loads(DATA.read_text(encoding="utf-8")))
    before = len(data_cache.paths_read())
    loaded = []
    try:
        for _ in range(2):  # the first run builds and keeps the copy, the second reads it
            signatures.load_catalog.cache_clear()
            loaded.append(signatures.load_catalog())
    finally:
        signatures.load_catalog.cache_clear()
    kept = [p for p in data_cache.paths_read()[before:] if "error-signatures-" in p]
    assert len(kept) == 1 and kept[0].startswith(str(tmp_path))
    for catalog in loaded:
        assert catalog == parsed
        assert catalog.version == parsed.version == 1
        # the same instances as __init__ makes: type, every field (order included) and its value's type
        for got, want in zip(catalog.signatures, parsed.signatures, strict=True):
            assert type(got) is Signature
            assert list(got.__dict__.items()) == list(want.__dict__.items())
            assert [type(v) for v in got.__dict__.values()] == [type(v) for v in want.__dict__.values()]
            assert got.pattern.pattern == want.regex  # the cached_property still compiles on first use
    # a catalog edited since (its file's size or time changed) is parsed again, never served the old copy
    package = tmp_path / "argtrace"
    module = package / "layers" / "log" / "signatures.py"
    module.parent.mkdir(parents=True)
    module.write_text(Path(signatures.__file__).read_text(encoding="utf-8"), encoding="utf-8")
    (package / "data").mkdir()
    json_file = package / "data" / signatures.CATALOG_FILE
    json_file.write_text(DATA.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(signatures, "__file__", str(module))
    counts = []
    try:
        for keep in (None, 3):
            if keep is not None:
                raw = json.loads(DATA.read_text(encoding="utf-8"))
                raw["signatures"] = raw["signatures"][:keep]
                json_file.write_text(json.dumps(raw), encoding="utf-8")
            signatures.load_catalog.cache_clear()
            counts.append(len(signatures.load_catalog().signatures))
    finally:
        signatures.load_catalog.cache_clear()
    assert counts == [len(parsed.signatures), 3]
