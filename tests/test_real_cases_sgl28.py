"""SGLang batch of the 28th session (docs/real_cases.md, "SGLang sgl28: rank placement over nodes, the
router's launcher over nodes, the `sglang` command without `serve`, DP attention, pipeline parallelism,
multi-node starts"), measured before any fix.

Fourteen failure reports of 2025-2026 whose cause lies in the launch (TP x PP over two visible GPUs, PP
beside DP attention, DP attention on a qwen2.py model and on Qwen2 MoE before it had it, DP attention with
EP and no all-to-all backend, DeepEP with dp != ep, Qwen3.5 with different prefill and decode backends,
``--quantization fp8`` on DeepSeek-V3's FP8 checkpoint, the router's launcher with DP over two nodes, a
bracketed IPv6 ``--dist-init-addr`` on early-2025 releases, ``--tp 14`` over four nodes, fa3 with an fp8
KV cache in ``sglang.Engine``, ``sglang`` run without ``serve``, a dLLM model with no SGLang class) and five
correct launches (``ok_*``). Each case under ``tests/data/real_cases_sgl28/`` names its URL in its header:
``.cmd`` launches (``argtrace check -c``), scripts and a Python launch. A new user's machine (no resolver
environment, no Hugging Face cache); ``--framework-version`` only where the report names its release
(gpustack#2501: 0.5.5, sglang#9805: 0.5.1.post2, vllm-studio PR#331: 0.5.8). Each command runs once per
worker (tests/batches.py's ``recorded_*``). No report quotes an SGLang message `why` could place (the one
error text quoted, sglang#28615's, is PyTorch's own), so the classes are `check`'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.rank_shares import place_ranks
from tests.batches import (
    RECONSTRUCTED,
    finding,
    missing_cases,
    recorded_check,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl28"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by `check`: first seen (4282cee2) and now.
CLASSES = {
    "gpustack2501_tp2_pp2_two_visible_gpus.sh": ("a", "a"),
    "sglang2591_tp14_four_nodes.sh": ("c", "a"),
    "sglang6370_router_dp_over_two_nodes.sh": ("c", "a"),
    "vllmstudiopr331_sglang_without_serve.cmd": ("c", "a"),
    "sglang9805_pp_with_dp_attention.cmd": ("c", "c"),
    "sglang28615_dp_attention_qwen25_triton.cmd": ("c", "c"),
    "sglangpr19430_qwen35_prefill_decode_backends.cmd": ("c", "c"),
    "sglang3283_dsv3_quantization_fp8_two_nodes.sh": ("c", "c"),
    "sglang2892_ipv6_dist_init_addr.sh": ("c", "c"),
    "sglang5700_engine_fa3_fp8_kv.py": ("c", "c"),
    "minerudiffusion8_dllm_model_without_sglang_class.sh": ("c", "c"),
    "sglang6088_qwen2_moe_dp_attention.cmd": ("c", "c"),
    "sglang23729_dp_attention_ep_bf16_moe.cmd": ("c", "c"),
    "sglang6733_deepep_dp_not_ep.cmd": ("c", "c"),
}
# the release a report names (argtrace analyses it with the bundled release of its family)
OPTIONS = {
    "gpustack2501_tp2_pp2_two_visible_gpus.sh": ("--framework-version", "0.5.5"),
    "sglang9805_pp_with_dp_attention.cmd": ("--framework-version", "0.5.1.post2"),
    "vllmstudiopr331_sglang_without_serve.cmd": ("--framework-version", "0.5.8"),
}
CORRECT = [
    "ok_sglangpr7681_qwen3_dense_dp_attention.cmd",
    "ok_sglang6370_two_servers_and_router.sh",
    "ok_sglangpr19369_qwen3_next_prefill_decode_backends.cmd",
    "ok_sglangpr3314_dsv3_two_nodes.sh",
    "ok_vllmstudiopr331_sglang_serve.cmd",
]


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([1, 0, 13, 0], [4, 0, 10, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-04: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


ALARMS = {
    "gpustack2501_tp2_pp2_two_visible_gpus.sh": [("PR004", "error")],
    "sglang2591_tp14_four_nodes.sh": [("RS071", "warning")],
    "sglang6370_router_dp_over_two_nodes.sh": [("RS067", "warning")],
    "vllmstudiopr331_sglang_without_serve.cmd": [("TP104", "error")],
}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm from `check`, before or after: PR004 (first seen) and the three new findings are the
    causes; the others get notes only (the release assumed or substituted, --tp read as --tp-size, flags a
    later release deprecates)."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_tp14_over_four_nodes_names_the_ranks_no_node_starts() -> None:
    rs071 = finding(check("sglang2591_tp14_four_nodes.sh"), "RS071")
    assert rs071["message"] == (
        "--tp-size 14 does not divide over --nnodes 4: SGLang starts 3 tensor-parallel ranks on each node "
        "(node 0: tp 0-2; node 1: tp 3-5; node 2: tp 6-8; node 3: tp 9-11), so tensor-parallel ranks 12-13 "
        "of the 14 ranks are started on no node; the ranks that start wait for the others in "
        "torch.distributed's rendezvous until its timeout, and the server never comes up"
    )
    assert rs071["fix"] == (
        "give --tp-size a multiple of the 4 node(s) each pipeline stage spans (here 12 or 16), with "
        "tp-size / 4 GPUs on each node, or run on a number of nodes that divides 14"
    )
    assert (rs071["at"], rs071["setting"], rs071["basis"]) == (
        "sglang2591_tp14_four_nodes.sh:3:64",
        "tp_size",
        "assumed",
    )


def test_the_router_launcher_over_two_nodes() -> None:
    rs067 = finding(check("sglang6370_router_dp_over_two_nodes.sh"), "RS067")
    assert rs067["message"] == (
        "sglang_router.launch_server starts all --dp-size 2 replicas on the node it runs on (GPUs 0-7, 8-15: "
        "base_gpu_id = replica x tp-size 8), each with the same --nnodes 2 --node-rank 0 --dist-init-addr "
        "10.0.0.1:5000: the replicas of this node claim one node rank of one rendezvous instead of forming "
        "separate multi-node servers, so the launch cannot come up as intended (the launcher's data "
        "parallelism is one node's)"
    )
    assert rs067["fix"].startswith(
        "start each replica as its own server with `python -m sglang.launch_server`"
    )
    assert (rs067["at"], rs067["setting"], rs067["basis"]) == (
        "sglang6370_router_dp_over_two_nodes.sh:3:100",
        "nnodes",
        "assumed",
    )


def test_sglang_without_serve_names_the_parser_error_and_inserts_serve() -> None:
    tp104 = finding(check("vllmstudiopr331_sglang_without_serve.cmd"), "TP104")
    assert tp104["message"] == (
        "`sglang` is SGLang's command-line tool, whose first word must be a subcommand (`serve` starts the "
        'server; sglang/cli/main.py): given `--model-path` there, its parser stops with "argument '
        "subcommand: invalid choice: 'Qwen/Qwen3-8B'\" (exit status 2) and no server starts"
    )
    assert tp104["fix"] == (
        "Insert `serve` after `sglang` at <-c>:1:1. SGLang releases before 0.5.5 have no `sglang serve`: "
        "start those with `python -m sglang.launch_server` and the same flags."
    )
    assert tp104["fix_edits"] == [{"file": "<-c>", "start": "1:7", "end": "1:7", "replacement": " serve"}]
    assert (tp104["fix_verified"], tp104["basis"]) == (True, "framework-code")
    assert "SH019" not in [f["code"] for f in check("vllmstudiopr331_sglang_without_serve.cmd")["findings"]]


def test_the_text_says_it_once() -> None:
    """TP104 says no server starts: the text leaves out check's note that none was found (JSON keeps it)."""
    result = run_cli(["check", "--no-resolve", "-c", "sglang --model-path Qwen/Qwen3-8B --port 30000"])
    assert "ERROR TP104" in result.stdout
    assert "no SGLang or vLLM server start was found" not in result.stdout
    report = run_cli(["check", "--format", "json", "--no-resolve", "-c", "sglang --model-path M"]).json
    assert any(n.startswith("no SGLang or vLLM server start was found in ") for n in report["notes"])


