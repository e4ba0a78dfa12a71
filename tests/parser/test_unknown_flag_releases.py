"""An unknown flag's finding names the releases the data gives, and reads one other release to say so
(issue 15: ``Releases.knowing`` asks the flag -> releases index instead of loading every bundled schema)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks import schema as schema_module
from argtrace.frameworks.release_index import release_index
from argtrace.frameworks.schema import load_schema
from argtrace.layers.parser import parse_server_args
from argtrace.model import LayerResult

from .helpers import server

FLAG = "--mamba-scheduler-strategy"  # SGLang: known up to a release, dropped after it (from the data)


def knowing(framework: str, flag: str) -> tuple[str, ...]:
    return release_index(framework).releases_knowing_flag(flag)


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[tuple[str, str]]:
    """Every (framework, version) the code asks ``load_schema`` for, with no user-generated schemas."""
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path))
    seen: list[tuple[str, str]] = []
    real = schema_module.load_schema

    def spy(framework: str, version: str) -> Any:
        seen.append((framework, version))
        return real(framework, version)

    monkeypatch.setattr(schema_module, "load_schema", spy)
    return seen


def parse(framework: str, version: str, args: list[str], entrypoint: str) -> LayerResult:
    return parse_server_args(server(args, entrypoint=entrypoint), load_schema(framework, version))


def test_a_dropped_flag_names_the_last_release_that_knew_it_and_reads_only_that_one(
    loads: list[tuple[str, str]],
) -> None:
    newest = release_index("sglang").releases[-1]
    last = knowing("sglang", FLAG)[-1]
    assert last != newest
    analysed = load_schema("sglang", newest)
    loads.clear()
    r = parse("sglang", newest, ["--model-path", "/m", FLAG, "extra_buffer"], "sglang.launch_server")
    assert [f.code for f in r.findings] == ["PA003"]
    assert r.findings[0].message == (
        f"{FLAG} was accepted up to {load_schema('sglang', last).label} but {analysed.label} does not know "
        'it: the server refuses to start ("unrecognized arguments", exit 2); in '
        f"{analysed.label} the setting is --mamba-radix-cache-strategy"
    )
    assert loads == [("sglang", last)]


def test_a_flag_added_later_names_the_first_release_that_knows_it(loads: list[tuple[str, str]]) -> None:
    """vLLM 0.30.0's --enable-mamba-fine-grained-prefix-cache is the data's one-release flag; on the release
    before it the finding says where it starts."""
    flag = "--enable-mamba-fine-grained-prefix-cache"
    releases = release_index("vllm").releases
    inside = knowing("vllm", flag)
    if not inside or inside[0] == releases[0]:
        pytest.skip(f"{flag}: no bundled vLLM release before the first that knows it")
    before = releases[releases.index(inside[0]) - 1]
    first = load_schema("vllm", inside[0])
    loads.clear()
    r = parse("vllm", before, ["/m", flag], "vllm serve")
    assert [f.code for f in r.findings] == ["PA004"]
    assert r.findings[0].message == (
        f"{flag} only exists from {first.label} on; {load_schema('vllm', before).label} rejects it with "
        '"unrecognized arguments" (exit 2)'
    )
    assert r.findings[0].fix == f"upgrade to {first.version} or drop the flag"
    assert loads == [("vllm", inside[0])]


def test_the_other_frameworks_flag_reads_its_newest_knowing_release_only(
    loads: list[tuple[str, str]],
) -> None:
    newest_vllm = release_index("vllm").releases[-1]
    newest_sglang = knowing("sglang", "--mem-fraction-static")[-1]
    loads.clear()
    r = parse("vllm", newest_vllm, ["/m", "--mem-fraction-static", "0.8"], "vllm serve")
    assert [f.code for f in r.findings] == ["PA002"]
    assert r.findings[0].message == (
        '--mem-fraction-static is an SGLang flag; vLLM rejects it with "unrecognized arguments" (exit 2); '
        "the vLLM equivalent is --gpu-memory-utilization"
    )
    assert loads == [("sglang", newest_sglang)]
