"""SGLang batch of the 29th session (docs/real_cases.md, "SGLang sgl29: hybrid Mamba/linear-attention models
(the Mamba state pool against --max-running-requests, the conv state's dtype against --dtype), GPUs of a
privileged container, the Transformers fallback's refusal, attention and KV-cache dtypes"), measured before
any fix.

Thirteen failure reports of 2025-2026 whose cause lies in the launch (Qwen3.6-27B and Qwen3.5-0.8B served in
float16 against the bfloat16 Mamba conv state, Qwen3.5 with FlashInfer's GDN kernels in bfloat16 and under
MTP on a B200, a Mamba pool sized at 4 slots per request under extra_buffer's 5, a pool at the admission
clamp's minimum, a PD decode server whose pool ignored --max-mamba-cache-size, Llama 4 with --page-size 4 and
with --context-length 2800000, gpt-oss with EAGLE3 over its hybrid SWA pool and with torch.compile, an FP4
KV cache with EAGLE, a reranker class the 0.4.7 image lacks) and six correct launches (``ok_*``). Each case
under ``tests/data/real_cases_sgl29/`` names its URL in its header: ``.cmd`` launches (``argtrace check
-c``), scripts, a compose file and a Python launch. A new user's machine (no resolver environment, no
Hugging Face cache); ``--framework-version`` only where the report names its release (sglang#7936: 0.4.9;
the compose file's image names 0.4.7). Classes by the better of `check` and `why` on the message a report
quotes (MiaAI-Lab#7's capped line, PR#19002's ping-pong assertion, PR#6058's refusal, sglang#31719's
traceback and PR#20217's kernel error: the conv state's dtype). Each command runs
once per worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.layers.mamba_slots import release_facts, slots_per_request
from tests.batches import (
    RECONSTRUCTED,
    finding,
    missing_cases,
    recorded_check,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import REPO, Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl29"
MODELS = REPO / "tests" / "data" / "models"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report, by the better of `check` and `why`: first seen (40d74275) and now.
CLASSES = {
    "miaai7_dflash_mamba_cache_caps_requests.sh": ("b", "a"),
    "sglangpr6058_bge_reranker_v047.yaml": ("d", "a"),
    "sglangpr19002_pd_decode_mamba_cache_size.cmd": ("b", "b"),
    "sglang31719_qwen36_dtype_float16.cmd": ("c", "a"),
    "sglangpr20217_qwen35_dtype_float16.cmd": ("c", "a"),
    "sglangpr20741_qwen35_flashinfer_gdn_bf16.cmd": ("c", "c"),
    "sglangpr21558_gdn_flashinfer_decode_mtp_b200.cmd": ("c", "c"),
    "sglang37066_dflash_lazy_one_slot_short.cmd": ("c", "c"),
    "sglang7936_llama4_page_size_4.cmd": ("c", "c"),
    "sglangpr6744_llama4_context_2800000.cmd": ("c", "c"),
    "sglangpr17630_gptoss_eagle3_spec_v2_swa.cmd": ("c", "c"),
    "sglang9832_gptoss_torch_compile.cmd": ("c", "c"),
    "sglangpr15279_fp4_kv_eagle.sh": ("c", "c"),
}
# the release a report names (argtrace analyses it with the bundled release of its family)
OPTIONS = {"sglang7936_llama4_page_size_4.cmd": ("--framework-version", "0.4.9")}
CORRECT = [
    "ok_miaai7_extra_buffer_lazy.sh",
    "ok_sglang31719_fp16_conv_dtype_workaround.cmd",
    "ok_sglangpr11214_qwen3next_radix.cmd",
    "ok_sglangpr23174_gptoss_tp2.cmd",
    "ok_sglangpr10258_qwen3next_ssm_bf16.py",
]


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([0, 2, 10, 1], [4, 1, 8, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-05: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


def test_the_python_launch_is_read() -> None:
    """PR#10258's ``prepare_server_args([...])`` then ``launch_server``: the list is ``python -m
    sglang.launch_server``'s arguments (was "no server start found")."""
    report = check("ok_sglangpr10258_qwen3next_ssm_bf16.py")
    assert "SH019" not in [f["code"] for f in report["findings"]]
    assert report["servers"][0]["argv"][-9:] == [
        "--model-path",
        "/shared/public/sharing/sglanglearning/Qwen-SGlang/Qwen3-Next-80B-A3B-Instruct",
        "--tp",
        "8",
        "--attention-backend",
        "hybrid_linear_attn",
        "--trust-remote-code",
        "--mamba-ssm-dtype",
        "bfloat16",
    ]