def _codes(command: str, *options: str) -> list[tuple[str, str, str]]:
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command]).json
    return [(f["code"], f["severity"], f["message"]) for f in report["findings"] if f["severity"] != "info"]


def test_console_scripts_without_a_subcommand() -> None:
    """Variants (not reports) of vllm-studio PR#331: vLLM's console refuses the same way (a model word or an
    option first); a subcommand of its own, help, version and vLLM's --omni say nothing."""
    ((code, severity, message),) = _codes("vllm --model Qwen/Qwen3-8B --port 8000")
    assert (code, severity) == ("TP104", "error")
    assert message.endswith(
        "(`serve` starts the server; vllm/entrypoints/cli/main.py): given `--model` there, its parser stops "
        "with \"argument subparser: invalid choice: 'Qwen/Qwen3-8B'\" (exit status 2) and no server starts"
    )
    ((_, _, message),) = _codes("vllm --model=Qwen/Qwen3-8B")
    assert 'stops with "unrecognized arguments: --model=Qwen/Qwen3-8B"' in message
    ((_, _, message),) = _codes("nohup /opt/venv/bin/sglang --model-path=/models/q")
    assert message.startswith("`/opt/venv/bin/sglang` is SGLang's command-line tool")
    assert 'stops with "the following arguments are required: subcommand"' in message
    for command in (
        "vllm chat",
        "sglang version",
        "vllm bench serve --model m",
        "sglang --help",
        "vllm --omni m/x",
    ):
        assert [c for c, _, _ in _codes(command)] == [], command


