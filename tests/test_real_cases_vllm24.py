"""The vLLM batch of session 24 (docs/real_cases.md, "vLLM, 24th session"), measured before any fix:
`VLLM_*` variables a release no longer reads (FlashInfer MoE backend, torch profiler directory, Triton flash
attention, an Intel fork's offload switch), `--rope-scaling` moved into `--hf-overrides`, `vllm serve
--model`, `--compilation-config` keys and modes per release (`use_inductor` after 0.12.0, mode 0 with a CUDA
graph mode), `--mm-processor-kwargs` written without quotes (with and without a variable), vllm-ascend's
batched-token check. Each case under ``tests/data/real_cases_vllm24/`` names its URL on its first line
(``.cmd`` launches for ``argtrace check -c``, ``.sh`` scripts, ``.txt`` the text a report quotes for
``argtrace why``, ``ok_*`` the correct launches collected with them). The machine is a new user's (no
resolver environment, no Hugging Face cache)."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from tests.batches import (
    check_case,
    finding,
    missing_cases,
    shown_codes,
    table_counts,
    unsourced,
    why_with_release,
)
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm24"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on 45bc8c85) and now.
CLASSES = {
    "llmscaler687_offload_weights_before_quant.cmd": ("b", "b"),
    "lumi7_use_triton_flash_attn.cmd": ("b", "b"),
    "minefield19_flashinfer_moe_backend.cmd": ("a", "a"),
    "nemorl1652_use_inductor_0120.cmd": ("c", "c"),
    "omni6519_torch_profiler_dir.cmd": ("a", "a"),
    "pr16691_model_option.txt": ("a", "a"),
    "pr16691_model_option_serve.cmd": ("c", "b"),
    "pr41219_mode0_cudagraph_piecewise.cmd": ("c", "c"),
    "vllm11652_mm_processor_kwargs_unquoted.cmd": ("a", "a"),
    "vllm15845_served_model_name_404.txt": ("a", "a"),
    "vllm16395_kv_transfer_v1_fallback.txt": ("b", "a"),
    "vllm27981_mm_processor_kwargs_variable.sh": ("b", "a"),
    "vllm37886_rope_scaling_qwen3.cmd": ("b", "b"),
    "vllmascend4365_ascend_scheduler_mnbt.txt": ("a", "a"),
}
CORRECT = [
    "ok_jetsonailab359_docker_vllm_0140.sh",
    "ok_llmd1269_nixl_kv_transfer_0171.cmd",
    "ok_lmcache3809_served_model_name_kv_transfer.cmd",
    "ok_pr41219_mode3_full_and_piecewise.cmd",
    "ok_vllm37886_hf_overrides_rope_parameters.cmd",
    "ok_vllmascend15660_generation_config_vllm.sh",
    "ok_vllmascend760_rope_scaling_085.cmd",
]
# the release a report names (its text, a log line, the image tag), given as --framework-version
RELEASES = {
    "llmscaler687_offload_weights_before_quant.cmd": "0.26.0",
    "minefield19_flashinfer_moe_backend.cmd": "0.26.0",
    "omni6519_torch_profiler_dir.cmd": "0.27.0",
    "nemorl1652_use_inductor_0120.cmd": "0.12.0",
    "vllmascend4365_ascend_scheduler_mnbt.txt": "0.11.0",
    "ok_llmd1269_nixl_kv_transfer_0171.cmd": "0.17.1",
    "ok_vllmascend760_rope_scaling_085.cmd": "0.8.5",
}
# the check inputs not in class a: a word the alarm naming the cause must hold, and what argtrace lacks
MISSING = {
    "llmscaler687_offload_weights_before_quant.cmd": (
        "VLLM_OFFLOAD_WEIGHTS_BEFORE_QUANT",
        "PR001 is a note: no bundled release reads the variable (an Intel fork's), so nothing shows the "
        "user meant an upstream setting",
    ),
    "lumi7_use_triton_flash_attn.cmd": (
        "VLLM_USE_TRITON_FLASH_ATTN",
        "nothing names the release: PR011 analyses 0.11.0, the newest that reads the variable, and names "
        "0.11.2 and later only in a note",
    ),
    "nemorl1652_use_inductor_0120.cmd": (
        "use_inductor",
        "0.12.0's CompilationConfig field list is not bundled (converter data for 0.11.0 and 0.33.0 only)",
    ),
    "pr16691_model_option_serve.cmd": (
        "--model",
        "the build (main before 0.8.5) is no release: PA056 is a note naming 0.6.6.post1-0.11.0, which stop "
        "on it (0.33.0, analysed, moves the model to the positional)",
    ),
    "pr41219_mode0_cudagraph_piecewise.cmd": (
        "cudagraph_mode",
        "the configuration's own rewrite of cudagraph_mode to NONE under mode 0 is read only by the "
        "resolver (no environment on a new user's machine)",
    ),
    "vllm37886_rope_scaling_qwen3.cmd": (
        "--rope-scaling",
        "nothing names the release: 0.11.0 (analysed) accepts the flag; PA024 notes that 0.11.2 and later "
        "refuse it",
    ),
}


@functools.cache
def _check(name: str) -> dict[str, Any]:
    version = RELEASES.get(name)
    return check_case(CASES, name, ("--framework-version", version) if version else ())


@functools.cache
def _why(name: str) -> dict[str, Any]:
    return why_with_release(CASES, name, RELEASES)


def check(name: str) -> dict[str, Any]:
    """Each recorded launch is checked once; the tests read copies."""
    return copy.deepcopy(_check(name))


def command(*argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv])
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([6, 5, 3, 0], [8, 4, 2, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_check_case_not_in_class_a() -> None:
    checked = {n for n, (_, now) in CLASSES.items() if now != "a" and not n.endswith(".txt")}
    assert set(MISSING) == checked


def test_vllm27981_a_json_the_shell_split_around_a_variable() -> None:
    """b -> a: the fix was "single-quote the JSON", which keeps $MAX_PIXELS as written; the word the blank
    cut off (PA001 '1003520}') was a second error for the same missing quotes."""
    report = check("vllm27981_mm_processor_kwargs_variable.sh")
    assert [(f["code"], f["severity"]) for f in report["findings"] if f["severity"] != "info"] == [
        ("PA011", "error")
    ]
    cause = finding(report, "PA011")
    assert cause["fix"] == (
        "the shell split the JSON at its blanks (2 words) and removed its double quotes: write it as one "
        "word, in double quotes with the inner ones escaped, since it holds $MAX_PIXELS (single quotes would "
        'keep it as written): "{\\"max_pixels\\": $MAX_PIXELS}"'
    )
    assert [(c["code"], c["message"][:40]) for c in cause["consequences"]] == [
        ("PA001", "'1003520}' (after {max_pixels:) is not a")
    ]


def test_split_json_variants() -> None:
    """Variants (not reports): no variable (single quotes, the JSON spelled out); a string value whose
    quotes are gone too (no JSON to offer); a whole unquoted word keeps the rule's fix."""
    plain = command("-c", 'vllm serve m --mm-processor-kwargs {"max_pixels": 1003520, "min_pixels": 3136}')
    cause = finding(plain, "PA011")
    assert cause["fix"] == (
        "the shell split the JSON at its blanks (4 words) and removed its double quotes: write it as one "
        'word in single quotes: \'{"max_pixels": 1003520, "min_pixels": 3136}\''
    )
    assert [c["code"] for c in cause["consequences"]] == ["PA001", "PA001", "PA001"]
    spec = command("-c", 'vllm serve m --speculative-config {"method": "ngram", "num_speculative_tokens": 5}')
    assert finding(spec, "PA011")["fix"] == (
        "the shell split the JSON at its blanks (4 words) and removed its double quotes: write it as one "
        "word in single quotes"
    )
    assert [f["code"] for f in alarms(spec)] == ["PA011", "PA001", "PA001", "PA001"]
    assert all(f["code"] != "PA001" for f in spec["findings"])  # all three folded under PA011
    whole = finding(check("vllm11652_mm_processor_kwargs_unquoted.cmd"), "PA011")
    assert whole["fix"] == "single-quote the JSON so that the shell keeps its double quotes"