ALARMS = {"miaai7_dflash_mamba_cache_caps_requests.sh": [("RS074", "warning")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm from `check`: RS074 is the cause; PR#6058's compose no longer gets TP043's error (its
    container is privileged: every host GPU, numbered as on the host); the others get notes only."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_the_mamba_pool_caps_the_running_requests() -> None:
    rs074 = finding(check("miaai7_dflash_mamba_cache_caps_requests.sh"), "RS074")
    assert rs074["message"] == (
        "--max-running-requests 16 is capped to 12 by the Mamba state pool: --max-mamba-cache-size 64 holds "
        "64 // 5 = 12 requests at 5 state slots each under --mamba-radix-cache-strategy extra_buffer (3 per "
        "request plus 2 for the ping-pong buffer with the overlap scheduler; _calculate_mamba_ratio, "
        "sglang/srt/mem_cache/kv_cache_configurator.py:3062; the cap at "
        "sglang/srt/mem_cache/kv_cache_configurator.py:3137), so 4 of the 16 requests the launch allows wait "
        "in the queue (assumed: a hybrid Mamba/linear-attention model, the only kind that reads "
        "--max-mamba-cache-size, with the overlap scheduler on)"
    )
    assert rs074["fix"] == (
        "give --max-mamba-cache-size 80 (16 x 5 slots), or --mamba-radix-cache-strategy extra_buffer_lazy (4 "
        "slots per request: 64 // 4 = 16), or --max-running-requests 12, what the pool admits"
    )
    assert (rs074["at"], rs074["setting"], rs074["basis"]) == (
        "miaai7_dflash_mamba_cache_caps_requests.sh:9:38",
        "max_running_requests",
        "assumed",
    )


def _codes(command: str, *options: str) -> list[tuple[str, str]]:
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command]).json
    return [(f["code"], f["severity"]) for f in report["findings"] if f["severity"] != "info"]


def _message(command: str, code: str, *options: str) -> str:
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command]).json
    return str(finding(report, code)["message"])


BASE = "python -m sglang.launch_server --model-path m --max-running-requests 16 --max-mamba-cache-size 64"


def test_mamba_slots_per_release_strategy_and_variable() -> None:
    """Variants of MiaAI-Lab#7: the radix cache off holds 1 slot, the decode-lock skip drops one where the
    release reads it (0.5.17 on), without the overlap scheduler the ping-pong buffer holds 1; an auto
    strategy, DP attention, a PD decode server and a release not read say nothing."""
    latest = ("--framework-version", "0.5.23")
    assert _codes(f"{BASE} --mamba-radix-cache-strategy extra_buffer", *latest) == [("RS074", "warning")]
    for flags in (
        "--mamba-radix-cache-strategy extra_buffer --disable-overlap-schedule",  # 3 + 1
        "--mamba-radix-cache-strategy extra_buffer --pp-size 2",  # pipeline parallelism: no overlap
        "--mamba-radix-cache-strategy extra_buffer_lazy",
        "--mamba-radix-cache-strategy no_buffer",
        "",  # auto
        "--mamba-radix-cache-strategy extra_buffer --enable-dp-attention --dp-size 2 --tp-size 2",
        "--mamba-radix-cache-strategy extra_buffer --disaggregation-mode decode",
    ):
        assert [c for c, _ in _codes(f"{BASE} {flags}", *latest)] == [], flags
    skip = f"SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK=1 {BASE} --mamba-radix-cache-strategy extra_buffer"
    assert _codes(skip, *latest) == []  # 2 + 2 = 4 slots: 64 // 4 = 16
    old = ("--framework-version", "0.5.14")
    # 0.5.14 does not read the variable (PR001 says so): 5 slots, capped
    assert _codes(skip.replace("radix-cache", "scheduler"), *old) == [
        ("PR001", "error"),
        ("RS074", "warning"),
    ]
    assert "holds 10 // 1 = 10 requests" in _message(
        "python -m sglang.launch_server --model-path m --max-running-requests 16 --max-mamba-cache-size 10 "
        "--disable-radix-cache",
        "RS074",
        *latest,
    )
    assert _codes(f"{BASE} --mamba-scheduler-strategy extra_buffer", "--framework-version", "0.5.9") == []


