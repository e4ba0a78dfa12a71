"""KServe ``LLMInferenceService``: the server start KServe's controller writes for a container with no
command.

The preset (kserve/kserve v0.20.0 ``config/llmisvcconfig/config-llm-template.yaml`` and its decode/prefill
siblings, chosen in ``pkg/controller/v1alpha2/llmisvc/config_merge.go``) runs ``/bin/bash -c SCRIPT --``,
whose last line is ``eval "exec vllm serve /mnt/models --served-model-name NAME ... ${VLLM_ADDITIONAL_ARGS}
$@"``: the container's ``args`` are appended and parsed again by bash's ``eval``. The gate case is KServe's
own sample (``tests/data/false_alarms/k8s/kserve_llmisvc_single_gpu.yaml``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import run_cli

SAMPLE = Path(__file__).parents[1] / "data" / "false_alarms" / "k8s" / "kserve_llmisvc_single_gpu.yaml"
NAME = "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"
PRESET = [
    "vllm",
    "serve",
    "/mnt/models",
    "--served-model-name",
    NAME,
    f"publishers/default/models/{NAME}",
    "--port",
    "8000",
]
ADDITIONAL = [
    "--enable-auto-tool-choice",
    "--tool-call-parser=qwen3_coder",
    "--enable-log-requests",
    "--enable-log-outputs",
]
SOURCE = "https://github.com/kserve/kserve/blob/v0.20.0/config/llmisvcconfig/{}.yaml"
# KServe's own JSON flag goes through the same eval, and the controller quotes it for that reason
# (config_merge.go kvTransferConfig: "Plain \" would be eaten by the shell and vLLM would get invalid JSON")
KV_JSON = '{"kv_connector":"OffloadingConnector","kv_role":"kv_both"}'


def _check(tmp_path: Path, text: str) -> Any:
    (tmp_path / "llmisvc.yaml").write_text(text)
    result = run_cli(
        ["check", "--format", "json", "--no-shellcheck", "--no-resolve", "llmisvc.yaml"], cwd=tmp_path
    )
    assert result.status in (0, 1), result.stderr
    return result.json


def _with_args(*items: str) -> str:
    args = "        args:\n" + "".join(f"          - {item}\n" for item in items)
    return SAMPLE.read_text().replace("        resources:\n", args + "        resources:\n", 1)


def test_kserves_sample_runs_the_presets_vllm_serve_and_checks_clean(tmp_path: Path) -> None:
    report = _check(tmp_path, SAMPLE.read_text())
    assert [s["argv"] for s in report["servers"]] == [PRESET + ADDITIONAL]
    hop = report["transport"]["hops"][0]
    assert hop["command_from"] == {
        "config": "config-llm-template",
        "source": SOURCE.format("config-llm-template"),
    }
    assert hop["args"] is None
    tp046 = [f for f in report["findings"] if f["code"] == "TP046"]
    assert [(f["severity"], f["basis"], f["at"], f["message"]) for f in tp046] == [
        (
            "info",
            "assumed",
            "llmisvc.yaml:16",
            "container main names no command: KServe's controller runs its config-llm-template preset, "
            f"`{' '.join(PRESET)}` with the container's args appended ($@), read from KServe v0.20.0 "
            f"({SOURCE.format('config-llm-template')})",
        )
    ]
    assert tp046[0]["assumed"] == [
        {
            "what": "entrypoint",
            "value": f"{' '.join(PRESET)} ${{VLLM_ADDITIONAL_ARGS}} $@ (KServe v0.20.0 config-llm-template)",
            "option": "command: in the container",
        }
    ]
    assert [f for f in report["findings"] if f["severity"] in ("error", "warning")] == []


def test_json_in_args_loses_its_quotes_in_the_presets_eval(tmp_path: Path) -> None:
    report = _check(tmp_path, _with_args("--kv-transfer-config", f"'{KV_JSON}'"))
    assert report["servers"][0]["argv"][-3:] == [
        "--kv-transfer-config",
        "kv_connector:OffloadingConnector",
        "kv_role:kv_both",
    ]
    alarms = [
        (f["code"], f["severity"], f["message"]) for f in report["findings"] if f["severity"] == "error"
    ]
    assert alarms == [
        (
            "SH022",
            "error",
            f"brace expansion turns the unquoted `{KV_JSON}` into 2 words: "
            '`"kv_connector":"OffloadingConnector"`, `"kv_role":"kv_both"`',
        )
    ]
    # one cause, one finding: the parser's refusal of the split word is SH022's consequence (causes.py)
    (sh022,) = [f for f in report["findings"] if f["code"] == "SH022"]
    assert [(c["code"], c["severity"], c["message"]) for c in sh022["consequences"]] == [
        (
            "PA011",
            "error",
            "argument --kv-transfer-config: invalid JSON: Expecting value: line 1 column 1 (char 0) "
            "(argparse exit 2)",
        ),
        (
            "PA001",
            "error",
            "'kv_role:kv_both' (after kv_connector:OffloadingConnector) is not a value of any flag: vllm "
            '0.33.0 rejects it with "unrecognized arguments" (exit 2)',
        ),
    ]


def test_a_flag_and_its_value_in_one_item_are_split_by_eval(tmp_path: Path) -> None:
    report = _check(tmp_path, _with_args("--max-model-len 32768"))
    assert report["transport"]["hops"][0]["args"] == ["--max-model-len 32768"]
    assert report["servers"][0]["argv"] == PRESET + ADDITIONAL + ["--max-model-len", "32768"]
    assert [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")] == []


PD = """apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: pd-qwen
  namespace: llm
