"""NVIDIA Dynamo's workers, ``python3 -m dynamo.sglang`` / ``dynamo.vllm``, parsed as SGLang/vLLM servers.

Dynamo's own options come out of the words by the table ``frameworks/data/dynamo_options.json``
(generated from the ai-dynamo 1.6.1 wheel, and the options of older releases, by
``scripts/gen_dynamo_options.py``); the rest is the engine's argv. Correct manifests are reconstructions of
Dynamo's examples (their headers name the source and commit); each variant changes one thing and must fire.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from argtrace.frameworks.dynamo import split_dynamo
from tests.conftest import run_cli

DATA = Path(__file__).parent / "data" / "false_alarms" / "k8s"  # also in the false-alarm gate
SGLANG_AGG = DATA / "dynamo_sglang_agg.yaml"
VLLM_ROUTER = DATA / "dynamo_vllm_disagg_router.yaml"


def _report(tmp_path: Path, text: str, *options: str) -> dict[str, Any]:
    manifest = tmp_path / "dgd.yaml"
    manifest.write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, str(manifest)])
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _judged(report: dict[str, Any]) -> list[tuple[str, str, str | None, str]]:
    return [
        (f["code"], f["severity"], f["setting"], f["message"])
        for f in report["findings"]
        if f["severity"] != "info"
    ]


def _assumed(report: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    return [(f["code"], f["setting"], f["message"]) for f in report["findings"] if f["basis"] == "assumed"]


def test_the_sglang_worker_is_an_sglang_server(tmp_path: Path) -> None:
    report = _report(tmp_path, SGLANG_AGG.read_text())
    assert [(s["framework"], s["entrypoint"]) for s in report["servers"]] == [("sglang", "dynamo.sglang")]
    assert report["parser"]["argv"][:4] == [
        "--model-path",
        "Qwen/Qwen3-0.6B",
        "--served-model-name",
        "Qwen/Qwen3-0.6B",
    ]
    assert _judged(report) == []


def test_dynamos_own_options_do_not_reach_sglang(tmp_path: Path) -> None:
    text = SGLANG_AGG.read_text().replace(
        "            - --skip-tokenizer-init\n",
        "            - --skip-tokenizer-init\n            - --endpoint\n            - dyn://dynamo.backend.generate\n"
        "            - --dyn-reasoning-parser\n            - qwen3\n"
        "            - --router-mode\n            - kv\n",
    )
    report = _report(tmp_path, text)
    assert report["parser"]["argv"] == [
        *("--model-path", "Qwen/Qwen3-0.6B", "--served-model-name", "Qwen/Qwen3-0.6B", "--page-size", "16"),
        *("--tp", "1", "--trust-remote-code", "--skip-tokenizer-init"),
    ]
    assert report["parser"]["notes"] == [
        "dynamo.sglang options (ai-dynamo 1.6.1), not engine flags: --endpoint, --dyn-reasoning-parser, "
        "--router-mode"
    ]
    assert _judged(report) == []


def test_an_sglang_worker_with_tp_2_on_one_gpu(tmp_path: Path) -> None:
    text = SGLANG_AGG.read_text().replace('- --tp\n            - "1"', '- --tp\n            - "2"')
    assert _judged(_report(tmp_path, text)) == [
        (
            "PA036",
            "error",
            "tp_size",
            "each node needs 2 GPU(s) (tp_size 2 x pp_size 1) but gets 1: the pod's gpu limit "
            f"({tmp_path}/dgd.yaml:19)",
        )
    ]


def test_an_ambiguous_prefix_of_dynamos_options_stops_the_sglang_launcher(tmp_path: Path) -> None:
    # dynamo.sglang's first parser keeps argparse's allow_abbrev (dynamo/vllm's turns it off)
    text = SGLANG_AGG.read_text().replace(
        "            - --skip-tokenizer-init\n",
        "            - --skip-tokenizer-init\n            - --tcp-tls-c\n",
    )
    (finding,) = [f for f in _report(tmp_path, text)["findings"] if f["code"] == "PA008"]
    assert (finding["severity"], finding["message"]) == (
        "error",
        "ambiguous option: --tcp-tls-c could match --tcp-tls-ca-cert-path, --tcp-tls-cert-path, "
        "--tcp-tls-client-ca-cert-path, --tcp-tls-client-cert-path, --tcp-tls-client-key-path: "
        "dynamo.sglang's launcher (ai-dynamo 1.6.1) exits with status 2",
    )


def test_the_split_follows_each_launchers_abbreviation_rule() -> None:
    words = ["--model", "m", "--namesp", "ns", "--router-mode", "kv"]
    sglang = split_dynamo("dynamo.sglang", words)
    assert (sglang.engine, sglang.dynamo) == ([0, 1], [("--namesp", ["ns"]), ("--router-mode", ["kv"])])
    vllm = split_dynamo("dynamo.vllm", words)  # allow_abbrev=False: --namesp goes to vLLM
    assert (vllm.engine, vllm.dynamo) == ([0, 1, 2, 3], [("--router-mode", ["kv"])])


def test_the_vllm_workers_roles_of_an_older_dynamo_are_no_errors(tmp_path: Path) -> None:
    report = _report(tmp_path, VLLM_ROUTER.read_text())
    assert [(s["entrypoint"], s["placement"]["role"]) for s in report["servers"]] == [
        ("dynamo.vllm", "VllmDecodeWorker"),
        ("dynamo.vllm", "VllmPrefillWorker"),
    ]
    assert report["parser"]["argv"] == ["--model", "Qwen/Qwen3-0.6B"]
    assert _judged(report) == []
    older = "(the older releases read) but not of ai-dynamo 1.6.1, which hands it to the engine's parser: "
    rest = (
        'that refuses it ("unrecognized arguments", exit 2); read as Dynamo\'s, since nothing shows the '
        "Dynamo release"
    )
    assert _assumed(report) == [
        (
            "PA001",
            "is_decode_worker",
            "--is-decode-worker is a dynamo.vllm option of ai-dynamo 0.6.1, 0.8.1.post3, 1.0.2, 1.3.1 "
            f"{older}{rest}",
        ),
        (
            "PA001",
            "is_prefill_worker",
            "--is-prefill-worker is a dynamo.vllm option of ai-dynamo 0.4.1, 0.6.1, 0.8.1.post3, 1.0.2, "
            f"1.3.1 {older}{rest}",
        ),
    ]


def test_a_vllm_worker_with_a_misspelt_disaggregation_mode(tmp_path: Path) -> None:
    text = VLLM_ROUTER.read_text().replace(
        "            - --is-prefill-worker\n", "            - --disaggregation-mode\n            - prefil\n"
    )
    # with the vLLM release unknown every parser verdict is information; the choice is Dynamo's own
    assert _judged(_report(tmp_path, text, "--framework-version", "0.33.0", "--server", "2")) == [
        (
            "PA009",
            "error",
            "disaggregation_mode",
            "argument --disaggregation-mode: invalid choice: 'prefil' (choose from 'pd', 'agg', 'prefill', "
            "'decode', 'encode'): dynamo.vllm's launcher (ai-dynamo 1.6.1) exits with status 2",
        )
    ]


def test_a_vllm_worker_given_a_frontend_port(tmp_path: Path) -> None:
    text = VLLM_ROUTER.read_text().replace(
        "            - --is-decode-worker\n", '            - --port\n            - "8000"\n'
    )
    (finding,) = [f for f in _report(tmp_path, text)["findings"] if f["setting"] == "port"]
    assert (finding["code"], finding["message"]) == (
        "PA001",
        "--port is a `vllm serve` frontend option; dynamo.vllm passes the words it does not take itself to "
        "vLLM's engine parser (AsyncEngineArgs), which does not know it: the worker refuses to start "
        '("unrecognized arguments", exit 2)',
    )


DISAGG = Path(__file__).parent / "data" / "multinode" / "dynamo_sglang_disagg_multinode.yaml"
_DECODE_WORDS = """          command: [python3, -m, dynamo.sglang]
          args:
            - --model-path
            - Qwen/Qwen3-0.6B
            - --tp-size
            - "8"
            - --disaggregation-mode
            - decode
            - --disaggregation-transfer-backend
            - nixl
