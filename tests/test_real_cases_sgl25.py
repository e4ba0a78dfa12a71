"""SGLang batch sgl25 (docs/real_cases.md, "SGLang sgl25: Python keywords, HiCache host pools, DeepEP v2,
image tags, single-node addresses, served names"), measured before any fix.

Fifteen failure reports of 2025-2026 whose cause lies in the launch (a string where ServerArgs takes a list,
a per-rank --hicache-size, a HiCache ratio past what the host pins, --moe-a2a-backend deepep_v2 on an
architecture it does not validate, an image tag that does not exist, --dist-init-addr on one node, a colon
in --served-model-name, --enable-single-batch-overlap on the release that broke it, DP ranks binding ports
in the ephemeral range) and five correct launches (``ok_*``: `sglang serve` of Qwen3.6-27B, a DP LM head
under DP attention, a two-node start with SGLANG_HOST_IP, a LoRA adapter loaded at start-up, HiCache's best
practice). Each case under ``tests/data/real_cases_sgl25/`` names its URL in its header: ``.cmd`` launches
(``argtrace check -c``), a script, a Kubernetes Deployment and a Python program. The error a report quotes
is in ``WHY_TEXTS`` (``argtrace why``). A new user's machine (no resolver environment, no Hugging Face
cache); ``--framework-version`` only where the report names the release (sglang#37215: 0.5.9; InferenceX
PR#2146: the v0.5.14 image). Each command runs once per worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import (
    RECONSTRUCTED,
    WhyCase,
    assert_why_gives,
    finding,
    missing_cases,
    recorded_check,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl25"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check` and `why`: first seen (3d828a5d) and now.
CLASSES = {
    "verlpr7288_lora_target_modules_all_linear.py": ("b", "a"),
    "sglangpr39408_deepep_v2_qwen35.cmd": ("a", "a"),
    "sglangpr29263_hicache_size_per_rank.cmd": ("c", "b"),
    "sglangpr40135_hicache_default_ratio.cmd": ("b", "b"),
    "sglang12745_served_model_name_colon.cmd": ("c", "c"),
    "sglang22877_dist_init_addr_single_node.cmd": ("c", "c"),
    "llmd2418_image_tag_v0_5_16_0.yaml": ("c", "c"),
    "sglang25491_sbo_deepgemm_v0512.sh": ("c", "c"),
    "sglangpr7988_llama4_hybrid_kvcache.cmd": ("c", "c"),
    "sglangpr39080_deepep_v2_mimov2.cmd": ("c", "c"),
    "sglangpr30975_longcat_deepep_ignored.cmd": ("c", "c"),
    "sglang36802_glm53_flash_dp_attention.cmd": ("c", "c"),
    "sglang37215_dp8_eaddrinuse.cmd": ("c", "c"),
    "inferencexpr2146_hicache_ratio_8_mi355x.cmd": ("c", "c"),
    "sglangpr32373_hicache_size_hybrid_swa.cmd": ("c", "c"),
}
CORRECT = [
    "ok_chinatravel27_serve_qwen36.cmd",
    "ok_sglangpr10860_bailing_dp_lm_head.cmd",
    "ok_miaai9_sglang_host_ip_two_nodes.cmd",
    "ok_sglangpr11570_lora_adapter.cmd",
    "ok_sglangpr11001_hicache_best_practice.cmd",
]
# the release a report names (no GPU they name has a profile: H800, MI355X)
OPTIONS = {
    "sglang37215_dp8_eaddrinuse.cmd": ("--framework-version", "0.5.9"),
    "inferencexpr2146_hicache_ratio_8_mi355x.cmd": ("--framework-version", "0.5.14"),
}
# the error each report quotes (the others quote none, or a traceback cut before the message)
WHY_TEXTS = {
    "sglangpr39408_deepep_v2_qwen35.cmd": (
        "ValueError: DeepEP v2 MoE is not validated for 'Qwen3_5MoeForConditionalGeneration'; supported "
        "architectures are ['DeepseekV3ForCausalLM', 'DeepseekV4ForCausalLM', 'Qwen3MoeForCausalLM']. Other "
        "model workflows may require an all-reduce after A2A combine. Use --moe-a2a-backend deepep."
    ),
    "sglangpr40135_hicache_default_ratio.cmd": "Not enough host memory available",
    "inferencexpr2146_hicache_ratio_8_mi355x.cmd": (
        "RuntimeError: cudaHostRegister failed (rc=1, invalid argument) for ptr=0x6f6388400000 "
        "size=531470745600; host buffer is not pinned and device transfers may silently return stale data"
    ),
    "verlpr7288_lora_target_modules_all_linear.py": (
        "NotImplementedError: get_hidden_dim not implemented for i"
    ),
}
WHY = [
    WhyCase(
        "sglangpr39408_deepep_v2_qwen35.cmd",
        "a",
        "a",
        "validate_deepep_v2_model_architecture",
        "strong",
        at="sglang/srt/arg_groups/moe_hook.py:622",
        settings=("moe_a2a_backend",),
        fix="make the condition false (architecture not in validated_architectures): change "
        "--moe-a2a-backend",
    ),
    # the raise site is right, its fix is not: the host pool's size follows --hicache-ratio/--hicache-size,
    # which the index does not see read (class b)
    WhyCase(
        "sglangpr40135_hicache_default_ratio.cmd",
        "b",
        "b",
        "HostKVCache._allocate_host_buffer",
        "strong",
        at="sglang/srt/mem_cache/pool_host/base.py:252",
        settings=("page_size",),
        fix="make the condition false (requested_bytes > available_bytes): change --page-size",
    ),
    WhyCase(
        "inferencexpr2146_hicache_ratio_8_mi355x.cmd",
        "c",
        "c",
        "_cuda_host_register",
        "strong",
        at="sglang/srt/mem_cache/pool_host/common.py:125",
        settings=(),
        fix="make the condition false (int(rc) != 0)",
    ),
    WhyCase(
        "verlpr7288_lora_target_modules_all_linear.py",
        "c",
        "c",
        "get_default_hidden_dim",
        "strong",
        at="sglang/srt/lora/utils.py:274",
        settings=(),
        fix="make the condition false (not (module_name == 'lm_head'))",
    ),
]


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([1, 2, 12, 0], [2, 2, 11, 0])
    for case in WHY:
        assert "abcd".index(CLASSES[case.name][1]) <= "abcd".index(case.grade), case.name


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-04: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


# the alarms `check` gives now: each a true one (before any fix none: PA009's note on verl's keyword)
ALARMS = {"verlpr7288_lora_target_modules_all_linear.py": [("PA053", "warning")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm (d), before or after: the one warning is PA053's on verl PR#7288 (a string where
    ServerArgs takes a list); the others get notes only (abbreviations, a release not named, a deprecated
    flag, what a fixed HiCache size pins)."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_verl_names_the_string_sglang_iterates() -> None:
    pa053 = finding(check("verlpr7288_lora_target_modules_all_linear.py"), "PA053")
    assert pa053["message"] == (
        "sglang.Engine() is given lora_target_modules='all-linear', a string, where "
        "ServerArgs.lora_target_modules is annotated as a sequence of values: the class keeps the string as "
        "given (no argparse runs, nothing splits it), so the release's code that iterates "
        "lora_target_modules sees its characters ('a', 'l', 'l', '-', ...), not the values ['all-linear'] "
        "that `--lora-target-modules all-linear` gives on the command line"
    )
    assert pa053["fix"] == (
        "Write lora_target_modules=[...]: a list, one item per value (as --lora-target-modules takes them); "
        "'all-linear' itself is not one of --lora-target-modules's values (PA009 lists them)"
    )
    assert (pa053["at"], pa053["layer"], pa053["basis"]) == (
        "verlpr7288_lora_target_modules_all_linear.py:9:29",
        "parser",
        "framework-code",
    )
    # PA009 says what the release takes instead ('all'), a note: the release is assumed
    pa009 = finding(check("verlpr7288_lora_target_modules_all_linear.py"), "PA009")
    assert pa009["severity"] == "info" and "'all'" in pa009["message"]


def test_a_fixed_hicache_size_says_what_the_node_pins() -> None:
    mm014 = finding(check("sglangpr29263_hicache_size_per_rank.cmd"), "MM014")
    assert (mm014["severity"], mm014["message"]) == (
        "info",
        "--hicache-size 150 sizes the host KV cache of each rank, not of the server: the 4 ranks on this "
        "node (tp_size 4 x pp_size 1) pin 600 GB of host memory together",
    )
    assert {n for n, (_, now) in CLASSES.items() if now == "b"} == {
        "sglangpr29263_hicache_size_per_rank.cmd",
        "sglangpr40135_hicache_default_ratio.cmd",  # `why`'s fix names --page-size
    }


@pytest.mark.parametrize("case", WHY, ids=[c.name for c in WHY])
def test_why_on_the_quoted_errors(case: WhyCase) -> None:
    assert_why_gives(explain(WHY_TEXTS[case.name]), case, origin=False)


def _python(tmp_path: Path, source: str, *options: str) -> list[tuple[str, str, str, str]]:
    (tmp_path / "launch.py").write_text(source, encoding="utf-8")
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "launch.py"], cwd=tmp_path).json
    return [
        (f["code"], f["severity"], f["message"].split(": the class keeps", 1)[0], f["fix"])
        for f in report["findings"]
        if f["severity"] != "info" or f["code"] == "PA053"
    ]


def test_a_string_for_a_list_field_in_other_keywords_and_classes(tmp_path: Path) -> None:
    """Variants (not reports) of verl PR#7288's mechanism: an int list on the release named (the parser
    reads the words a list would give: no 'invalid int value'), vLLM's LLM, and a value that is one of the
    flag's choices (the fix is the list)."""
    engine = 'import sglang as sgl\ne = sgl.Engine(model_path="Qwen/Qwen3-8B", cuda_graph_bs="1 2 4")\n'
    assert _python(tmp_path, engine, "--framework-version", "0.5.10.post1") == [
        (
            "PA053",
            "warning",
            "sglang.Engine() is given cuda_graph_bs='1 2 4', a string, where ServerArgs.cuda_graph_bs is "
            "annotated as a sequence of values",
            "Write cuda_graph_bs=[...]: a list, one item per value (as --cuda-graph-bs takes them): "
            "[1, 2, 4]",
        )
    ]
    llm = 'from vllm import LLM\nllm = LLM(model="Qwen/Qwen3-8B", kv_cache_dtype_skip_layers="0")\n'
    assert [f[:2] for f in _python(tmp_path, llm)] == [("PA053", "warning")]
    choice = (
        "import sglang as sgl\ne = sgl.ServerArgs(model_path='m', enable_lora=True, max_lora_rank=64, "
        "lora_target_modules='all')\n"
    )
    (code, _, said, fix) = _python(tmp_path, choice)[0]
    assert (code, said.split(" is given")[0], fix.rsplit(": ", 1)[-1]) == (
        "PA053",
        "sglang.ServerArgs()",
        "['all']",
    )