def test_a_container_that_runs_the_tool_without_serve() -> None:
    """The image's entrypoint runs its arguments (lmsysorg/sglang): the container's `sglang --model-path M`
    is TP104, in place of SH019, with no edit (the image's name may be the same word); an image whose
    entrypoint is not known (TP040) may take those words as its own arguments, so nothing is said."""
    command = "docker run --gpus all lmsysorg/sglang:v0.5.10.post1 sglang --model-path Qwen/Qwen3-8B"
    report = run_cli(["check", "--format", "json", "--no-resolve", "-c", command]).json
    ((tp104,),) = [[f for f in report["findings"] if f["code"] == "TP104"]]
    assert (tp104["severity"], tp104["fix_edits"], tp104["evidence"][0]["layer"]) == (
        "error",
        [],
        "transport",
    )
    assert "SH019" not in [f["code"] for f in report["findings"]]
    assert _codes("docker run --gpus all vllm vllm --model Qwen/Qwen3-8B") == []


def test_ranks_per_node_follow_sglang_placement() -> None:
    """``place_ranks`` against SGLang's _calculate_rank_ranges on sizes that divide and that do not."""
    assert place_ranks(2, 16, 1).missing == ()
    assert place_ranks(4, 8, 2).missing == ()  # two nodes per stage, 4 tensor ranks on each
    assert [tuple(tp) for _, tp in place_ranks(4, 14, 1).per_node] == [
        (0, 1, 2),
        (3, 4, 5),
        (6, 7, 8),
        (9, 10, 11),
    ]
    assert place_ranks(4, 14, 1).missing == ((0, 12), (0, 13))
    assert place_ranks(3, 8, 2).extra == tuple((2, t) for t in range(8))  # node 2 gets stage 2 of 2
    assert place_ranks(2, 1, 1).missing == ((0, 0),)  # one rank over two nodes: tp_size // 2 is 0


