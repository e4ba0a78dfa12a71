"""NVIDIA Dynamo's workers, ``python3 -m dynamo.sglang`` / ``dynamo.vllm``, parsed as SGLang/vLLM servers.

Dynamo's own options come out of the words by the table ``frameworks/data/dynamo_options.json``
(generated from the ai-dynamo wheels 0.4.0-1.6.1, each release's own options and engine pins, by
``scripts/gen_dynamo_options.py``); the rest is the engine's argv. Correct manifests are reconstructions of
Dynamo's examples (their headers name the source and commit); each variant changes one thing and must fire.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

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


def _sglang(tag: str, extra: str) -> str:
    """The SGLang example on the runtime image ``tag`` with ``extra`` after --skip-tokenizer-init."""
    text = SGLANG_AGG.read_text().replace("sglang-runtime:0.8.0\n", f"sglang-runtime:{tag}\n")
    after = "            - --skip-tokenizer-init\n"
    return text.replace(after, after + extra)


_OWN = (
    "            - --endpoint\n            - dyn://dynamo.backend.generate\n"
    "            - --dyn-reasoning-parser\n            - qwen3\n"
    "            - --router-mode\n            - kv\n"
)


def test_dynamos_own_options_do_not_reach_sglang(tmp_path: Path) -> None:
    report = _report(tmp_path, _sglang("1.6.1", _OWN))
    assert report["parser"]["argv"] == [
        *("--model-path", "Qwen/Qwen3-0.6B", "--served-model-name", "Qwen/Qwen3-0.6B", "--page-size", "16"),
        *("--tp", "1", "--trust-remote-code", "--skip-tokenizer-init"),
    ]
    assert report["parser"]["notes"] == [
        "dynamo.sglang options (ai-dynamo 1.6.1, named by the image's tag), not engine flags: --endpoint, "
        "--dyn-reasoning-parser, --router-mode"
    ]
    assert _judged(report) == []


def test_the_router_pass_came_in_1_5_so_0_8_0_hands_router_mode_to_sglang(tmp_path: Path) -> None:
    # Dynamo's own example tag (0.8.0): its launcher (read from the 0.8.0 wheel) has no router
    # advertisement pass, and SGLang 0.5.6.post2 (the version ai-dynamo 0.8.0 pins) refuses --router-mode
    report = _report(tmp_path, _sglang("0.8.0", _OWN))
    assert report["framework"]["evidence"] == (
        "image nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.8.0 (ai-dynamo 0.8.0, whose wheel pins "
        f"sglang==0.5.6.post2) at {tmp_path}/dgd.yaml:25"
    )
    assert report["parser"]["notes"] == [
        "dynamo.sglang options (ai-dynamo 0.8.0, named by the image's tag), not engine flags: --endpoint, "
        "--dyn-reasoning-parser"
    ]
    assert _judged(report) == [
        (
            "PA001",
            "error",
            "router_mode",
            # no "did you mean": --tokenizer-mode is another feature (a word substituted: same_feature)
            '--router-mode is not a sglang 0.5.6.post2 flag: the server refuses to start ("unrecognized '
            'arguments", exit 2)',
        )
    ]
    # a tag no wheel was read for (0.8.2): the nearest read release of its family, 0.8.1.post3, says where
    # the launcher may differ from the newest's, as an assumption, and nothing is an error
    between = _report(tmp_path, _sglang("0.8.2", _OWN))
    assert _judged(between) == []
    assert _assumed(between) == [
        (
            "PA001",
            "router_mode",
            "--router-mode is a dynamo.sglang option of ai-dynamo 1.6.1 but not of ai-dynamo 0.8.1.post3, "
            "the nearest release read to 0.8.2 (the image's tag): if 0.8.2 lacks it too, its launcher hands "
            "it to the engine's parser, which refuses it unless the engine has such a flag; read as Dynamo's",
        )
    ]


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
    text = _sglang("1.6.1", "            - --tcp-tls-c\n")
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
            f"--is-decode-worker is a dynamo.vllm option of ai-dynamo 0.6.1-1.3.1 {older}{rest}",
        ),
        (
            "PA001",
            "is_prefill_worker",
            f"--is-prefill-worker is a dynamo.vllm option of ai-dynamo 0.4.0-1.3.1 {older}{rest}",
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
    assert [
        (f["code"], f["severity"], f["basis"])
        for f in _report(tmp_path, eight)["findings"]
        if f["code"] == "PA032"
    ] == [("PA032", "info", "assumed")]
    # three GPUs for tp 2: the operator runs 3 // 2 = 1 local rank per pod, one GPU stays idle
    odd = DYNAMO_VLLM.read_text().replace('          gpu: "1"', '          gpu: "3"', 1)
    odd = odd.replace(
        '- "2"\n            - --is-decode-worker',
        '- "2"\n            - --data-parallel-size\n            - "4"\n            - --is-decode-worker',
    )
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
    return VLLM_ROUTER.read_text().replace("vllm-runtime\n", f"vllm-runtime:{tag}\n")


def test_an_older_dynamo_named_by_the_tag_takes_its_own_roles(tmp_path: Path) -> None:
    # ai-dynamo 0.6.1's dynamo.vllm takes both (read from its wheel): Dynamo's, nothing assumed; the vLLM
    # release is the one its wheel pins (vllm==0.10.2, bundled)
    report = _report(tmp_path, _tagged("0.6.1"))
    assert [(f["code"], f["severity"]) for f in report["findings"]] == []
    assert (report["framework"]["version"], report["framework"]["source"]) == ("0.10.2", "image")
    assert report["parser"]["notes"] == [
        "dynamo.vllm options (ai-dynamo 0.6.1, named by the image's tag), not engine flags: "
        "--is-decode-worker"
    ]
    # 0.4.1 had --is-prefill-worker but not --is-decode-worker: its launcher hands that one to vLLM
    # 0.10.1.1 (its pin, analysed with the bundled 0.10.2 of its family: a warning resting on that)
    older = _report(tmp_path, _tagged("0.4.1"))
    assert [(f["code"], f["severity"], f["setting"]) for f in older["findings"]] == [
        ("PR008", "info", None),
        ("PA001", "warning", "is_decode_worker"),
    ]


def test_the_newest_dynamo_named_by_the_tag_hands_the_old_roles_to_vllm(tmp_path: Path) -> None:
    report = _report(tmp_path, _tagged("1.6.1"))
    assert _judged(report) == [
        (
            "PA001",
            "error",
            "is_decode_worker",
            '--is-decode-worker is not a vllm 0.31.0 flag: the server refuses to start ("unrecognized '
            'arguments", exit 2)',
        ),
        (
            "PA001",
            "error",
            "is_prefill_worker",
            '--is-prefill-worker is not a vllm 0.31.0 flag: the server refuses to start ("unrecognized '
            'arguments", exit 2)',
        ),
    ]


def test_a_dynamo_release_not_read_is_judged_by_its_family(tmp_path: Path) -> None:
    # no ai-dynamo 1.2.0 on PyPI (1.2.0.post1 and 1.2.1 are): the nearest read release of the family judges,
    # said as an assumption; it takes both roles, so nothing is found, and the vLLM release stays unknown
    report = _report(tmp_path, _tagged("1.2.0"))
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("PR011", "info")]
    assert report["parser"]["notes"] == [
        "dynamo.vllm options (ai-dynamo 1.2.0.post1, the nearest release read to 1.2.0 (the image's tag), "
        "assumed), not engine flags: --is-decode-worker"
    ]
    # a release newer than any read (1.7.0) is judged by 1.6.1, which has neither role: assumed PA001s
    newer = _report(tmp_path, _tagged("1.7.0"))
    assert _judged(newer) == []
    assert [message.split("; read as Dynamo's, since ")[1] for _c, _s, message in _assumed(newer)] == [
        "ai-dynamo 1.6.1, the nearest release read to 1.7.0 (the image's tag) does not take it either, but "
        "1.7.0 itself was not read"
    ] * 2


# Grove (ai-dynamo/dynamo deploy/operator/internal/dynamo/grove.go at 015d780b, GroveMultinodeDeployer): the
# operator's other multinode deployer. Whether it runs is the operator's configuration plus the resource's
# nvidia.com/enable-grove annotation (IsGrovePathway): the file alone shows only an opt-out. The launch is
# read on the LeaderWorkerSet pathway, the Grove argv shown beside it; the verdicts are the same on both.
_GROVE_LEADER = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-decode-ldr-0.$(GROVE_HEADLESS_SERVICE)"
_GROVE_RANK = "$((GROVE_PCLQ_POD_INDEX + 1))"
_NO_GROVE = '  name: sglang-disagg-multinode\n  annotations:\n    nvidia.com/enable-grove: "false"\n'


def _placements(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [s["placement"] for s in report["servers"]]


def test_the_grove_pathway_is_shown_beside_the_leaderworkerset_one(tmp_path: Path) -> None:
    report = _report(tmp_path, DISAGG.read_text())
    decode = _placements(report)[:2]
    assert [(p["pod"], p["deployer"]) for p in decode] == [
        ("sglang-disagg-multinode/decode leader", "LeaderWorkerSet"),
        ("sglang-disagg-multinode/decode worker", "LeaderWorkerSet"),
    ]
    assert decode[0]["deployer_assumed"] == (
        "the file does not show whether Dynamo's operator takes its Grove pathway (IsGrovePathway: Grove "
        'enabled in its configuration and no nvidia.com/enable-grove: "false" annotation); the '
        "LeaderWorkerSet pathway is read, and alternative_argv is what the Grove pathway runs (the same "
        "ranks and leader)"
    )
    engine = "python3 -m dynamo.sglang --model-path Qwen/Qwen3-0.6B --tp-size 8 --disaggregation-mode decode "
    engine += "--disaggregation-transfer-backend nixl"
    # the leader's rank is a literal 0: its flags are appended; a worker's rank is shell arithmetic, so the
    # operator runs it as `sh -c "exec ..."`
    assert decode[0]["alternative_argv"] == [
        *engine.split(),
        "--dist-init-addr",
        f"{_GROVE_LEADER}:29500",
        "--nnodes",
        "2",
        "--node-rank",
        "0",
    ]
    assert decode[1]["alternative_argv"] == [
        "sh",
        "-c",
        f"exec {engine} --dist-init-addr {_GROVE_LEADER}:29500 --nnodes 2 --node-rank {_GROVE_RANK}",
    ]
    assert _judged(report) == []


def test_an_opt_out_of_grove_is_leaderworkerset_for_certain_with_the_same_verdicts(tmp_path: Path) -> None:
    # the broken variant: two GPUs per pod for tp 8 over two pods (each needs 4); an error on either pathway
    broken = DISAGG.read_text().replace('gpu: "4"', 'gpu: "2"', 1)
    assumed = _report(tmp_path, broken)
    certain = _report(tmp_path, broken.replace("  name: sglang-disagg-multinode\n", _NO_GROVE))
    shown = [
        (p["deployer"], p.get("deployer_assumed"), p.get("alternative_argv")) for p in _placements(certain)
    ]
    assert shown == [("LeaderWorkerSet", None, None)] * 4

    def expected(line: int) -> list[tuple[str, str, str, str]]:
        return [
            (
                "PA036",
                "error",
                "tp_size",
                "each node needs 4 GPU(s) (tp_size 8 x pp_size 1 over nnodes 2) but gets 2: the pod's gpu "
                f"limit ({tmp_path}/dgd.yaml:{line})",
            )
        ]

    # the same finding (the opt-out annotation moves the limit two lines down)
    assert (_judged(assumed), _judged(certain)) == (expected(25), expected(27))


def test_the_grove_argv_of_a_vllm_worker_is_the_leaderworkerset_one_with_grove_values(tmp_path: Path) -> None:
    # mp (tp 2 over two one-GPU pods) and hybrid data parallel (dp 4 over them): the Grove worker runs the
    # same words under `sh -c "exec ..."`, its leader and rank in Grove's variables
    hybrid = DYNAMO_VLLM.read_text().replace(
        '- --tensor-parallel-size\n            - "2"\n            - --disaggregation-mode',
        '- --data-parallel-size\n            - "4"\n            - --disaggregation-mode',
    )
    report = _report(tmp_path, hybrid)
    leader = _GROVE_LEADER.replace("decode", "{}")
    start = f"$(( 1 * {_GROVE_RANK} ))"
    for server in report["servers"]:
        placement = server["placement"]
        lws = [w for w in server["argv"] if w is not None]  # the cluster's values are unknown (None)
        grove = list(placement["alternative_argv"])
        if placement["pod"].endswith("worker"):
            assert grove[:2] == ["sh", "-c"] and grove[2].startswith("exec ")
            # the shell's arithmetic expansion is one word: split the rest as the shell does
            script = grove[2][len("exec ") :].replace(start, "START").replace(_GROVE_RANK, "RANK")
            grove = shlex.split(script)
        unknown = {leader.format(placement["role"]), "RANK", "START"}
        assert [w for w in grove if w not in unknown] == lws, placement["pod"]
    worker = report["servers"][3]["placement"]["alternative_argv"][2]
    assert worker.endswith(
        f"--data-parallel-start-rank {start} --data-parallel-address "
        f"{leader.format('prefill')} --data-parallel-rpc-port 13445"
    )


# The elastic-EP rewrite (backend_vllm.go at 003d1ee5, updateVLLMMultinodeArgs ->
# injectElasticEPRayLaunchFlags): a multi-node worker whose args have --enable-elastic-ep (and a tp x pp
# that fits one pod) is one Ray cluster.
_ELASTIC = """            - --data-parallel-size
            - "2"
            - --data-parallel-backend
            - ray
            - --enable-expert-parallel
            - --enable-elastic-ep
            - --is-decode-worker"""
_RAY_HEAD = (
    'ray start --head --port=6379 --block & i=0; until python3 -c "import socket; '
    "s=socket.create_connection(('127.0.0.1',6379),timeout=1); s.close()\" 2>/dev/null; do i=$((i+1)); "
    '[ "$i" -ge 150 ] && { echo "ERROR: Ray head did not start within 300s" >&2; exit 1; }; sleep 2; done && '
)


def _elastic(args: str = _ELASTIC) -> str:
    return DYNAMO_VLLM.read_text().replace(
        '            - --tensor-parallel-size\n            - "2"\n            - --is-decode-worker', args
    )


def _decode_hops(report: dict[str, Any]) -> list[tuple[str, list[str], list[str]]]:
    return [
        (h["placement"]["pod"], h["command"], h["args"])
        for h in report["transport"]["hops"]
        if "decode" in (h.get("placement") or {}).get("pod", "")
    ]


def test_an_elastic_ep_worker_is_a_ray_head_running_the_engine_and_ray_workers(tmp_path: Path) -> None:
    report = _report(tmp_path, _elastic())
    engine = "python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --data-parallel-size 2 "
    engine += "--data-parallel-backend ray --enable-expert-parallel --enable-elastic-ep --is-decode-worker"
    gate = (
        'i=0; until python3 -c "import urllib.request; '
        "urllib.request.urlopen('http://$(LWS_LEADER_ADDRESS):9090/live', timeout=5)\" 2>/dev/null; do "
        'i=$((i+1)); [ "$i" -ge 720 ] && { echo "ERROR: leader /live did not become ready within 3h" '
        ">&2; exit 1; }; echo 'waiting for leader dynamo.vllm /live to return 200...'; sleep 15; done"
    )
    assert _decode_hops(report) == [
        ("vllm-disagg/decode leader", ["/bin/sh", "-c"], [_RAY_HEAD + engine]),
        (
            "vllm-disagg/decode worker",
            ["/bin/sh", "-c"],
            [f"{gate} && ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"],
        ),
    ]
    # one server on the leader, as written (the worker runs no server); no alarm
    assert [s["placement"]["pod"] for s in report["servers"]][:1] == ["vllm-disagg/decode leader"]
    assert report["servers"][0]["argv"] == engine.split()
    assert _judged(report) == []


def test_a_misspelt_flag_in_an_elastic_ep_worker_is_found_in_the_operators_script(tmp_path: Path) -> None:
    misspelt = _ELASTIC.replace("--data-parallel-backend", "--data-parallel-backnd")
    report = _report(tmp_path, _elastic(misspelt))
    (finding,) = [f for f in report["findings"] if f["code"] == "PA001" and f["severity"] != "info"]
    assert (finding["severity"], finding["message"]) == (
        "error",
        '--data-parallel-backnd is not a vllm 0.33.0 flag: the server refuses to start ("unrecognized '
        'arguments", exit 2); did you mean --data-parallel-backend?',
    )


def test_an_elastic_ep_leader_without_a_command_is_left_as_written(tmp_path: Path) -> None:
    # the operator cannot wrap the image's entrypoint (no command): the leader runs as written, the workers
    # still join its Ray cluster
    # (backendFramework names the engine: nothing in the container does)
    text = _elastic().replace("spec:\n", "spec:\n  backendFramework: vllm\n", 1)
    text = text.replace("          command: [python3, -m, dynamo.vllm]\n", "", 1)
    hops = _decode_hops(_report(tmp_path, text))
    assert [(pod, command) for pod, command, _args in hops] == [
        ("vllm-disagg/decode leader", None),
        ("vllm-disagg/decode worker", ["/bin/sh", "-c"]),
    ]


def test_a_single_pod_elastic_ep_worker_heads_its_own_ray_cluster(tmp_path: Path) -> None:
    # nodeCount 1 (RoleMain) with --enable-elastic-ep and --data-parallel-backend ray: a Ray head on the pod's
    # IP, the engine exec'd after it; --enable-elastic-ep alone (the default mp backend) is left as written
    report = _report(tmp_path, _elastic().replace("nodeCount: 2", "nodeCount: 1", 1))
    engine = "python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --data-parallel-size 2 "
    engine += "--data-parallel-backend ray --enable-expert-parallel --enable-elastic-ep --is-decode-worker"
    head = _RAY_HEAD.replace("--port=6379 --block", '--port=6379 --node-ip-address="$POD_IP" --block')
    (hop,) = [h for h in report["transport"]["hops"] if "dynamo.vllm --model" in " ".join(h["args"])]
    assert (hop["command"], hop["args"]) == (["/bin/sh", "-c"], [f"{head}exec {engine}"])
    assert report["servers"][0]["argv"] == engine.split()
    plain = _elastic(_ELASTIC.replace("            - --data-parallel-backend\n            - ray\n", ""))
    report = _report(tmp_path, plain.replace("nodeCount: 2", "nodeCount: 1", 1))
    assert report["transport"]["hops"][1]["command"] == ["python3", "-m", "dynamo.vllm"]


def test_the_text_report_names_the_assumed_pathway_and_the_grove_argv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # one line per hop
    manifest = tmp_path / "dgd.yaml"
    manifest.write_text(DISAGG.read_text())
    result = run_cli(["check", "--no-resolve", str(manifest)])
    lines = [line.strip() for line in result.stdout.splitlines() if "pathway, assumed" in line]
    assert lines[1] == (
        "the operator's LeaderWorkerSet pathway, assumed; on Grove: sh -c 'exec python3 -m dynamo.sglang "
        "--model-path Qwen/Qwen3-0.6B --tp-size 8 --disaggregation-mode decode "
        f"--disaggregation-transfer-backend nixl --dist-init-addr {_GROVE_LEADER}:29500 --nnodes 2 "
        f"--node-rank {_GROVE_RANK}'"
    )
    assert len(lines) == 4