def test_lists_and_fields_that_take_a_string_stay_quiet(tmp_path: Path) -> None:
    """The correct spellings: a list, and vLLM's served_model_name (annotated ``str | list[str]``)."""
    engine = (
        "import sglang as sgl\ne = sgl.Engine(model_path='Qwen/Qwen3-8B', enable_lora=True, "
        "max_lora_rank=64, lora_target_modules=['all'], cuda_graph_bs=[1, 2, 4])\n"
    )
    assert _python(tmp_path, engine, "--framework-version", "0.5.10.post1") == []
    llm = 'from vllm import LLM\nllm = LLM(model="Qwen/Qwen3-8B", served_model_name="qwen")\n'
    assert _python(tmp_path, llm) == []


def _mm014(command: str) -> list[str]:
    argv = ["check", "--format", "json", "--no-resolve", "--framework-version", "0.5.23", "-c"]
    report = run_cli([*argv, f"python3 -m sglang.launch_server --model-path m {command}"]).json
    return [f["message"].split(": the ", 1)[-1] for f in report["findings"] if f["code"] == "MM014"]


def test_the_ranks_a_fixed_hicache_size_counts() -> None:
    """Variants of sglang PR#29263: DP without DP attention multiplies the ranks, DP attention does not,
    --nnodes divides them; one rank, a ratio, or HiCache off say nothing."""
    hicache = "--enable-hierarchical-cache --hicache-size 100"
    assert _mm014(f"{hicache} --tp-size 2 --dp-size 2") == [
        "4 ranks on this node (tp_size 2 x pp_size 1 x dp_size 2) pin 400 GB of host memory together"
    ]
    assert _mm014(f"{hicache} --tp-size 8 --dp-size 8 --enable-dp-attention") == [
        "8 ranks on this node (tp_size 8 x pp_size 1) pin 800 GB of host memory together"
    ]
    assert _mm014(f"{hicache} --tp-size 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000") == [
        "8 ranks on this node (tp_size 16 x pp_size 1 over nnodes 2) pin 800 GB of host memory together"
    ]
    assert _mm014(hicache) == []
    assert _mm014("--enable-hierarchical-cache --hicache-ratio 2 --tp-size 4") == []
    assert _mm014("--hicache-size 100 --tp-size 4") == []


