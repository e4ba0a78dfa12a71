"""The vLLM batch of session 28 (docs/real_cases.md, "vLLM, 28th session"), measured before any fix: expert
parallelism and its MoE all-to-all backends (DeepEP without ``--enable-expert-parallel``, pplx after its
removal, ``VLLM_ALL2ALL_BACKEND`` after vLLM stopped reading it), EPLB flags (``--num-redundant-experts``
without ``--enable-eplb``, after its removal, ``--enable-eplb`` on a class without the MixtureOfExperts
interface), ROCm AITER variables, a Mamba1 SSM cache dtype, prefix caching on a hybrid model, an FP8 MoE
block refused by its tensor-parallel split. Each case under ``tests/data/real_cases_vllm28/`` names its URL
on its first line (after a ``#!`` line): ``.cmd`` launches for ``argtrace check -c``, ``.sh`` scripts,
``.txt`` the text a report quotes for ``argtrace why``, ``ok_*`` the correct launches collected with them.
The machine is a new user's (no resolver environment, no Hugging Face cache)."""

from __future__ import annotations

import copy
import functools
import sys
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
from tests.conftest import REPO, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm28"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on 4282cee2) and now.
CLASSES = {
    "aiter3294_aiter_on_gfx1201.cmd": ("c", "c"),
    "inferencex806_mi355x_gptoss_aiter.sh": ("a", "a"),
    "llmd855_pplx_backend_removed.cmd": ("c", "a"),
    "llmd856_all2all_env_after_removal.sh": ("a", "a"),
    "lmeval3782_pplx_env_ignored.sh": ("c", "c"),
    "vime186_block_n_not_divisible.txt": ("b", "a"),
    "vime186_deepep_without_ep.cmd": ("c", "a"),
    "vllm24523_redundant_experts_without_eplb.cmd": ("c", "c"),
    "vllm24523_redundant_experts_without_eplb.txt": ("a", "a"),
    "vllm40740_eplb_non_moe_interface.cmd": ("c", "c"),
    "vllm51198_prefix_caching_hybrid_0260.cmd": ("c", "c"),
    "vllm54880_flat_num_redundant_experts.sh": ("b", "a"),
    "vllmpr54123_mamba1_ssm_dtype.cmd": ("c", "c"),
}
CORRECT = [
    "ok_inferencex806_mi355x_fixed.sh",
    "ok_llmd856_all2all_flag.sh",
    "ok_vllmpr25311_eplb_mtp_0102.cmd",
    "ok_vllmpr30559_eplb_default_all2all.cmd",
    "ok_vllmpr51824_deepep_v2_dp2.cmd",
    "ok_vllmpr54880_eplb_config_dotted.sh",
]
# the release a report names (its text, its image or package, the PR's date), given as --framework-version
RELEASES = {
    "inferencex806_mi355x_gptoss_aiter.sh": "0.16.0",
    "llmd856_all2all_env_after_removal.sh": "0.16.0",
    "ok_inferencex806_mi355x_fixed.sh": "0.16.0",
    "ok_llmd856_all2all_flag.sh": "0.16.0",
    "ok_vllmpr25311_eplb_mtp_0102.cmd": "0.10.2",
    "ok_vllmpr54880_eplb_config_dotted.sh": "0.29.0",
    # the message the report quotes ("should be used with EPLB.16") is the one 0.9.2 raises; 0.10.2 words it
    # otherwise (the report ran main of 2025-09)
    "vllm24523_redundant_experts_without_eplb.cmd": "0.9.2",
    "vllm51198_prefix_caching_hybrid_0260.cmd": "0.26.0",
    "vllm54880_flat_num_redundant_experts.sh": "0.29.0",
}
# the arguments a script is checked with (the example takes its model and its redundant-expert count)
SCRIPT_ARGS = {"vllm54880_flat_num_redundant_experts.sh": ("deepseek-ai/DeepSeek-V2-Lite-Chat", "32")}
# the check inputs not in class a: a word the alarm naming the cause must hold, and what argtrace lacks
MISSING = {
    "aiter3294_aiter_on_gfx1201.cmd": (
        "VLLM_ROCM_USE_AITER",
        "AITER's kernels need gfx942/gfx950: which GPU runs the launch (an R9700, gfx1201) is not in the "
        "command, and argtrace has no ROCm GPU profile for RDNA4",
    ),
    "lmeval3782_pplx_env_ignored.sh": (
        "VLLM_ALL2ALL_BACKEND",
        "lm_eval --model vllm --model_args builds vLLM's LLM from a JSON of keywords: argtrace does not "
        "follow that launcher (SH019), so the variable vLLM no longer reads is not judged",
    ),
    "vllm24523_redundant_experts_without_eplb.cmd": (
        "--enable-eplb",
        "the refusal's message names one option (num_redundant_experts): RS032 judges only a combination "
        "whose message names each option the tests read",
    ),
    "vllm40740_eplb_non_moe_interface.cmd": (
        "--enable-eplb",
        "EPLB needs the model class to implement MixtureOfExperts; the class of a Hub id is not read on a "
        "new user's machine, and the per-release model registry records no such interface",
    ),
    "vllm51198_prefix_caching_hybrid_0260.cmd": (
        "--enable-prefix-caching",
        "the cache never hits on the hybrid model's recurrent state: the model's layer types are not read "
        "on a new user's machine, and nothing in the launch is refused",
    ),
    "vllmpr54123_mamba1_ssm_dtype.cmd": (
        "--mamba-ssm-cache-dtype",
        "the Mamba1 kernel takes an SSM state of float32 or the activation dtype; the model's Mamba version "
        "is not read on a new user's machine, and the check is a CUDA kernel's, not a raise",
    ),
}