def test_variables_a_release_no_longer_reads() -> None:
    """Class a before the batch: PR001 names the releases that read the variable and the one that runs."""
    moe = finding(check("minefield19_flashinfer_moe_backend.cmd"), "PR001")
    assert moe["severity"] == "warning"
    assert moe["message"].endswith("but not by vllm 0.26.0: the release ignores it")
    profiler = finding(check("omni6519_torch_profiler_dir.cmd"), "PR001")
    assert profiler["severity"] == "warning"
    assert "0.15.1 but not by vllm 0.27.1" in profiler["message"]


def test_why_on_vllm_ascends_batched_token_refusal() -> None:
    """vllm-ascend's copy of the check: `why` finds vLLM's own SchedulerConfig site and its settings."""
    first = _why("vllmascend4365_ascend_scheduler_mnbt.txt")["matches"][0]
    assert first["function"] == "SchedulerConfig._verify_args"
    assert [s["flag"] for s in first["settings"]][:2] == ["--max-num-batched-tokens", "--max-model-len"]


def test_pr16691_the_model_as_an_option_of_vllm_serve() -> None:
    """c -> b: releases from 0.11.2 move `--model M` to the positional model, 0.6.6.post1-0.11.0 stop on it
    (the schemas: FlexibleArgumentParser of vllm.utils with the serve rewrite, or a required model_tag);
    nothing names the release of the report's build, so a note."""
    note = finding(check("pr16691_model_option_serve.cmd"), "PA056")
    assert note["severity"] == "info"
    assert note["message"] == (
        "`vllm serve --model mistralai/Mistral-7B-Instruct-v0.3`: vllm 0.33.0 moves "
        "mistralai/Mistral-7B-Instruct-v0.3 to the positional model (with a warning that --model is "
        "deprecated); vllm 0.6.6.post1-0.11.0 stop on --model itself (ValueError in "
        'FlexibleArgumentParser.parse_args, or argparse\'s "the following arguments are required: model_tag")'
    )
    assert note["fix"] == "put the model right after `vllm serve` (`vllm serve M ...`)"


