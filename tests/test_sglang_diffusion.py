"""`sglang serve`'s diffusion backend (frameworks/sglang_diffusion.py): which server the words go to, and
the words that server refuses, against the parser options generated from the real packages
(data/sglang_diffusion_options.json)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks.sglang_diffusion import check_words, newer_takers, release_data, table_for
from argtrace.resolver import environments
from tests.conftest import run_cli

SG10 = ("--framework-version", "0.5.10.post1")
SG23 = ("--framework-version", "0.5.23")


def check(command: str, version: tuple[str, ...]) -> list[dict[str, Any]]:
    result = run_cli(["check", "--format", "json", *version, "-c", command])
    assert result.stdout.startswith("{"), result.stderr
    findings: list[dict[str, Any]] = result.json["findings"]
    return findings


def codes(findings: list[dict[str, Any]], *wanted: str) -> list[tuple[str, str, str]]:
    return [(f["code"], f["severity"], f["message"]) for f in findings if f["code"] in wanted]


def test_explicit_diffusion_backend_refuses_only_what_its_parser_lacks() -> None:
    findings = check(
        "sglang serve --model-type diffusion --model-path /m --num-gpus 2 --ulysses-degree 2 "
        "--served-model-name x",
        SG10,
    )
    assert codes(findings, "PA001", "PA002", "PA028") == [
        (
            "PA001",
            "warning",
            "--served-model-name is not an option of SGLang 0.5.10.post1's diffusion server, which `sglang "
            'serve` runs for a diffusion model: it stops with "error: unrecognized arguments" '
            "(ServerArgs.from_cli_args of sglang/multimodal_gen); SGLang 0.5.18's diffusion server and every "
            "later release read take it",
        )
    ]
    pa001 = next(f for f in findings if f["code"] == "PA001")
    assert pa001["fix"] == "remove the flag, or run SGLang 0.5.18 or later, whose diffusion server has it"
    assert pa001["basis"] == "assumed"
    assert pa001["setting"] == "served_model_name"


def test_equals_form_and_dynamic_component_options_are_the_diffusion_servers() -> None:
    findings = check(
        "sglang serve --model-type=diffusion --model-path /m --served-model-name x --vae-path /v "
        "--bogus-flag 1",
        SG23,
    )
    assert [(c, s) for c, s, _m in codes(findings, "PA001", "PA002", "PA028")] == [("PA001", "warning")]
    assert codes(findings, "PA001")[0][2].startswith("--bogus-flag is not an option of SGLang 0.5.23's")


def test_diffusion_flags_without_model_type_are_read_as_a_diffusion_launch() -> None:
    findings = check("sglang serve --model-path /m --num-gpus 2 --ulysses-degree 2 --port 30010", SG23)
    assert codes(findings, "PA001", "PA002", "PA028") == [
        (
            "PA028",
            "info",
            "--num-gpus, --ulysses-degree are options of SGLang 0.5.23's diffusion server "
            "(sglang/multimodal_gen), not of the LLM server: read as a diffusion model's launch, the words "
            "are checked against that server's parser; `sglang serve` decides from the model (the diffusion "
            "registry, model_index.json), which argtrace does not read",
        )
    ]
    assert next(f for f in findings if f["code"] == "PA028")["basis"] == "assumed"


def test_an_llm_serve_with_a_typo_still_gets_its_pa001() -> None:
    findings = check("sglang serve --model-path /m --mem-fraction-statc 0.8", SG23)
    found = codes(findings, "PA001", "PA028")
    assert [(c, s) for c, s, _m in found] == [("PA001", "error")]
    assert found[0][2].startswith("--mem-fraction-statc is not a sglang 0.5.23 flag")


def test_model_type_llm_sends_a_diffusion_flag_to_the_llm_parser() -> None:
    findings = check("sglang serve --model-type llm --model-path /m --num-gpus 2", SG23)
    found = codes(findings, "PA001", "PA028")
    assert [(c, s) for c, s, _m in found] == [("PA001", "error")]
    # the flag is the diffusion server's (frameworks/entrypoints.py): the message says which parser refused it
    assert found[0][2].startswith(
        "--num-gpus is not an option of `sglang serve`'s LLM server in sglang 0.5.23 nor in any bundled "
        "release where it parses (0.5.5.post3-0.5.23)"
    )
    assert found[0][2].endswith(
        "--num-gpus is taken by `sglang serve (a diffusion model)` (sglang 0.5.5, 0.5.5.post3-0.5.23)"
    )


@pytest.mark.parametrize(
    ("version", "table"),
    [
        ("0.5.4.post3", None),  # no sglang/multimodal_gen in the wheel
        ("0.5.5", "0.5.5"),  # the first release that ships it
        ("0.5.9", "0.5.9"),
        ("0.5.10.post1", "0.5.10.post1"),
        ("0.5.15.post1", "0.5.15.post1"),
        ("0.5.16", "0.5.16"),
        ("0.5.16.post1", "0.5.16"),  # not read: the nearest older release read stands in
        ("0.5.23", "0.5.23"),
    ],
)
def test_a_release_uses_its_own_table_or_the_nearest_older_one(version: str, table: str | None) -> None:
    found = table_for(version)
    assert (found.release if found else None) == table


def test_a_stand_in_names_the_newer_releases_that_take_the_option() -> None:
    table = table_for("0.5.16.post1")
    assert table is not None
    assert newer_takers(table, "0.5.16.post1", "--model-variant") == [
        "0.5.17",
        "0.5.18",
        "0.5.19",
        "0.5.20",
        "0.5.21",
        "0.5.22",
        "0.5.23",
    ]
    # 0.5.16's own table refuses it too: the same releases are then the upgrade that has it
    own = table_for("0.5.16")
    assert own is not None and newer_takers(own, "0.5.16", "--model-variant")[:1] == ["0.5.17"]
    assert newer_takers(own, "0.5.16", "--model-varient") == []


def test_before_0_5_10_the_left_over_words_are_dropped_not_refused() -> None:
    findings = check(
        "sglang serve --model-path /m --num-gpus 2 --ulysses-degree 2 --bogus 1",
        ("--framework-version", "0.5.7"),
    )
    assert codes(findings, "PA001") == [
        (
            "PA001",
            "warning",
            "--bogus is not an option of SGLang 0.5.7's diffusion server, which `sglang serve` runs for a "
            "diffusion model: its parser (parse_known_args) leaves the word over and "
            "ServerArgs.from_cli_args of sglang/multimodal_gen ignores what is left, so the value is lost "
            "without an error",
        )
    ]
    assert [t.refuses_unknown for t in (table_for("0.5.9"), table_for("0.5.10.post1"))] == [False, True]


def test_the_walk_takes_values_by_nargs() -> None:
    table = table_for("0.5.23")
    assert table is not None
    words: list[str | None] = [
        "--model-path",
        "/m",
        "--num-gpus",
        "2",
        "stray",
        "--nope",
        "a",
        "b",
        "--port",
        "1",
    ]
    assert check_words(table, words).refused == [(4, "stray"), (5, "--nope")]


def test_the_generated_table_says_how_it_was_made() -> None:
    text = resources.files("argtrace.frameworks").joinpath("data/sglang_diffusion_options.json").read_text()
    data = json.loads(text)
    assert data["_generated"].startswith("by scripts/gen_sglang_diffusion_options.py")
    assert data["release_order"] == [
        "0.5.5",
        "0.5.5.post3",
        "0.5.6.post2",
        "0.5.7",
        "0.5.8.post1",
        "0.5.9",
        "0.5.10.post1",
        "0.5.11",
        "0.5.12.post1",
        "0.5.13.post1",
        "0.5.14",
        "0.5.15.post1",
        "0.5.16",
        "0.5.17",
        "0.5.18",
        "0.5.19",
        "0.5.20",
        "0.5.21",
        "0.5.22",
        "0.5.23",
    ]
    tables = release_data()
    # the shared storage rebuilds each release's table whole
    assert {v: len(r["options"]) for v, r in tables.items()} == {
        v: r["option_count"] for v, r in data["releases"].items()
    }
    assert [len(tables[v]["options"]) for v in ("0.5.5", "0.5.7", "0.5.10.post1", "0.5.16", "0.5.23")] == [
        88,
        65,
        82,
        150,
        202,
    ]
    assert "--served-model-name" in tables["0.5.23"]["options"]
    assert "--served-model-name" not in tables["0.5.10.post1"]["options"]
    assert tables["0.5.16"]["read_from"] == "sglang/multimodal_gen/runtime/server_args/server_args.py"
    assert tables["0.5.16"]["wheel"] == "sglang-0.5.16-cp311-cp311-manylinux_2_34_x86_64.whl"


@pytest.mark.skipif(
    environments.find_environment("sglang", "0.5.23") is None,
    reason="no resolver environment for sglang==0.5.23 (argtrace resolver add)",
)
def test_a_diffusion_launch_is_not_resolved_as_the_llm_server(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"architectures": ["LlamaForCausalLM"]}')
    findings = check(f"sglang serve --model-type diffusion --model-path {tmp_path} --num-gpus 2", SG23)
    assert [f["message"] for f in findings if f["code"] == "RS004"] == [
        "resolution skipped: the diffusion server's settings (sglang/multimodal_gen) are not resolved"
    ]


@pytest.mark.parametrize("written", ["--model-type llm", "--model-type=diffusion"])
def test_model_type_before_serve_had_it_is_refused_with_the_release_that_added_it(written: str) -> None:
    """0.5.5-0.5.9's serve.py has no --model-type (model_type_override false, read from the wheels): the
    word reaches the server's parser, which exits 2. One PA001 that names the release adding the selector,
    not the parser's near spelling (--model)."""
    command = f"sglang serve {written} --model-path /m"
    findings = check(command, ("--framework-version", "0.5.7", "--no-resolve"))
    assert [(f["code"], f["severity"], f["message"], f["fix"]) for f in findings] == [
        (
            "PA001",
            "error",
            "--model-type is not a sglang 0.5.7 flag: its `sglang serve` hands the word to the server's "
            'parser, which refuses it ("unrecognized arguments", exit 2); `sglang serve` takes it from '
            "0.5.10.post1 on",
            "remove --model-type (this release chooses the backend from the model), or run SGLang "
            "0.5.10.post1 or later",
        )
    ]
    assert check(command, (*SG10, "--no-resolve")) == []