def test_rank_placement_per_size_dp_and_release() -> None:
    """Variants of sglang#2591: the release named makes it an error; sizes that divide, one node, DP
    replicas (the controller's own placement) and vLLM say nothing; a pipeline that does not divide does."""
    base = "python3 -m sglang.launch_server --model-path m --dist-init-addr 10.0.0.1:5000 --node-rank 0"
    ((code, severity, _),) = _codes(f"{base} --tp-size 14 --nnodes 4", "--framework-version", "0.5.23")
    assert (code, severity) == ("RS071", "error")
    for flags in (
        "--tp-size 16 --nnodes 4",
        "--tp-size 14",
        "--tp-size 14 --nnodes 4 --dp-size 2 --enable-dp-attention",
    ):
        assert [c for c, _, _ in _codes(f"{base} {flags}")] == [], flags
    ((_, _, message),) = _codes(f"{base} --tp-size 8 --pp-size 2 --nnodes 3")
    assert message.startswith(
        "--tp-size 8 x --pp-size 2 does not divide over --nnodes 3: SGLang starts 1 pipeline stage and 8 "
        "tensor-parallel ranks on each node (node 0: stage 0, tp 0-7; node 1: stage 1, tp 0-7; node 2: "
        "stage 2, tp 0-7), so nodes are given 8 (stage, rank) pairs"
    )


def test_router_launcher_per_size() -> None:
    """Variants of sglang#6370: one node, one replica, or the server's own launcher say nothing."""
    router = "python -m sglang_router.launch_server --model-path m --tp-size 4"
    ((code, severity, _),) = _codes(
        f"{router} --dp-size 2 --nnodes 2 --node-rank 1", "--framework-version", "0.5.23"
    )
    assert (code, severity) == ("RS067", "error")
    for command in (
        f"{router} --dp-size 2",
        f"{router} --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000",
        "python -m sglang.launch_server --model-path m --tp-size 4 --dp-size 2 --nnodes 2 --node-rank 0 "
        "--dist-init-addr 10.0.0.1:5000",
    ):
        assert [c for c, _, _ in _codes(command)] == [], command


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglang9805_pp_with_dp_attention.cmd": (
        "pp",
        "pipeline parallelism beside DP attention crashes on the warmup request in 0.5.1.x: no release's "
        "argument checks refuse the pair (no raise site to evaluate), the crash is in the forward pass",
    ),
    "sglang28615_dp_attention_qwen25_triton.cmd": (
        "qwen2",
        "the KV heads of qwen2.py's attention split by tp_size against DP attention's pool: the model class "
        "(config.json's Qwen2ForCausalLM) and a run-time shape error",
    ),
    "sglangpr19430_qwen35_prefill_decode_backends.cmd": (
        "linear",
        "different prefill and decode backends on a hybrid linear-attention model: the hybrid layers are "
        "config.json's, and which releases before the fix (PR#19369) lack HybridAttnBackend.forward is not "
        "read",
    ),
    "sglang3283_dsv3_quantization_fp8_two_nodes.sh": (
        "quantization",
        "--quantization fp8 on a checkpoint already FP8 (quantization_config in config.json, which a new "
        "user's machine lacks)",
    ),
    "sglang2892_ipv6_dist_init_addr.sh": (
        "IPv6",
        "a bracketed IPv6 --dist-init-addr hangs on the releases before PR#3949 (early 2025); the release is "
        "not named, and the newest bundled one parses the bracketed form (NetworkAddress.parse)",
    ),
    "sglang5700_engine_fa3_fp8_kv.py": (
        "fa3",
        "FlashAttention 3 without q_descale for an fp8_e4m3 KV cache: wrong output at run time, fixed in a "
        "later release; no site logs it",
    ),
    "minerudiffusion8_dllm_model_without_sglang_class.sh": (
        "MinerU",
        "the architecture has no SGLang model class (a fork adds it): config.json's architectures against "
        "the release's registry, which a new user's machine cannot read",
    ),
    "sglang6088_qwen2_moe_dp_attention.cmd": (
        "Qwen2",
        "DP attention on a Qwen2 MoE class that had none (until PR#6121): the model class is config.json's",
    ),
    "sglang23729_dp_attention_ep_bf16_moe.cmd": (
        "ep",
        "DP attention with EP and no --moe-a2a-backend gives wrong logits: silent corruption at run time, no "
        "site logs it",
    ),
    "sglang6733_deepep_dp_not_ep.cmd": (
        "deepep",
        "DeepEP low-latency mode hangs when --dp differs from the expert-parallel size: a run-time hang in "
        "the release of the report, no argument check refuses it",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