def test_pa056_variants() -> None:
    """Variants (not reports): a positional model and --model both (every release refuses: the moved model
    leaves the written one over); a named release that stops (PA023 as before); the API server module,
    whose --model is its own flag (no PA056)."""
    both = command(
        "--framework-version", "0.33.0", "-c", "vllm serve Qwen/Qwen3-8B --port 8000 --model Qwen/Qwen3-8B"
    )
    assert shown_codes(both) == [("PA056", "error"), ("PA001", "error")]
    cause = finding(both, "PA056")
    assert [c["code"] for c in cause["consequences"]] == ["PA001"]
    assert cause["fix"] == "drop `--model Qwen/Qwen3-8B`: the positional word names the model"
    old = command("--framework-version", "0.9.2", "-c", "vllm serve --model Qwen/Qwen3-8B")
    assert shown_codes(old) == [("PA023", "error")]
    module = command("-c", "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B")
    assert "PA056" not in [f["code"] for f in module["findings"]]


def test_vllm16395_a_feature_no_read_oracle_lists() -> None:
    """b -> a: "--kv-transfer-config is not supported by the V1 Engine" came from a release before 0.8.5 (not
    read); the read oracles (0.8.5.post1-0.11.0) have no test for the flag, so it is the setting and the fix
    names the releases whose V1 engine takes it. A word that is no flag keeps the generic answer."""
    first = _why("vllm16395_kv_transfer_v1_fallback.txt")["matches"][0]
    assert first["function"] == "_raise_or_fallback"
    assert [s["flag"] for s in first["settings"]] == ["--kv-transfer-config"]
    assert first["fix"] == (
        "the V1 engine of the release that logged this does not take --kv-transfer-config and sends the "
        "launch back to V0; the V1 oracle of vllm 0.8.5.post1-0.11.0 (EngineArgs._is_v1_supported_oracle) "
        "has no test for --kv-transfer-config: run one of those (or later), or drop --kv-transfer-config to "
        "keep the V1 engine"
    )
    other = run_cli(
        ["why", "--format", "json", "--no-such-flag is not supported by the V1 Engine. Falling back to V0."]
    )
    assert other.json["why"]["matches"][0]["fix"] == (
        "logged unconditionally in _raise_or_fallback: avoid the call path that reaches it"
    )