def test_slots_per_request_follow_the_wheels() -> None:
    """The ratio per release as scripts/gen_sglang_mamba_slots.py read it: 0.5.10.post1 has no lazy branch
    and no decode-lock skip; releases before it are not read."""
    facts = release_facts("0.5.23")
    assert facts is not None
    ratio = slots_per_request
    assert ratio(facts, radix=True, strategy="extra_buffer", overlap=True, skip=False)[0] == 5
    assert ratio(facts, radix=True, strategy="extra_buffer_lazy", overlap=True, skip=False)[0] == 4
    assert ratio(facts, radix=True, strategy="extra_buffer", overlap=False, skip=False)[0] == 4
    assert ratio(facts, radix=True, strategy="no_buffer", overlap=False, skip=True)[0] == 3
    assert ratio(facts, radix=True, strategy="extra_buffer", overlap=True, skip=True)[0] == 4
    assert ratio(facts, radix=False, strategy="extra_buffer", overlap=True, skip=False) == (
        1,
        "1 without the radix cache",
    )
    early = release_facts("0.5.10.post1")
    assert early is not None and "lazy" not in early and "skip_drop" not in early
    assert ratio(early, radix=True, strategy="extra_buffer", overlap=True, skip=True)[0] == 5
    assert release_facts("0.5.9") is None
    data = json.loads((REPO / "src/argtrace/frameworks/data/sglang_mamba_slots.json").read_text())
    assert sorted(data["releases"]) == sorted(
        v
        for v in data["wheels"]
        if v not in {"0.5.2", "0.5.3.post3", "0.5.4.post3", "0.5.5.post3"}
        and v not in {"0.5.6.post2", "0.5.7", "0.5.8.post1", "0.5.9"}
    )


def test_the_conv_state_dtype_against_dtype() -> None:
    """sglang#31719 and PR#20217 with the model's config.json (--model-config, or the Hugging Face cache a
    serving machine has): --dtype float16 on a hybrid GDN model is RS073's error; the report's workaround,
    a dense model, the bfloat16 default and a release that does not read the variable say nothing; a
    Mamba flag without config.json makes it a warning (assumed hybrid)."""
    hybrid = ("--framework-version", "0.5.23", "--model-config", str(MODELS / "qwen3.6-27b"))
    command = "python -m sglang.launch_server --model-path Qwen/Qwen3.6-27B --dtype float16"
    assert _codes(command, *hybrid) == [("RS073", "error")]
    assert _message(command, "RS073", *hybrid) == (
        "--dtype float16 serves the model's activations in float16, but SGLang keeps the "
        "Mamba/linear-attention conv state in bfloat16 (SGLANG_MAMBA_CONV_DTYPE unset, so its default "
        "bfloat16; mamba2_state_dtype, srt/configs/mamba_utils.py:68) and writes the activations into it "
        'unconverted: the first prefill stops with "Index put requires the source and destination dtypes '
        'match, got BFloat16 for the destination and Half for the source" '
        "(srt/layers/attention/linear/gdn_backend.py for linear-attention layers, MambaMixer2 in "
        "srt/layers/attention/mamba/mamba.py for Mamba2 layers)"
    )
    workaround = f"SGLANG_MAMBA_CONV_DTYPE=float16 {command} --mamba-ssm-dtype float16"
    assert _codes(workaround, *hybrid) == []
    assert _codes("python -m sglang.launch_server --model-path Qwen/Qwen3.6-27B", *hybrid) == []
    reverse = "SGLANG_MAMBA_CONV_DTYPE=float32 python -m sglang.launch_server --model-path Qwen/Qwen3.6-27B"
    assert "in float32 (SGLANG_MAMBA_CONV_DTYPE=float32;" in _message(reverse, "RS073", *hybrid)  # auto: bf16
    dense = ("--framework-version", "0.5.23", "--model-config", str(MODELS / "qwen3-14b"))
    assert _codes("python -m sglang.launch_server --model-path Qwen/Qwen3-14B --dtype float16", *dense) == []
    assert (
        _codes(command, "--framework-version", "0.5.8.post1", "--model-config", str(MODELS / "qwen3.6-27b"))
        == []
    )
    flagged = "python -m sglang.launch_server --model-path m --dtype half --mamba-ssm-dtype float16"
    assert _codes(flagged, "--framework-version", "0.5.23") == [("RS073", "warning")]
    assert _message(flagged, "RS073", "--framework-version", "0.5.23").endswith(
        "(assumed: a hybrid model, as --mamba-ssm-dtype says)"
    )