def test_a_value_after_a_flag_a_release_made_a_switch_picks_the_release_that_takes_it() -> None:
    """sglang PR#7988's `--hybrid-kvcache-ratio 0.5`: 0.5.8.post1-0.5.13.post1 keep the flag as a switch
    (the value is left over, argparse exits 2), so the release analysed is the newest that takes the value,
    and PR011 says where it is a switch (before: 0.5.13.post1, which refuses the command line)."""
    report = check("sglangpr7988_llama4_hybrid_kvcache.cmd")
    assert report["framework"]["analysed_with"] == "0.5.7"
    assert report["framework"]["accepted_by"][-1] == "0.5.7"
    assert finding(report, "PR011")["message"].endswith(
        "sglang 0.5.8.post1-0.5.13.post1 take --hybrid-kvcache-ratio as a switch, so 0.5 is left over "
        "(argparse exits 2)"
    )
    assert not any(f["code"] in ("PA022", "RS004") and "refused" in f["message"] for f in report["findings"])


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglangpr29263_hicache_size_per_rank.cmd": (
        "hicache-size",
        "how much host memory the node has is not known, so what the ranks pin together is a note (MM014)",
    ),
    "sglangpr40135_hicache_default_ratio.cmd": (
        "hierarchical",
        "the default ratio's host pool is the device KV pool times 2 per rank: it needs the model's "
        "config.json and the node's host memory; `why` ties the refusal to --page-size only",
    ),
    "sglang12745_served_model_name_colon.cmd": (
        "served-model-name",
        "the colon check (sglang PR#12912) reads one setting behind is_runai_obj_uri(), a call: RS032 judges "
        "combinations of settings only; the report's release split the name in requests, not at start-up",
    ),
    "sglang22877_dist_init_addr_single_node.cmd": (
        "dist-init-addr",
        "which components take --dist-init-addr for multi-node when --nnodes is 1 is runtime code "
        "(disaggregation/common/conn.py), read per release, not an argument check",
    ),
    "llmd2418_image_tag_v0_5_16_0.yaml": (
        "v0.5.16.0",
        "no list of the image tags Docker Hub has: PR011 only notes that the tag names no release",
    ),
    "sglang25491_sbo_deepgemm_v0512.sh": (
        "single-batch-overlap",
        "a regression of v0.5.12's DeepGEMM masked GEMM under --enable-single-batch-overlap: runtime code",
    ),
    "sglangpr7988_llama4_hybrid_kvcache.cmd": (
        "fa3",
        "the check tests the model's architecture (Llama4) read from config.json; no release is named and "
        "the newest accepting the flag name (0.5.13.post1) takes it as a switch",
    ),
    "sglangpr39080_deepep_v2_mimov2.cmd": (
        "deepep_v2",
        "validate_deepep_v2_model_architecture tests the architecture from config.json (no Hugging Face "
        "cache, no --model-config), and the report quotes no error for `why`",
    ),
    "sglangpr30975_longcat_deepep_ignored.cmd": (
        "moe-a2a-backend",
        "the scheduler skips initialize_moe_config for LongCat's moe_topk attribute: model code, no log line",
    ),
    "sglang36802_glm53_flash_dp_attention.cmd": (
        "dp-attention",
        "a hang in the model's idle forward under DP attention: runtime code",
    ),
    "sglang37215_dp8_eaddrinuse.cmd": (
        "port",
        "the TCPStore ports of the DP ranks are chosen at runtime inside the host's ephemeral port range",
    ),
    "inferencexpr2146_hicache_ratio_8_mi355x.cmd": (
        "hicache-ratio",
        "the pinned size is the device KV pool times 8 per rank (needs config.json and the GPU, MI355X has "
        "no profile) against ROCm's pinnable limit; `why` names the raise site but no flag",
    ),
    "sglangpr32373_hicache_size_hybrid_swa.cmd": (
        "SWA",
        "releases before the fix gave each of a hybrid SWA model's two host pools the whole --hicache-size: "
        "needs the model's config.json and the release; MM014 counts ranks, not pools",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