def test_vllm15845_a_request_for_the_model_path_under_a_served_name() -> None:
    """Class a before the batch: the 404 is the request's model name; the server answers to
    --served-model-name."""
    first = _why("vllm15845_served_model_name_404.txt")["matches"][0]
    assert "the server accepts the values given with --served-model-name" in first["fix"]


def test_a_json_key_the_configuration_rewrote_is_the_users_setting() -> None:
    """vllm PR#41219 with the resolver (vLLM 0.33.0's own run, not a new user's machine): the write to
    CompilationConfig.cudagraph_mode is the key the user gave through --compilation-config, so RS002 names
    the change (FULL_AND_PIECEWISE -> FULL_DECODE_ONLY under mode 0). The recorder's write, as it gave it
    for `vllm serve Qwen/Qwen3-32B --compilation-config '{"mode": 0, "cudagraph_mode":
    "FULL_AND_PIECEWISE"}'`, is replayed here; a field no flag key gave keeps its class name."""
    from argtrace.layers.resolution import _fold
    from argtrace.model import LayerResult, Observation
    from argtrace.rules import resolution as rules

    parser = LayerResult()
    parser.intended = {
        "compilation_config.cudagraph_mode": "FULL_AND_PIECEWISE",
        "compilation_config.mode": 0,
    }
    parser.observations = {
        name: ("--compilation-config", [Observation("parser", value)])
        for name, value in parser.intended.items()
    }
    write = {
        "owner": "CompilationConfig",
        "old": "FULL_AND_PIECEWISE",
        "at": "vllm/config/vllm.py:1146",
        "by": "VllmConfig._normalize_piecewise_cudagraph_mode",
        "seq": 1,
    }
    data = {
        "status": "ok",
        "writes": [
            {**write, "field": "cudagraph_mode", "new": "FULL_DECODE_ONLY"},
            {**write, "field": "max_cudagraph_capture_size", "old": None, "new": 512},
        ],
    }
    result = LayerResult()
    result.sections["resolution"] = {}
    _fold(result, data, dict(parser.intended), parser, {}, {}, "vllm", "0.33.0", rules, "")
    assert set(result.observations) == {
        "compilation_config.cudagraph_mode",
        "CompilationConfig.max_cudagraph_capture_size",
    }
    changed = [f for f in result.findings if f.code == "RS002"]
    assert [(f.setting, f.severity) for f in changed] == [("compilation_config.cudagraph_mode", "warning")]
    assert changed[0].message == (
        "compilation_config.cudagraph_mode: the user set 'FULL_AND_PIECEWISE'; "
        "VllmConfig._normalize_piecewise_cudagraph_mode (vllm/config/vllm.py:1146) changed it to "
        "'FULL_DECODE_ONLY'"
    )


def test_a_json_flag_the_configuration_only_added_keys_to_is_unchanged() -> None:
    """A correct launch with the resolver (the seed's vLLM launch, `--speculative-config '{"method": "mtp",
    "num_speculative_tokens": 3}'` on 0.33.0): the resolved object keeps both keys and gains the target
    model's configuration. That was an RS002 warning ("changed it to {...}"); no key the user gave
    changed, so none now. A given key at another value still is one."""
    from argtrace.layers.resolution import _fold
    from argtrace.model import LayerResult, Observation
    from argtrace.rules import resolution as rules

    given = {"method": "mtp", "num_speculative_tokens": 3}
    for resolved, expected in (
        ({**given, "target_model_config": {"max_model_len": 32768}}, []),
        ({**given, "num_speculative_tokens": 1}, ["speculative_config"]),
    ):
        parser = LayerResult()
        parser.intended = {"speculative_config": given}
        parser.observations = {"speculative_config": ("--speculative-config", [Observation("parser", given)])}
        data = {
            "status": "ok",
            "final": {"speculative_config": resolved},
            "parsed": {"speculative_config": given},
        }
        result = LayerResult()
        result.sections["resolution"] = {}
        _fold(result, data, {"speculative_config": given}, parser, {}, {}, "vllm", "0.33.0", rules, "")
        assert [f.setting for f in result.findings if f.code == "RS002"] == expected