spec:
  model:
    uri: hf://Qwen/Qwen3-0.6B
  parallelism:
    tensor: 2
  template:
    containers:
      - name: main
        args: ["--max-model-len", "8192"]
  prefill:
    parallelism:
      tensor: 1
    template:
      containers:
        - name: main
          args: ["--max-num-seqs", "64"]
"""


SERVE = ["vllm", "serve", "/mnt/models", "--served-model-name"]
TP2 = ["--tensor-parallel-size", "2"]


def test_prefill_and_decode_pods_take_their_presets(tmp_path: Path) -> None:
    report = _check(tmp_path, PD)
    hops = [(h["placement"]["role"], h["command_from"]["config"]) for h in report["transport"]["hops"]]
    assert hops == [("decode", "config-llm-decode-template"), ("prefill", "config-llm-prefill-template")]
    # the model's name defaults to the resource's (llm_inference_service_defaults.go)
    assert [s["argv"] for s in report["servers"]] == [
        [
            *SERVE,
            "pd-qwen",
            "publishers/llm/models/pd-qwen",
            "--port",
            "8001",
            *TP2,
            "--max-model-len",
            "8192",
        ],
        [*SERVE, "pd-qwen", "--port", "8000", "--tensor-parallel-size", "1", "--max-num-seqs", "64"],
    ]


def test_a_container_with_its_own_command_or_a_worker_takes_no_preset(tmp_path: Path) -> None:
    own = PD.replace('        args: ["--max-model-len", "8192"]', '        command: ["vllm", "serve", "/m"]')
    report = _check(tmp_path, own)
    assert [("command_from" in h, h["argv"][:3]) for h in report["transport"]["hops"]] == [
        (False, ["vllm", "serve", "/m"]),
        (
            True,
            [
                "/bin/bash",
                "-c",
                "exec vllm serve /mnt/models --served-model-name pd-qwen --port 8000 "
                "--tensor-parallel-size 1 --max-num-seqs 64",
            ],
        ),
    ]
    worker = SAMPLE.read_text() + "  worker:\n    containers:\n      - name: main\n"
    assert _check(tmp_path, worker)["servers"] == []
