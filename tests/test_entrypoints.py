"""One flag list per entry point (frameworks/entrypoints.py, data/entrypoint_index.json from
scripts/gen_entrypoint_index.py) and `why` on argparse's "unrecognized arguments"
(commands/why_unrecognized.py), on the real pairs found in the bundled parsers.

Sources: vllm#2909 (https://github.com/vllm-project/vllm/issues/2909, `--lora-modules` on the demo server),
vllm#13669 (https://github.com/vllm-project/vllm/issues/13669, `vllm: error: unrecognized arguments:
--lora-path`); the other flags are the generated lists' own (no report needed: the parsers say it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.commands.why_unrecognized import unrecognized_site
from argtrace.frameworks.entrypoints import (
    entrypoint,
    entrypoints_for_prog,
    other_entrypoints_taking,
    refused_everywhere,
)
from argtrace.frameworks.feature_pairs import same_feature_in
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent


def check(command: str, tmp_path: Path, *options: str) -> list[tuple[str, str, str, str | None]]:
    result = run_cli(["check", "--format", "json", *options, "-c", command], cwd=tmp_path)
    report: dict[str, Any] = result.json
    return [
        (f["code"], f["severity"], f["message"], f["fix"])
        for f in report["findings"]
        if f["layer"] == "parser"
    ]


def test_the_index_is_generated_and_covers_each_entry_point() -> None:
    data = json.loads((ROOT / "src/argtrace/frameworks/data/entrypoint_index.json").read_text())
    assert data["generated_by"] == "scripts/gen_entrypoint_index.py"
    counts = {name: len(e["releases"]) for name, e in data["entrypoints"].items()}
    assert counts == {
        "vllm serve": 29,
        "vllm.entrypoints.openai.api_server": 29,
        "vllm.entrypoints.api_server": 19,
        "sglang.launch_server": 34,
        "sglang serve": 19,
        "sglang serve (diffusion)": 20,
        "sglang_router.launch_server": 34,
    }
    demo = entrypoint("vllm.entrypoints.api_server")
    assert demo is not None
    assert demo.missing["0.7.3"].startswith("its __main__ block raises before parsing: TypeError")
    assert demo.missing["0.33.0"] == "No module named vllm.entrypoints.api_server"
    assert (demo.option_counts["0.6.6.post1"], demo.option_counts["0.24.0"]) == (114, 293)
    # the OpenAI server parses make_arg_parser alone: in 0.6.6.post1 without what `vllm serve` adds to it
    openai = entrypoint("vllm.entrypoints.openai.api_server")
    serve = entrypoint("vllm serve")
    assert openai is not None and serve is not None
    assert (serve.option_counts["0.6.6.post1"], openai.option_counts["0.6.6.post1"]) == (135, 134)
    assert serve.option_counts["0.33.0"] == openai.option_counts["0.33.0"] == 435


def test_program_names_find_the_entry_points() -> None:
    assert [e.name for e in entrypoints_for_prog("api_server.py")] == [
        "vllm.entrypoints.openai.api_server",
        "vllm.entrypoints.api_server",
    ]
    assert [e.name for e in entrypoints_for_prog("vllm")] == ["vllm serve"]
    # prepare_server_args builds its parser with prog="sglang serve" for both programs
    assert [e.name for e in entrypoints_for_prog("sglang serve")] == ["sglang.launch_server", "sglang serve"]


def test_a_flag_of_another_entry_point() -> None:
    takers = other_entrypoints_taking("vllm", "vllm.entrypoints.api_server", "--lora-modules")
    assert [(e.name, r[0], r[-1]) for e, r in takers] == [
        ("vllm serve", "0.6.6.post1", "0.33.0"),
        ("vllm.entrypoints.openai.api_server", "0.6.6.post1", "0.33.0"),
    ]
    # the demo is gone from the newest release: no release can bring the flag to it
    assert refused_everywhere("vllm.entrypoints.api_server", "--lora-modules")
    assert not refused_everywhere("vllm.entrypoints.api_server", "--max-model-len")
    # launch_server still exists: a newer release could take the word
    assert not refused_everywhere("sglang.launch_server", "--num-gpus")


def test_the_demo_servers_engine_flag_is_not_an_alarm(tmp_path: Path) -> None:
    found = check(
        "python -m vllm.entrypoints.api_server --model Qwen/Qwen3-8B --max-model-len 4096 --port 8001",
        tmp_path,
        "--framework-version",
        "0.8.5.post1",
    )
    assert [f for f in found if f[1] in ("error", "warning")] == []


def test_the_openai_servers_lora_flag_on_the_demo_server_is_an_error(tmp_path: Path) -> None:
    found = [
        f
        for f in check(
            "python -m vllm.entrypoints.api_server --model m --enable-lora --lora-modules a=/adapters/a",
            tmp_path,
            "--framework-version",
            "0.8.5.post1",
        )
        if f[0] == "PA001"
    ]
    assert found == [
        (
            "PA001",
            "error",
            "--lora-modules is not an option of `python -m vllm.entrypoints.api_server` in vllm 0.8.5.post1 "
            "nor "
            "in any bundled release where it parses (0.6.6.post1, 0.8.5.post1-0.24.0): its parser "
            "(parse_args) "
            'refuses it: the server refuses to start ("unrecognized arguments", exit 2); --lora-modules is '
            "taken by `vllm serve` and `python -m vllm.entrypoints.openai.api_server` (vllm "
            "0.6.6.post1-0.33.0)",
            "start vllm serve (or python -m vllm.entrypoints.openai.api_server), whose parser takes "
            "--lora-modules, instead of python -m vllm.entrypoints.api_server",
        )
    ]
    # the same words on the OpenAI server: no alarm
    assert [
        f
        for f in check(
            "python -m vllm.entrypoints.openai.api_server --model m --enable-lora --lora-modules "
            "a=/adapters/a",
            tmp_path,
            "--framework-version",
            "0.8.5.post1",
        )
        if f[1] in ("error", "warning")
    ] == []


def test_a_diffusion_flag_on_launch_server_names_the_diffusion_server(tmp_path: Path) -> None:
    found = [
        f
        for f in check(
            "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --num-gpus 2",
            tmp_path,
            "--framework-version",
            "0.5.23",
        )
        if f[0] == "PA001"
    ]
    assert found == [
        (
            "PA001",
            "error",
            "--num-gpus is not an option of `python -m sglang.launch_server` in sglang 0.5.23 nor in any "
            "bundled "
            "release where it parses (0.4.0.post2-0.5.23): its parser (parse_args) refuses it: the server "
            'refuses to start ("unrecognized arguments", exit 2); --num-gpus is taken by `sglang serve (a '
            "diffusion model)` (sglang 0.5.5, 0.5.5.post3-0.5.23)",
            "remove the flag (for a diffusion model, sglang serve takes it)",
        )
    ]


def test_a_router_flag_on_launch_server_names_the_routers_launcher(tmp_path: Path) -> None:
    found = [
        f
        for f in check(
            "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --router-policy round_robin",
            tmp_path,
            "--framework-version",
            "0.5.23",
        )
        if f[0] == "PA001"
    ]
    assert found == [
        (
            "PA001",
            "error",
            "--router-policy is not an option of `python -m sglang.launch_server` in sglang 0.5.23 nor in "
            "any "
            "bundled release where it parses (0.4.0.post2-0.5.23): its parser (parse_args) refuses it: the "
            'server refuses to start ("unrecognized arguments", exit 2); --router-policy is taken by '
            "`python -m "
            "sglang_router.launch_server` (sglang-router 0.3.2)",
            "start python -m sglang_router.launch_server, whose parser takes --router-policy, instead of "
            "python -m sglang.launch_server",
        )
    ]


# --- the same feature in the other framework, from the two parsers' names and help texts -----------------


@pytest.mark.parametrize(
    ("framework", "other_dest", "dest"),
    [
        ("vllm", "lora_paths", "lora_modules"),
        ("sglang", "lora_modules", "lora_paths"),
        ("vllm", "speculative_num_draft_tokens", "num_speculative_tokens"),
        ("vllm", "max_loras_per_batch", "max_loras"),
        ("vllm", "dist_timeout", "distributed_timeout_seconds"),
        ("sglang", "mamba_ssm_cache_dtype", "mamba_ssm_dtype"),
        ("sglang", "limit_mm_per_prompt", "limit_mm_data_per_request"),
    ],
)
def test_generated_same_feature_pairs(framework: str, other_dest: str, dest: str) -> None:
    pair = same_feature_in(framework, other_dest)
    assert pair is not None and pair.dest == dest


def test_no_pair_for_a_feature_the_other_framework_lacks() -> None:
    # --enable-lora is the same dest in both (equivalents.py's business); SGLang's radix cache knobs have none
    assert same_feature_in("vllm", "enable_lora") is None
    assert same_feature_in("vllm", "radix_eviction_policy") is None


def test_why_on_sglangs_lora_flag_in_vllm() -> None:
    site = unrecognized_site("vllm: error: unrecognized arguments: --lora-path")
    assert site is not None
    assert (site["framework"], site["function"], site["file"], site["line"]) == (
        "vllm",
        "FlexibleArgumentParser.parse_args",
        "vllm/entrypoints/common/cli_args.py",
        431,
    )
    assert site["entrypoints"] == ["vllm serve"]
    assert site["settings"] == [
        {"name": "lora_modules", "flag": "--lora-modules", "same_feature_as": "--lora-paths"}
    ]
    assert site["fix"] == (
        "--lora-path is not a vLLM flag in any bundled release; it is SGLang's (an abbreviation of "
        "--lora-paths, "
        "sglang 0.4.0.post2-0.5.23); vLLM sets the same feature with --lora-modules name=path (with "
        "--enable-lora), by a pair read from the two parsers' names and help texts (cosine 0.43), not a "
        "checked "
        "equivalent"
    )


def test_why_on_vllms_lora_flag_in_sglang() -> None:
    site = unrecognized_site("sglang serve: error: unrecognized arguments: --lora-modules a=/adapters/a")
    assert site is not None
    assert site["framework"] == "sglang"
    assert site["entrypoints"] == ["python -m sglang.launch_server", "sglang serve"]
    assert [s["name"] for s in site["settings"]] == ["lora_paths"]


def test_why_on_a_hand_checked_equivalent_and_a_generated_pair() -> None:
    tp = unrecognized_site("vllm: error: unrecognized arguments: --tp-size 2")
    assert tp is not None
    assert tp["fix"] == (
        "--tp-size is not a vLLM flag in any bundled release; it is SGLang's (its flag, sglang "
        "0.4.0.post2-0.5.23); vLLM sets the same feature with --tensor-parallel-size, by argtrace's table of "
        "equivalents (frameworks/equivalents.py)"
    )
    spec = unrecognized_site("launch_server.py: error: unrecognized arguments: --num-speculative-tokens 3")
    assert spec is not None
    assert [s["name"] for s in spec["settings"]] == ["speculative_num_draft_tokens"]


def test_why_on_the_demo_server_names_the_openai_server() -> None:
    first = explain("api_server.py: error: unrecognized arguments: --lora-modules sql-lora=/a")["matches"][0]
    assert first["entrypoints"] == ["python -m vllm.entrypoints.api_server"]
    assert first["fix"] == (
        "--lora-modules is taken by `vllm serve` and `python -m vllm.entrypoints.openai.api_server` (vllm "
        "0.6.6.post1-0.33.0), never by `python -m vllm.entrypoints.api_server`: start the program that "
        "takes it"
    )


def test_why_on_a_misspelling_and_a_removed_flag() -> None:
    typo = unrecognized_site("vllm: error: unrecognized arguments: --tensor-paralel-size 2")
    assert typo is not None and typo["fix"] == (
        "--tensor-paralel-size is not a vLLM flag in any bundled release; did you mean "
        "--tensor-parallel-size?"
    )
    removed = unrecognized_site("vllm: error: unrecognized arguments: --enable-reasoning")
    assert removed is not None and removed["fix"] == (
        "--enable-reasoning is taken by vllm 0.7.3-0.9.2: the release that refused it is not one of them; "
        "in vllm 0.10.2-0.33.0 the setting is --reasoning-parser"
    )


def test_why_without_a_program_and_a_flag_of_both_frameworks_ranks_nothing_new() -> None:
    # --served-model-name is a flag of both: neither the program nor the word says which parser refused it
    assert unrecognized_site("error: unrecognized arguments: --served-model-name minimax-h3") is None
    assert unrecognized_site("ValueError: something else") is None


def test_sglang_serve_in_a_release_without_it(tmp_path: Path) -> None:
    found = [
        (code, severity, message, fix)
        for code, severity, message, fix in _all(
            "sglang serve --model-path Qwen/Qwen3-8B", tmp_path, "--framework-version", "0.5.2"
        )
        if code == "PR040"
    ]
    assert found == [
        (
            "PR040",
            "error",
            "`sglang serve` does not run in sglang 0.5.2: ModuleNotFoundError: No module named 'sglang.cli' "
            "(read from the release when its parser was generated); of the bundled releases, "
            "0.5.5.post3-0.5.23 have it",
            "use `python -m sglang.launch_server` with the same flags, or a release that has `sglang serve`",
        )
    ]
    # a release with it: nothing
    later = _all("sglang serve --model-path Qwen/Qwen3-8B", tmp_path, "--framework-version", "0.5.5.post3")
    assert [f for f in later if f[0] == "PR040"] == []


def _all(command: str, tmp_path: Path, *options: str) -> list[tuple[str, str, str, str | None]]:
    result = run_cli(["check", "--format", "json", *options, "-c", command], cwd=tmp_path)
    return [(f["code"], f["severity"], f["message"], f["fix"]) for f in result.json["findings"]]


def test_the_index_is_what_the_generator_writes() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts/gen_entrypoint_index.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert (proc.returncode, proc.stdout) == (0, "equal\n"), proc.stderr


def test_check_on_sglangs_abbreviated_lora_flag_in_vllm(tmp_path: Path) -> None:
    # vllm#13669's flag in a launch: SGLang's parser takes --lora-path for --lora-paths (allow_abbrev); it
    # was PA001 "did you mean --root-path?" (same last word, another feature)
    found = [
        f
        for f in _all("vllm serve Qwen/Qwen3-8B --enable-lora --lora-path a=/x", tmp_path)
        if f[0][:2] == "PA"
    ]
    assert found == [
        (
            "PA002",
            "error",
            "--lora-path is an SGLang flag (its parser takes it for --lora-paths); vLLM rejects it with "
            '"unrecognized arguments" (exit 2); vLLM\'s --lora-modules may set the same feature (a pair read '
            "from the two parsers' names and help texts, cosine 0.43, not checked)",
            "remove the flag, or use --lora-modules if it is the same feature",
        )
    ]


def test_check_names_no_pair_the_release_lacks(tmp_path: Path) -> None:
    # the pair's vLLM flag --num-speculative-tokens left the command line after 0.7.3 (speculative config)
    new = [
        f
        for f in _all(
            "vllm serve m --speculative-num-draft-tokens 3", tmp_path, "--framework-version", "0.33.0"
        )
    ]
    assert [(f[0], f[3]) for f in new if f[0] == "PA002"] == [
        ("PA002", "remove the flag (argtrace knows no vLLM flag that does the same)")
    ]
    old = [
        f
        for f in _all(
            "vllm serve m --speculative-num-draft-tokens 3", tmp_path, "--framework-version", "0.7.3"
        )
    ]
    assert [(f[0], f[3]) for f in old if f[0] == "PA002"] == [
        ("PA002", "remove the flag, or use --num-speculative-tokens if it is the same feature")
    ]


def test_why_names_the_releases_of_a_pair_the_newest_lacks() -> None:
    site = unrecognized_site("vllm: error: unrecognized arguments: --speculative-num-draft-tokens 4")
    assert site is not None
    assert site["fix"] == (
        "--speculative-num-draft-tokens is not a vLLM flag in any bundled release; it is SGLang's (its flag, "
        "sglang 0.4.1.post7-0.5.23); vLLM sets the same feature with --num-speculative-tokens (in vllm "
        "0.6.6.post1-0.7.3), by a pair read from the two parsers' names and help texts (cosine 0.83), not a "
        "checked equivalent"
    )