PRIVILEGED = (
    "docker run --runtime nvidia {flag} --gpus device=1 -e CUDA_VISIBLE_DEVICES=1 "
    "lmsysorg/sglang:v0.5.10.post1 python3 -m sglang.launch_server --model-path m"
)


def test_a_privileged_container_has_every_host_gpu() -> None:
    """PR#6058's compose file is privileged: Docker gives such a container every host device, all GPUs
    numbered as on the host (NVIDIA/nvidia-docker#764), so CUDA_VISIBLE_DEVICES=1 is the host's GPU 1 and
    the device request does not renumber it (TP043 was a wrong error). Without the privilege the request
    does renumber."""
    assert [c for c, _ in _codes(PRIVILEGED.format(flag="--privileged"))] == []
    assert [c for c, _ in _codes(PRIVILEGED.format(flag="--privileged=true"))] == []
    assert [c for c, _ in _codes(PRIVILEGED.format(flag="--privileged=false"))] == ["TP043"]
    assert [c for c, _ in _codes(PRIVILEGED.format(flag=""))] == ["TP043"]


def test_why_on_the_quoted_messages() -> None:
    """PR#6058's refusal: the releases registering the class are the way out (was: change --model-path);
    MiaAI-Lab#7's capped line and PR#19002's assertion are placed, their fixes the settings' (b)."""
    refusal = explain(
        "ValueError: XLMRobertaForSequenceClassification has no SGlang implementation and the Transformers "
        "implementation is not compatible with SGLang.",
        version="0.4.7",
    )
    first = refusal["matches"][0]
    assert (first["framework"], first["function"]) == ("sglang", "resolve_transformers_arch")
    assert first["fix"] == (
        "XLMRobertaForSequenceClassification is registered in SGLang 0.4.7.post1-0.5.23 (0.4.7, the release "
        "named, does not) (the model class tables): install a release that registers it"
    )
    capped = explain(
        "max_running_requests is capped to 12 by the mamba state cache (max_mamba_cache_size=64, 5 state "
        "slots per request). To raise it: increase --mamba-full-memory-ratio or --max-mamba-cache-size, or "
        "halve the state size with --mamba-ssm-dtype bfloat16."
    )
    assert capped["matches"][0]["function"] == "KVCacheConfigurator.resolve_max_num_reqs"
    # sglang#31719's traceback and PR#20217's kernel error: the conv state's dtype against --dtype (`check`
    # needs config.json for RS073; `why` names the cause from the text)
    index_put = explain(
        'File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/attention/linear/gdn_backend.py", '
        "line 438, in forward_extend\n"
        "    conv_states[forward_metadata.conv_states_mask_indices] = (\n"
        "RuntimeError: Index put requires the source and destination dtypes match, got BFloat16 for the "
        "destination and Half for the source."
    )
    assert [s["id"] for s in index_put["signatures"]] == ["sglang-mamba-conv-dtype-index-put"]
    assert index_put["signatures"][0]["fix"] == (
        "Set SGLANG_MAMBA_CONV_DTYPE to the serving dtype (SGLANG_MAMBA_CONV_DTYPE=float16 with --dtype "
        "float16, and --mamba-ssm-dtype float16), or serve in bfloat16"
    )
    kernel = explain(
        "RuntimeError: Expected conv_states_.scalar_type() == input_type to be true, but got false."
    )
    assert [s["id"] for s in kernel["signatures"]] == ["sglang-mamba-conv-dtype-kernel"]
    # a KV cache's FP8 buffer given bytes (kvcached#214) is another tensor: not this signature
    other = explain(
        "RuntimeError: Index put requires the source and destination dtypes match, got Float8_e4m3fn for the "
        "destination and Byte for the source."
    )
    assert not [s for s in other["signatures"] if s["id"].startswith("sglang-mamba-conv")]
    ping_pong = explain(
        "AssertionError: Not enough space for mamba ping pong idx, try to increase --mamba-full-memory-ratio."
    )
    assert ping_pong["matches"][0]["function"] == "HybridReqToTokenPool.alloc"


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglangpr19002_pd_decode_mamba_cache_size.cmd": (
        "decode",
        "the PD decode server's pool ignored --max-mamba-cache-size before the fix (PR#19002, 2026-02): the "
        "release is not named, and the newest bundled one has the fix; `why` places the assertion only",
    ),
    "sglangpr20741_qwen35_flashinfer_gdn_bf16.cmd": (
        "A_log",
        "FlashInfer's GDN decode kernel asserts A_log in float32, which qwen3_5.py declared without a dtype "
        "(fixed later by casting in gdn_flashinfer.py): a model class's parameter dtype, not read",
    ),
    "sglangpr21558_gdn_flashinfer_decode_mtp_b200.cmd": (
        "verify",
        "FlashInfer's GDN kernel on SM100 had no verify path under MTP (fixed in a later release): the GPU "
        "and the release are not named, and no argument check refuses the pair",
    ),
    "sglang37066_dflash_lazy_one_slot_short.cmd": (
        "slot",
        "SGLang's admission clamp allows 4 // 4 = 1 request, and chunk-boundary caching needs one slot more "
        "at run time: RS074 follows the clamp, which the release itself gets wrong here",
    ),
    "sglang7936_llama4_page_size_4.cmd": (
        "page",
        "Llama 4's attention gave garbage with a page size above 1 on 0.4.9: the model class's, at run time",
    ),
    "sglangpr6744_llama4_context_2800000.cmd": (
        "context",
        "buffers sized by a 2.8M-token context: the memory layer needs config.json (Llama 4's sizes)",
    ),
    "sglangpr17630_gptoss_eagle3_spec_v2_swa.cmd": (
        "SWA",
        "the draft pool sized before the hybrid SWA adjustment (fixed by PR#17630): gpt-oss's sliding window "
        "is config.json's and the release is not named",
    ),
    "sglang9832_gptoss_torch_compile.cmd": (
        "torch",
        "the triton_kernels MoE kernel SGLang turns on for GPT-OSS fails under torch.compile (a PyTorch "
        "bug): the model's class, at run time",
    ),
    "sglangpr15279_fp4_kv_eagle.sh": (
        "fp4",
        "an FP4 KV cache under EAGLE's target-verify casts the query to Float4_e2m1fn_x2, which copy_ lacks: "
        "a run-time path of the release, not an argument check",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}