"""
_DECODE_SHELL = """          command: [/bin/sh, -c]
          args:
            - "python3 -m dynamo.sglang --model-path Qwen/Qwen3-0.6B --tp-size 8 --disaggregation-mode decode"
"""


def test_the_operator_puts_its_flags_after_the_module_in_a_shell_script(tmp_path: Path) -> None:
    # injectFlagsIntoContainerCommand: not a Python command, so the flags go after `python3 -m dynamo.sglang`
    report = _report(tmp_path, DISAGG.read_text().replace(_DECODE_WORDS, _DECODE_SHELL, 1))
    scripts = [h["argv"][2] for h in report["transport"]["hops"] if h["argv"] and h["argv"][0] == "/bin/sh"]
    assert scripts == [
        "python3 -m dynamo.sglang --dist-init-addr $(LWS_LEADER_ADDRESS):29500 --nnodes 2 --node-rank 0 "
        "--model-path Qwen/Qwen3-0.6B --tp-size 8 --disaggregation-mode decode",
        "python3 -m dynamo.sglang --dist-init-addr $(LWS_LEADER_ADDRESS):29500 --nnodes 2 --node-rank "
        "$(LWS_WORKER_INDEX) --model-path Qwen/Qwen3-0.6B --tp-size 8 --disaggregation-mode decode",
    ]
    assert _judged(report) == []
    broken = DISAGG.read_text().replace(
        _DECODE_WORDS, _DECODE_SHELL.replace("--tp-size 8", "--tp-size 16"), 1
    )
    assert _judged(_report(tmp_path, broken)) == [
        (
            "PA036",
            "error",
            "tp_size",
            "each node needs 8 GPU(s) (tp_size 16 x pp_size 1 over nnodes 2) but gets 4: the pod's gpu limit "
            f"({tmp_path}/dgd.yaml:25)",
        )
    ]


# Dynamo's operator rewrites a multi-node vLLM worker (ai-dynamo/dynamo commit
# 003d1ee5de27986d5265b7a4bedb1e9241974034, deploy/operator/internal/dynamo/backend_vllm.go,
# updateVLLMMultinodeArgs; the argv below are those its backend_vllm_test.go expects for LWS). The manifest is
# the reconstruction of examples/backends/vllm/deploy/disagg-multinode.yaml (its header names the commit).
DYNAMO_VLLM = Path(__file__).parent / "data" / "multinode" / "dynamo_vllm_disagg_multinode.yaml"
_MP = ["--distributed-executor-backend", "mp", "--nnodes", "2", "--master-addr", None]
_MP += ["--master-port", "29500"]
_DECODE = ["--model", "Qwen/Qwen3-0.6B", "--tensor-parallel-size", "2", "--is-decode-worker"]


def _pods(report: dict[str, Any]) -> list[tuple[str, list[str | None]]]:
    return [(s["placement"]["pod"], s["argv"][3:]) for s in report["servers"]]


def test_a_multinode_vllm_worker_is_an_mp_leader_and_a_headless_worker(tmp_path: Path) -> None:
    # tp 2 over two pods of one GPU: tp x pp above the pod's GPUs, the mp launch (no annotation: an operator
    # of 1.0.0 or newer stamps its version at creation, compatibility.VLLMMultiprocessing)
    report = _report(tmp_path, DYNAMO_VLLM.read_text())
    assert _pods(report)[:2] == [
        ("vllm-disagg/decode leader", [*_DECODE, *_MP, "--node-rank", "0"]),
        ("vllm-disagg/decode worker", [*_DECODE, *_MP, "--node-rank", None, "--headless"]),
    ]
    assert [launch["columns"] for launch in report["multinode"]["launches"]] == [
        ["vllm-disagg/decode leader", "vllm-disagg/decode worker"],
        ["vllm-disagg/prefill leader", "vllm-disagg/prefill worker"],
    ]
    assert _judged(report) == []


def test_the_ray_annotation_makes_the_workers_ray_nodes(tmp_path: Path) -> None:
    annotated = "  name: vllm-disagg\n  annotations:\n    nvidia.com/vllm-distributed-executor-backend: ray\n"
    report = _report(tmp_path, DYNAMO_VLLM.read_text().replace("  name: vllm-disagg\n", annotated))
    # the leader: `ray start --head` then the worker's command with --distributed-executor-backend ray; the
    # workers run only `ray start --address=...` (no server)
    assert _pods(report) == [
        ("vllm-disagg/decode leader", [*_DECODE, "--distributed-executor-backend", "ray"]),
        (
            "vllm-disagg/prefill leader",
            [*_DECODE[:4], "--disaggregation-mode", "prefill", "--distributed-executor-backend", "ray"],
        ),
    ]
    joins = [h["args"] for h in report["transport"]["hops"] if "worker" in (h["placement"].get("pod") or "")]
    assert joins == [["ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"]] * 2
    assert _judged(report) == []
    # an origin version older than 1.0.0 (the gate) is Ray too
    old = "  name: vllm-disagg\n  annotations:\n    nvidia.com/dynamo-operator-origin-version: 0.9.0\n"
    report = _report(tmp_path, DYNAMO_VLLM.read_text().replace("  name: vllm-disagg\n", old))
    assert len(report["servers"]) == 2


def test_a_data_parallel_vllm_worker_gets_the_hybrid_lb_flags(tmp_path: Path) -> None:
    # tp 1 x dp 4 above the pod's 2 GPUs (needsDataParallelMultinodeLaunch): local 2 = 2 GPUs / (tp x pp)
    text = DYNAMO_VLLM.read_text().replace('          gpu: "1"', '          gpu: "2"')
    tp2, dp4 = '- --tensor-parallel-size\n            - "2"\n', '- --data-parallel-size\n            - "4"\n'
    text = text.replace(tp2, dp4)
    report = _report(tmp_path, text)
    dp = ["--model", "Qwen/Qwen3-0.6B", "--data-parallel-size", "4", "--is-decode-worker"]
    lb = ["--data-parallel-hybrid-lb", "--data-parallel-size-local", "2", "--data-parallel-start-rank"]
    tail = ["--data-parallel-address", None, "--data-parallel-rpc-port", "13445"]
    assert _pods(report)[:2] == [
        ("vllm-disagg/decode leader", [*dp, *lb, "0", *tail]),
        ("vllm-disagg/decode worker", [*dp, *lb, None, *tail]),
    ]
    # the worker's start rank needs a shell: `sh -c "exec CMD ARGS FLAGS"`, as injectFlagsIntoContainerCommand
    (script,) = [h["argv"][2] for h in report["transport"]["hops"] if h["argv"][:2] == ["sh", "-c"]][:1]
    assert script == (
        "exec python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --data-parallel-size 4 --is-decode-worker "
        "--data-parallel-hybrid-lb --data-parallel-size-local 2 --data-parallel-start-rank "
        "$(( 2 * $(LWS_WORKER_INDEX) )) --data-parallel-address $(LWS_LEADER_ADDRESS) "
        "--data-parallel-rpc-port 13445"
    )
    assert _judged(report) == []
    # --data-parallel-size 8 on two pods of two GPUs: the operator gives each pod 2 local ranks (its GPUs
    # over tp x pp), so ranks 4 to 7 never start
    eight = text.replace('- "4"\n            - --is-decode-worker', '- "8"\n            - --is-decode-worker')
    assert _judged(_report(tmp_path, eight, "--framework-version", "0.11.0")) == [
        (
            "PA032",
            "error",
            "data_parallel_size",
            "the 2 pods of DynamoGraphDeployment vllm-disagg/decode each run data_parallel_size_local 2: 4 "
            "data parallel ranks of data_parallel_size 8, so ranks 4 to 7 never start and the data parallel "
            "group waits for them",
        )
    ]
    # the vLLM release not named: the flags' meaning rests on it (PA032 as information, basis assumed)
    assert [(f["code"], f["severity"], f["basis"]) for f in _report(tmp_path, eight)["findings"]
            if f["code"] == "PA032"] == [("PA032", "info", "assumed")]
    # three GPUs for tp 2: the operator runs 3 // 2 = 1 local rank per pod, one GPU stays idle
    odd = DYNAMO_VLLM.read_text().replace('          gpu: "1"', '          gpu: "3"', 1)
    odd = odd.replace('- "2"\n            - --is-decode-worker', '- "2"\n            - --data-parallel-size\n'
                      '            - "4"\n            - --is-decode-worker')
    assert _judged(_report(tmp_path, odd)) == [
        (
            "PA036",
            "warning",
            "tensor_parallel_size",
            "each node needs 2 GPU(s) (tensor_parallel_size 2 x pipeline_parallel_size 1 x "
            "data_parallel_size_local 1) but gets 3: the pod's gpu limit "
            f"({tmp_path}/dgd.yaml:23); 1 stay idle",
        )
    ]


# The Dynamo release from the image's tag (NVIDIA's runtime images nvcr.io/nvidia/ai-dynamo/vllm-runtime:X.Y.Z
# are tagged with the Dynamo release): the example above dropped its ${VERSION} tag.
def _tagged(tag: str) -> str:
    return VLLM_ROUTER.read_text().replace(
        "vllm-runtime\n", f"vllm-runtime:{tag}\n"
    )


def test_an_older_dynamo_named_by_the_tag_takes_its_own_roles(tmp_path: Path) -> None:
    # ai-dynamo 0.6.1's dynamo.vllm takes both (read from its wheel): Dynamo's, nothing assumed
    report = _report(tmp_path, _tagged("0.6.1"))
    assert _judged(report) == [] and _assumed(report) == []  # PR011 only: the vLLM release is not named
    assert report["parser"]["notes"] == [
        "dynamo.vllm options (ai-dynamo 1.6.1; ai-dynamo 0.6.1's own, named by the image's tag), not engine "
        "flags: --is-decode-worker"
    ]
    # 0.4.1 had --is-prefill-worker but not --is-decode-worker: its launcher hands that one to vLLM
    older = _report(tmp_path, _tagged("0.4.1"), "--framework-version", "0.11.0")
    assert [(f["code"], f["setting"]) for f in older["findings"]] == [("PA001", "is_decode_worker")]


def test_the_newest_dynamo_named_by_the_tag_hands_the_old_roles_to_vllm(tmp_path: Path) -> None:
    report = _report(tmp_path, _tagged("1.6.1"), "--framework-version", "0.11.0")
    assert _judged(report) == [
        (
            "PA001",
            "error",
            "is_decode_worker",
            '--is-decode-worker is not a vllm 0.11.0 flag: the server refuses to start ("unrecognized '
            'arguments", exit 2)',
        ),
        (
            "PA001",
            "error",
            "is_prefill_worker",
            '--is-prefill-worker is not a vllm 0.11.0 flag: the server refuses to start ("unrecognized '
            'arguments", exit 2)',
        ),
    ]


def test_a_dynamo_release_not_read_keeps_the_assumption(tmp_path: Path) -> None:
    report = _report(tmp_path, _tagged("1.2.0"))
    assert _judged(report) == []
    assert [message.split("; read as Dynamo's, ")[1] for _code, _setting, message in _assumed(report)] == [
        "since ai-dynamo 1.2.0 (the image's tag) is not one of the releases read"
    ] * 2
