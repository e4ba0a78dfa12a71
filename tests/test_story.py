"""The reference story end to end: the shipped example, through every layer `check` runs.

"The Phantom Configuration" (shared/seed): the script asks for `--mamba-scheduler-strategy extra_buffer`,
SGLang dies saying `no_buffer`. The example loses the flag to a comment inside the continued command.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli
from tests.needs import unmet

EXAMPLE = REPO / "examples" / "launch_mtp.sh"
MODEL = REPO / "tests" / "data" / "models" / "qwen3.6-27b"
# `check` as the resolved half of the story runs it: SGLang 0.5.10.post1, the model's config, the GPU
RESOLVED = ["check", "--format", "json", "--framework-version", "0.5.10.post1", "--model-config", str(MODEL)]
RESOLVED += ["--gpu", "rtx-pro-6000"]
SGLANG_0510 = "resolver:sglang==0.5.10.post1"


def fixed_example(tmp_path: Path) -> Path:
    """The example with the comment line moved out of the command: the flags reach the server."""
    lines = EXAMPLE.read_text().splitlines(keepends=True)
    comment = next(i for i, line in enumerate(lines) if line.lstrip().startswith("# MTP"))
    script = tmp_path / "launch_mtp.sh"
    script.write_text("".join([lines[comment].lstrip(), *lines[:comment], *lines[comment + 1 :]]))
    return script


def test_static_check_finds_where_the_flag_was_lost() -> None:
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--no-resolve",
            "--framework-version",
            "0.5.10.post1",
            str(EXAMPLE),
            "0",
            "30000",
        ]
    )
    assert result.status == 1
    data = result.json
    assert data["framework"] == {
        "name": "sglang",
        "version": "0.5.10.post1",
        "source": "bundled-schema",
        "evidence": "named with --framework-version",
    }
    sh004 = [f for f in data["findings"] if f["code"] == "SH004"]
    assert [(f["severity"], f["at"]) for f in sh004] == [("error", f"{EXAMPLE}:27:5")]
    argv = data["process"]["argv"]
    assert "--mamba-scheduler-strategy" not in argv
    assert argv[-2:] == ["--speculative-num-draft-tokens", "4"]
    assert data["process"]["env"]["CUDA_VISIBLE_DEVICES"] == "0"
    # The flags the comment cut off keep the user's intent on record: written, never arrived, defaulted.
    strategy = next(s for s in data["settings"] if s["name"] == "mamba_scheduler_strategy")
    assert (strategy["intended"], strategy["effective"]) == ("extra_buffer", "auto")
    assert [(o["layer"], o["value"], o["at"]) for o in strategy["history"]] == [
        ("shell", "extra_buffer", f"{EXAMPLE}:27:5"),
        ("process", None, f"{EXAMPLE}:15:1"),
        ("parser", "auto", None),
    ]
    assert strategy["history"][0]["separated"] is True and strategy["history"][1]["absent"] is True
    ratio = next(s for s in data["settings"] if s["name"] == "mamba_full_memory_ratio")
    assert (ratio["intended"], ratio["effective"]) == ("0.5", 0.9)
    port = next(s for s in data["settings"] if s["name"] == "port")
    assert (port["intended"], port["effective"]) == ("30000", 30000)
    # Without a resolver the effective value stays the parser's: no framework rule is imitated.
    assert "resolution" not in data or data["resolution"]["status"] == "skipped"


@pytest.mark.frameworks
def test_the_real_resolver_reproduces_the_seed_error() -> None:
    if unmet([SGLANG_0510]):
        pytest.skip("needs the sglang 0.5.10.post1 resolver environment (scripts/build_test_envs)")
    argv = [*RESOLVED, str(EXAMPLE), "0", "30000"]
    result = run_cli(argv)
    assert result.status == 1
    data = result.json
    assert data["framework"] == {
        "name": "sglang",
        "version": "0.5.10.post1",
        # the code that ran for the release the user named (the contract), and who named it
        "source": "resolver-env",
        "evidence": "named with --framework-version",
    }
    resolution = data["resolution"]
    assert resolution["status"] == "raised"
    assert resolution["at"] == "sglang/srt/server_args.py:2206"
    assert resolution["function"] == "_handle_mamba_radix_cache"
    strategy = next(s for s in data["settings"] if s["name"] == "mamba_scheduler_strategy")
    assert (strategy["intended"], strategy["effective"]) == ("extra_buffer", "no_buffer")
    assert [o["layer"] for o in strategy["history"]] == ["shell", "process", "parser", "resolution"]
    write = strategy["history"][-1]
    assert (write["layer"], write["value"], write["old"], write["at"], write["by"]) == (
        "resolution",
        "no_buffer",
        "auto",
        "sglang/srt/server_args.py:967",
        "ServerArgs._handle_missing_default_values",
    )
    # the seed's ValueError follows from the comment that cut the flag off: one RS001, SH004's consequence
    (sh004,) = [f for f in data["findings"] if f["code"] == "SH004"]
    assert [(c["code"], c["at"]) for c in sh004["consequences"]] == [
        ("RS001", "sglang/srt/server_args.py:2206"),
        ("MM001", None),
    ]
    assert "RS001" not in [f["code"] for f in data["findings"]]
    verbose = run_cli([*argv[:1], "--verbose", *argv[1:]]).json["findings"]
    (rs001,) = [f for f in verbose if f["code"] == "RS001"]
    assert verbose[rs001["cause"]]["code"] == "SH004"
    assert rs001["setting"] == "mamba_scheduler_strategy"
    assert "extra_buffer" in rs001["fix"] and "--disable-radix-cache" in rs001["fix"]
    assert "reads speculative_algorithm = 'NEXTN' (from the command line)" in [
        e["text"] for e in rs001["evidence"]
    ]


@pytest.mark.frameworks
def test_with_the_flag_delivered_the_seed_error_is_gone(tmp_path: Path) -> None:
    if unmet([SGLANG_0510]):
        pytest.skip("needs the sglang 0.5.10.post1 resolver environment (scripts/build_test_envs)")
    script = fixed_example(tmp_path)
    result = run_cli([*RESOLVED, str(script), "0", "30000"])
    data = result.json
    assert data["resolution"]["status"] == "ok"
    assert not [
        f
        for f in data["findings"]
        if f["layer"] in ("shell", "parser", "resolution") and f["severity"] == "error"
    ]
    strategy = next(s for s in data["settings"] if s["name"] == "mamba_scheduler_strategy")
    assert (strategy["intended"], strategy["effective"]) == ("extra_buffer", "extra_buffer")


@pytest.mark.frameworks
def test_an_alias_normalisation_is_info_and_an_override_a_warning() -> None:
    if unmet([SGLANG_0510]):
        pytest.skip("needs the sglang 0.5.10.post1 resolver environment (scripts/build_test_envs)")
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--no-shellcheck",
            "--framework-version",
            "0.5.10.post1",
            "--model-config",
            str(MODEL),
            "--gpu",
            "rtx-pro-6000",
            "-c",
            "python3 -m sglang.launch_server --model-path /m --speculative-algorithm NEXTN"
            " --mamba-scheduler-strategy extra_buffer",
        ]
    )
    rs002 = {f["setting"]: f for f in result.json["findings"] if f["code"] == "RS002"}
    assert rs002["speculative_algorithm"]["severity"] == "info"
    assert rs002["speculative_algorithm"]["message"] == (
        "speculative_algorithm: the user set 'NEXTN'; ServerArgs._handle_speculative_decoding "
        "(sglang/srt/server_args.py:2984) changed it to 'EAGLE' "
        "(a normalisation: it depends only on this value, `self.speculative_algorithm == 'NEXTN'`)"
    )


def test_all_settings_lists_every_field_with_its_default() -> None:
    from argtrace.frameworks.schema import load_schema
    from argtrace.layers.parser import all_defaults

    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--no-resolve",
            "--no-shellcheck",
            "--all-settings",
            "--framework-version",
            "0.5.10.post1",
            "-c",
            "python -m sglang.launch_server --model-path /m --port 30001",
        ]
    )
    settings = {s["name"]: s for s in result.json["settings"]}
    schema = load_schema("sglang", "0.5.10.post1")
    # named by the configuration field (tp_size), the dest kept (tensor_parallel_size)
    assert set(settings) == {schema.field_for_dest(d) for d in all_defaults(schema)}
    assert settings["tp_size"]["dest"] == "tensor_parallel_size"
    assert settings["port"]["effective"] == 30001
    assert [o["layer"] for o in settings["port"]["history"]] == ["shell", "process", "parser"]
    assert settings["mamba_scheduler_strategy"] == {
        "name": "mamba_scheduler_strategy",
        "dest": "mamba_scheduler_strategy",
        "flag": "--mamba-scheduler-strategy",
        "intended": None,
        "effective": "auto",
        "history": [{"layer": "parser", "value": "auto", "at": None, "by": "default", "default": True}],
    }
    without = run_cli(
        [
            "check",
            "--format",
            "json",
            "--no-resolve",
            "--no-shellcheck",
            "--framework-version",
            "0.5.10.post1",
            "-c",
            "python -m sglang.launch_server --model-path /m --port 30001",
        ]
    )
    assert [s["name"] for s in without.json["settings"]] == ["model_path", "port"]