@functools.cache
def _check(name: str) -> dict[str, Any]:
    version = RELEASES.get(name)
    return check_case(
        CASES, name, ("--framework-version", version) if version else (), SCRIPT_ARGS.get(name, ())
    )


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
    assert table_counts(CLASSES) == ([3, 2, 8, 0], [7, 0, 6, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    report = check(name)
    assert shown_codes(report) == []
    assert len(report["servers"]) == 1


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_check_case_not_in_class_a() -> None:
    checked = {n for n, (_, now) in CLASSES.items() if now != "a" and not n.endswith(".txt")}
    assert set(MISSING) == checked


def test_vime186_deepep_without_expert_parallelism() -> None:
    """c -> a: the backend is used only with expert parallelism over more than one DP rank; the release is
    not named, so a warning resting on 0.33.0."""
    report = check("vime186_deepep_without_ep.cmd")
    assert shown_codes(report) == [("RS068", "warning")]
    cause = finding(report, "RS068")
    assert (cause["basis"], cause["setting"], cause["at"]) == ("assumed", "all2all_backend", "<-c>:1:60")
    assert cause["message"] == (
        "--all2all-backend deepep_high_throughput has no effect: vllm 0.33.0 uses an all-to-all backend only "
        "with expert parallelism and more than one data-parallel rank (FusedMoEParallelConfig."
        "use_all2all_kernels, vllm/model_executor/layers/fused_moe/config.py:1035); without "
        "--enable-expert-parallel the experts are split by tensor parallelism over TP 8, and the backend is "
        "never used"
    )
    assert cause["fix"] == (
        "add --enable-expert-parallel (with --data-parallel-size above 1: the backend dispatches tokens "
        "between the DP ranks), or remove the backend"
    )


def test_llmd855_a_removed_backend_is_replaced() -> None:
    """c -> a: 0.33.0 keeps pplx among the choices and replaces it in ParallelConfig.__post_init__."""
    report = check("llmd855_pplx_backend_removed.cmd")
    assert shown_codes(report) == [("RS072", "warning")]
    cause = finding(report, "RS072")
    assert cause["basis"] == "assumed"
    assert cause["message"] == (
        "--all2all-backend pplx is lost: vllm 0.33.0 no longer has the pplx backend and replaces it with "
        "allgather_reducescatter (ParallelConfig.__post_init__, vllm/config/parallel.py:537: \"The 'pplx' "
        "all2all backend has been removed. Falling back to 'allgather_reducescatter'.\")"
    )
    assert cause["fix"] == (
        "choose a backend vllm 0.33.0 has (--all2all-backend allgather_reducescatter is what it runs), or "
        "remove the setting"
    )


_MOE = "vllm serve Qwen/Qwen3-30B-A3B"


@pytest.mark.parametrize(
    ("release", "words", "expected"),
    [
        # expert parallelism over one DP rank: the experts are reached without a dispatch
        (
            "0.33.0",
            "--tensor-parallel-size 8 --enable-expert-parallel --all2all-backend deepep_low_latency",
            [("RS068", "warning")],
        ),
        (
            "0.33.0",
            "--data-parallel-size 8 --enable-expert-parallel --all2all-backend deepep_low_latency",
            [],
        ),
        # prefill-context parallelism opens the gate from 0.26.0 on, not before
        (
            "0.33.0",
            "--prefill-context-parallel-size 2 --enable-expert-parallel --all2all-backend deepep_low_latency",
            [],
        ),
        # the variable, on a release that reads it, and after it stopped (PR001 speaks there)
        ("0.14.1", "--tensor-parallel-size 8", [("RS068", "warning")]),
        ("0.16.0", "--tensor-parallel-size 8", []),
        # the backend removed from 0.19.1 on; named: the value is lost
        (
            "0.19.1",
            "--data-parallel-size 2 --enable-expert-parallel --all2all-backend naive",
            [("RS072", "error")],
        ),
        ("0.18.1", "--data-parallel-size 2 --enable-expert-parallel --all2all-backend pplx", []),
        # a release whose wheel was not read
        ("0.8.5.post1", "--tensor-parallel-size 8", []),
    ],
)
def test_all2all_variants(release: str, words: str, expected: list[tuple[str, str]]) -> None:
    """Variants (not reports): which releases and layouts make RS068/RS072 speak."""
    prefix = "VLLM_ALL2ALL_BACKEND=deepep_low_latency " if "all2all-backend" not in words else ""
    report = command("--framework-version", release, "-c", f"{prefix}{_MOE} {words}")
    assert [(c, s) for c, s in shown_codes(report) if c in ("RS068", "RS072")] == expected


def test_vllm54880_a_removed_flag_names_where_its_value_went() -> None:
    """b -> a: 0.10.2-0.11.2 forwarded --num-redundant-experts into --eplb-config; the fix writes that key
    (a verified edit) instead of dropping the count."""
    report = check("vllm54880_flat_num_redundant_experts.sh")
    assert shown_codes(report) == [("PA003", "error")]
    cause = finding(report, "PA003")
    assert cause["message"] == (
        "--num-redundant-experts was accepted up to vllm 0.11.2 but vllm 0.29.0 does not know it: the server "
        'refuses to start ("unrecognized arguments", exit 2); the releases that took it passed its value on '
        "to --eplb-config.num_redundant_experts (EngineArgs.create_engine_config, "
        "vllm/engine/arg_utils.py:1592 in 0.11.2; vllm 0.10.2-0.11.2)"
    )
    assert cause["fix_verified"] is True
    assert cause["fix_edits"] == [
        {
            "file": "vllm54880_flat_num_redundant_experts.sh",
            "start": "12:3",
            "end": "12:26",
            "replacement": "--eplb-config.num_redundant_experts",
        }
    ]


def test_a_deprecated_flag_names_the_key_it_feeds() -> None:
    """Variant of the same mechanism: PA005 on 0.10.2, where the deprecation message names nothing."""
    report = check("ok_vllmpr25311_eplb_mtp_0102.cmd")
    notes = {f["message"].split(" ")[0]: f for f in report["findings"] if f["code"] == "PA005"}
    assert notes["--num-redundant-experts"]["message"].endswith(
        "; vllm 0.10.2 passes its value on to --eplb-config.num_redundant_experts (EngineArgs."
        "create_engine_config, vllm/engine/arg_utils.py:1592 in 0.11.2; vllm 0.10.2-0.11.2)"
    )
    assert [e["replacement"] for e in notes["--eplb-window-size"]["fix_edits"]] == [
        "--eplb-config.window_size"
    ]
    assert notes["--disable-log-requests"]["fix"] == "switch to the current spelling named in the message"


def test_why_on_an_fp8_moe_block_names_the_parallel_layout() -> None:
    """b -> a: the size the check reads is the expert's size per MoE tensor-parallel rank; the fix was
    "change --quantization"."""
    first = _why("vime186_block_n_not_divisible.txt")["matches"][0]
    assert first["function"] == "validate_fp8_block_shape_moe"
    assert [s["flag"] for s in first["settings"]] == ["--tensor-parallel-size", "--enable-expert-parallel"]
    assert first["fix"] == (
        "intermediate_size_per_partition is each expert's size divided by the MoE layer's tensor-parallel "
        "size (FusedMoEConfig.__post_init__), which is --tensor-parallel-size x --data-parallel-size without "
        "--enable-expert-parallel and 1 with it: add --enable-expert-parallel (each expert stays whole on "
        "its rank), or a smaller --tensor-parallel-size that leaves a multiple of the size the message names"
    )


def test_why_on_redundant_experts_without_eplb() -> None:
    """Class a as first seen: the site and both flags (the text names no release; 0.9.2 holds it)."""
    first = _why("vllm24523_redundant_experts_without_eplb.txt")["matches"][0]
    assert first["function"] == "ParallelConfig.__post_init__"
    assert [s["flag"] for s in first["settings"]] == ["--num-redundant-experts", "--enable-eplb"]


def test_the_release_tables_are_generated() -> None:
    """frameworks/data/vllm_all2all.json and vllm_forwarded_flags.json are their generators' output: the
    readings of a release's code, on the forms they tell apart."""
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_vllm_all2all import MOE_CONFIG, PARALLEL, facts
    from gen_vllm_forwarded_flags import forwarded

    moe = (
        "class C:\n"
        "    def use_all2all_kernels(self):\n"
        "        return self.use_ep and (self.dp_size > 1 or self.is_sequence_parallel)\n"
        "    def make(tp_size_, dp_size_, pcp_size_, vllm_parallel_config):\n"
        "        use_ep = (dp_size_ * pcp_size_ * tp_size_ > 1\n"
        "                  and vllm_parallel_config.enable_expert_parallel)\n"
    )
    parallel = (
        "class P:\n"
        "    def __post_init__(self):\n"
        "        if self.all2all_backend in ['pplx', 'naive']:\n"
        "            logger.warning('The %s backend has been removed.', self.all2all_backend)\n"
        "            self.all2all_backend = 'allgather_reducescatter'\n"
        "    def use_sequence_parallel_moe(self):\n"
        "        return self.enable_expert_parallel and self.data_parallel_size > 1\n"
    )
    assert facts({MOE_CONFIG: moe, PARALLEL: parallel}) == {
        "used_when": {"form": "ep_and_dp", "where": f"{MOE_CONFIG}:2"},
        "removed": {
            "backends": ["naive", "pplx"],
            "instead": "allgather_reducescatter",
            "warning": "The %s backend has been removed.",
            "where": f"{PARALLEL}:3",
        },
    }
    # sequence-parallel MoE without data parallelism: the gate is not read as "needs DP"
    assert "used_when" not in facts(
        {MOE_CONFIG: moe, PARALLEL: parallel.replace(" and self.data_parallel_size > 1", "")}
    )
    arg_utils = (
        "class EngineArgs:\n"
        "    def add_cli_args(parser):\n"
        "        parser.add_argument('--num-redundant-experts', type=int, deprecated=True)\n"
        "        parser.add_argument('--eplb-window-size', help='[DEPRECATED] will be removed')\n"
        "        parser.add_argument('--seed', type=int)\n"
        "    def create_engine_config(self):\n"
        "        if self.num_redundant_experts is not None:\n"
        "            self.eplb_config.num_redundant_experts = self.num_redundant_experts\n"
        "        if self.eplb_window_size is not None:\n"
        "            self.eplb_config.window_size = self.eplb_window_size\n"
        "        if self.seed is not None:\n"
        "            self.model_config.seed = self.seed\n"
    )
    assert forwarded(arg_utils) == {
        "--num-redundant-experts": {
            "into": "--eplb-config",
            "key": "num_redundant_experts",
            "line": 8,
            "function": "create_engine_config",
        },
        "--eplb-window-size": {
            "into": "--eplb-config",
            "key": "window_size",
            "line": 10,
            "function": "create_engine_config",
        },
    }


def test_inferencex806_the_suggested_name_needs_the_master_switch() -> None:
    """Class a as first seen; the name PR001 suggests is read only under VLLM_ROCM_USE_AITER=1, which the
    script does not set (the PR adds it): the message says so."""
    report = check("inferencex806_mi355x_gptoss_aiter.sh")
    assert sorted(shown_codes(report)) == [("PA003", "error"), ("PA003", "error"), ("PR001", "warning")]
    renamed = next(f for f in report["findings"] if f["code"] == "PR001" and f["severity"] == "warning")
    assert renamed["message"] == (
        "VLLM_USE_AITER_UNIFIED_ATTENTION is read by vllm 0.10.2, 0.11.0 but not by vllm 0.16.0: the release "
        "ignores it; the nearest name it reads is VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION; vllm 0.16.0 reads "
        "VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION only with VLLM_ROCM_USE_AITER=1 (rocm_aiter_ops, "
        "vllm/_aiter_ops.py:992), which the launch does not set"
    )


@pytest.mark.parametrize(("master", "said"), [("", True), ("VLLM_ROCM_USE_AITER=1 ", False)])
def test_the_master_switch_variants(master: str, said: bool) -> None:
    """Variants (not reports): the note only when the launch does not turn the master switch on."""
    report = command(
        "--framework-version",
        "0.33.0",
        "-c",
        f"{master}VLLM_USE_AITER_UNIFIED_ATTENTION=1 vllm serve openai/gpt-oss-120b",
    )
    message = next(f["message"] for f in report["findings"] if f["code"] == "PR001")
    assert ("only with VLLM_ROCM_USE_AITER=1" in message) is said


def test_the_aiter_table_is_generated() -> None:
    """frameworks/data/vllm_aiter_switches.json is scripts/gen_vllm_aiter_switches.py's output: a variable is
    gated when every read of it, in _aiter_ops.py and elsewhere, stands beside the master switch."""
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_vllm_aiter_switches import ENVS, OPS, switches

    ops = (
        "class rocm_aiter_ops:\n"
        "    _AITER_ENABLED = envs.VLLM_ROCM_USE_AITER\n"
        "    _MHA_ENABLED = envs.VLLM_ROCM_USE_AITER_MHA\n"
        "    _MOE_ENABLED = envs.VLLM_ROCM_USE_AITER_MOE\n"
        "    _ATTN_ENABLED = envs.VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION\n"
        "    def is_mha_enabled(cls):\n"
        "        return cls._AITER_ENABLED and cls._MHA_ENABLED\n"
        "    def is_moe_enabled(cls):\n"
        "        return cls._MOE_ENABLED\n"
        "    def is_attn_enabled(cls):\n"
        "        return cls._AITER_ENABLED and cls._ATTN_ENABLED\n"
    )
    rocm = "if envs.VLLM_ROCM_USE_AITER and envs.VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION:\n    pass\n"
    assert switches({OPS: ops, ENVS: "", "vllm/platforms/rocm.py": rocm}) == {
        "VLLM_ROCM_USE_AITER_MHA": f"{OPS}:7",
        "VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION": f"{OPS}:11",
    }
    # read on its own elsewhere: the master switch is not its only gate
    alone = "if envs.VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION:\n    pass\n"
    assert "VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION" not in switches({OPS: ops, "vllm/x.py": alone})


def test_an_inherited_variable_is_not_the_launchs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Variant (not a report): VLLM_ALL2ALL_BACKEND from the caller's environment is not judged by RS068 (the
    launch did not write it)."""
    monkeypatch.setenv("VLLM_ALL2ALL_BACKEND", "deepep_low_latency")
    report = command("--framework-version", "0.14.1", "-c", f"{_MOE} --tensor-parallel-size 8")
    assert [c for c, _ in shown_codes(report) if c == "RS068"] == []