def test_the_generator_reads_the_ratio_forms() -> None:
    """scripts/gen_sglang_mamba_slots.py on the two shapes of the wheels (constants beside the function, and
    0.5.22's get_mamba_tracking_slots) and on a form it does not know (left out)."""
    import sys

    sys.path.insert(0, str(REPO / "scripts"))
    from gen_sglang_mamba_slots import facts

    old = (
        "MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO = 3\n"
        "MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP = 2\n"
        "MAMBA_CACHE_V2_ADDITIONAL_RATIO_NO_OVERLAP = 1\n"
        "class M:\n"
        "    def _calculate_mamba_ratio(self):\n"
        "        if self.server_args.disable_radix_cache:\n"
        "            return 1\n"
        "        additional_ratio = 0\n"
        "        if self.server_args.enable_mamba_extra_buffer():\n"
        "            if not self.server_args.disable_overlap_schedule:\n"
        "                additional_ratio = MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP\n"
        "            else:\n"
        "                additional_ratio = MAMBA_CACHE_V2_ADDITIONAL_RATIO_NO_OVERLAP\n"
        "        return MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO + additional_ratio\n"
        "    def _resolve_max_num_reqs(self, n):\n"
        "        ratio = self._calculate_mamba_ratio()\n"
        "        return min(n, self.server_args.max_mamba_cache_size // ratio)\n"
    )
    assert facts({"sglang/srt/model_executor/model_runner_kv_cache_mixin.py": old}) == {
        "base": 3,
        "overlap": 2,
        "no_overlap": 1,
        "ratio_at": "sglang/srt/model_executor/model_runner_kv_cache_mixin.py:5",
        "cap_at": "sglang/srt/model_executor/model_runner_kv_cache_mixin.py:17",
    }
    tracking = (
        "def get_mamba_tracking_slots(*, extra_buffer, overlap, lazy=False):\n"
        '    """Tracking slots."""\n'
        "    if not extra_buffer:\n"
        "        return 0\n"
        "    if lazy:\n"
        "        return 1\n"
        "    return 2 if overlap else 1\n"
    )
    new = (
        "MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO = 3\n"
        "MAMBA_CACHE_BASE_RATIO_DROP_ON_SKIP = 1\n"
        "MAMBA_CACHE_V2_ADDITIONAL_RATIO_NO_BUFFER = 1\n"
        "class K:\n"
        "    def _calculate_mamba_ratio(self):\n"
        "        if get_memory().disable_radix_cache:\n"
        "            return 1\n"
        "        skip_decode_lock = envs.SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK.get()\n"
        "        base = MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO - (\n"
        "            MAMBA_CACHE_BASE_RATIO_DROP_ON_SKIP if skip_decode_lock else 0)\n"
        "        additional_ratio = get_mamba_tracking_slots(extra_buffer=True, overlap=True)\n"
        "        if not additional_ratio and skip_decode_lock:\n"
        "            additional_ratio = MAMBA_CACHE_V2_ADDITIONAL_RATIO_NO_BUFFER\n"
        "        return base + additional_ratio\n"
        "    def resolve_max_num_reqs(self, n):\n"
        "        ratio = self._calculate_mamba_ratio()\n"
        "        mamba_cap = get_schedule().max_mamba_cache_size // ratio\n"
    )
    got = facts({"sglang/srt/mem_cache/allocation_sizing.py": tracking, "sglang/srt/mem_cache/k.py": new})
    assert got is not None
    assert {k: v for k, v in got.items() if not k.endswith("_at")} == {
        "base": 3,
        "overlap": 2,
        "lazy": 1,
        "no_overlap": 1,
        "skip_drop": 1,
        "no_buffer_skip": 1,
    }
    assert facts({"m.py": old.replace("return 1\n", "return 2\n", 1)}) is None  # not the radix-off form


POD = """apiVersion: v1
kind: Pod
metadata:
  name: sglang
spec:
  containers:
    - name: server
      image: lmsysorg/sglang:v0.5.10.post1
      command: ["python3", "-m", "sglang.launch_server", "--model-path", "m"]
      env:
        - name: CUDA_VISIBLE_DEVICES
          value: "1"
      securityContext:
        privileged: {privileged}
      resources:
        limits:
          nvidia.com/gpu: 1
"""


@pytest.mark.parametrize(("privileged", "codes"), [("true", []), ("false", ["TP043"])])
def test_a_privileged_pod_has_every_node_gpu(tmp_path: Path, privileged: str, codes: list[str]) -> None:
    """The Kubernetes form of PR#6058's compose service: a privileged container has every GPU of the node,
    so the device plugin's one GPU does not renumber CUDA_VISIBLE_DEVICES."""
    pod = tmp_path / "pod.yaml"
    pod.write_text(POD.format(privileged=privileged), encoding="utf-8")
    report = run_cli(["check", "--format", "json", "--no-resolve", str(pod)]).json
    assert [f["code"] for f in report["findings"] if f["severity"] != "info"] == codes
