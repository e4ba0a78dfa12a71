"""The message index beyond the bundled releases (vLLM 0.2.7-0.6.5, SGLang 0.1.14-0.3.6.post3), the library a
launch goes through (huggingface_hub's validators), the GPU profiles generated from quoted sources, and the
two rules that follow real code with them: RS030 (vLLM's Triton attention backend refuses an fp8 KV cache
below SM89; the only backend below SM75) and RS031 (a model value huggingface_hub's validate_repo_id
refuses). The texts are real reports' (URLs beside them) or the frameworks' own messages."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, release_spans
from argtrace.resolver import environments
from argtrace.resolver.message_store import MESSAGE_DIR, indexed_releases, repo_id_rule
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent


def first(text: str, framework: str | None = None) -> dict[str, Any]:
    match: dict[str, Any] = explain(text, framework)["matches"][0]
    return match


def settings(match: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
    return [(s["name"], s.get("flag"), s.get("framework")) for s in match["settings"]]


# --- vLLM and SGLang releases older than the bundled ones ---------------------------------------------------


def test_older_releases_are_indexed_beside_the_bundled_ones() -> None:
    vllm = indexed_releases("vllm")
    assert vllm[:6] == ["0.2.7", "0.3.3", "0.4.0.post1", "0.4.1", "0.4.2", "0.4.3"]
    assert vllm.index("0.6.6.post1") == 18 and vllm[-1] == "0.33.0" and len(vllm) == 47
    sglang = indexed_releases("sglang")
    assert sglang[:5] == ["0.1.14", "0.1.26", "0.2.15", "0.3.6.post3", "0.4.0.post2"] and len(sglang) == 38


def test_a_0_4_message_names_its_flags_with_the_nearest_bundled_schema() -> None:
    """vLLM 0.4.1-0.6.2 refuse speculative decoding without the V2 block manager (vllm#5302 ran 0.4.3):
    0.33.0 has no --use-v2-block-manager, 0.6.6.post1 (the nearest bundled schema) does."""
    match = first(
        "ValueError: Speculative decoding requires usage of the V2 block manager. Enable it with "
        "--use-v2-block-manager."
    )
    assert (match["function"], match["file"], match["condition"]) == (
        "SpeculativeConfig.maybe_create_spec_config",
        "vllm/config.py",
        "not use_v2_block_manager",
    )
    assert match["releases"] == [
        "0.4.1", "0.4.2", "0.4.3", "0.5.0.post1", "0.5.1", "0.5.2", "0.5.3.post1", "0.5.4", "0.5.5", "0.6.0",
        "0.6.1.post2", "0.6.2",
    ]  # fmt: skip
    assert settings(match) == [("use_v2_block_manager", "--use-v2-block-manager", None)]


def test_the_draft_s_n_predict_message_of_0_5_1_on() -> None:
    """vllm#5893's real cause (num_speculative_tokens above the MLPSpeculator's n_predict) has its own
    message from 0.5.1 (vllm PR 5894) to 0.7.3; before it, 0.4.1-0.5.0.post1 said "Expected both ..."."""
    match = first(
        "ValueError: This speculative model supports a maximum of num_speculative_tokens=3, but "
        "num_speculative_tokens=4 was provided."
    )
    assert (match["function"], match["condition"]) == (
        "SpeculativeConfig.maybe_create_spec_config",
        "num_speculative_tokens > n_predict",
    )
    assert release_spans(match["releases"], indexed_releases("vllm")) == ["0.5.1-0.7.3"]
    assert settings(match)[0] == ("num_speculative_tokens", "--num-speculative-tokens", None)
    older = first(
        "ValueError: Expected both speculative_model and num_speculative_tokens to be provided, but found "
        "speculative_model='ibm-fms/llama-13b-accelerator' and num_speculative_tokens=None."
    )
    assert release_spans(older["releases"], indexed_releases("vllm")) == ["0.4.1-0.5.0.post1"]
    assert older["condition"] == "speculative_model is not None and num_speculative_tokens is None"


def test_the_text_view_gives_release_spans() -> None:
    result = run_cli(
        ["why", "ValueError: Speculative decoding requires usage of the V2 block manager. Enable it with "
         "--use-v2-block-manager."]
    )  # fmt: skip
    assert "  not in: 0.2.7-0.4.0.post1, 0.6.3.post1-0.33.0" in result.stdout
    assert "  in: 0.4.1 (vllm/config.py:" in result.stdout


def test_release_spans() -> None:
    every = ["0.1", "0.2", "0.3", "0.4", "0.5"]
    assert release_spans(["0.1", "0.2", "0.4"], every) == ["0.1-0.2", "0.4"]
    assert release_spans([], every) == []
    assert release_spans(every, every) == ["0.1-0.5"]


# --- huggingface_hub, a library a launch goes through -------------------------------------------------------

# https://github.com/sgl-project/sglang/issues/302 (huggingface_hub 0.2x's wording)
HF_OLD = (
    "huggingface_hub.utils._validators.HFValidationError: Repo id must use alphanumeric chars or '-', '_', "
    "'.', '--' and '..' are forbidden, '-' and '.' cannot start or end the name, max length is 96: "
    "'TheBloke/Mistral-7B-v0.1-GPTQ:gptq-4bit-32g-actorder_True'."
)


def test_huggingface_hub_s_validator_names_the_model_settings_and_the_value() -> None:
    match = first(HF_OLD)
    assert (match["framework"], match["function"], match["file"], match["exception"]) == (
        "huggingface_hub",
        "validate_repo_id",
        "huggingface_hub/utils/_validators.py",
        "HFValidationError",
    )
    assert match["library"] is True and match["releases"] == ["0.21.4"]
    assert match["absent_in"] == ["0.36.2", "2.4.0"]  # reworded in between
    assert settings(match) == [("model_path", "--model-path", "sglang"), ("model", "--model", "vllm")]
    assert {s["value"] for s in match["settings"]} == {
        "TheBloke/Mistral-7B-v0.1-GPTQ:gptq-4bit-32g-actorder_True"
    }
    assert match["fix"] == (
        "huggingface_hub refused 'TheBloke/Mistral-7B-v0.1-GPTQ:gptq-4bit-32g-actorder_True', which comes "
        "from --model-path (sglang), --model (vllm): a value that is not a local directory is loaded from "
        "the Hub as a repo id; give an existing local directory or a valid repo id (a revision goes to "
        "--revision, not into the id)"
    )


def test_a_framework_named_keeps_its_libraries_and_only_its_setting() -> None:
    text = (
        "HFValidationError: Repo id must use alphanumeric chars, '-', '_' or '.'. The name cannot start or "
        "end with '-' or '.' and the maximum length is 96: 'org/model:main'."
    )
    match = first(text, "sglang")
    assert (match["framework"], match["releases"]) == ("huggingface_hub", ["0.36.2", "2.4.0"])
    assert settings(match) == [("model_path", "--model-path", "sglang")]


def test_the_library_store_keeps_only_the_modules_a_launch_reaches() -> None:
    store = json.loads(gzip.decompress((MESSAGE_DIR / "huggingface_hub.json.gz").read_bytes()))
    assert store["library"] is True and list(store["releases"]) == ["0.21.4", "0.36.2", "2.4.0"]
    assert {s["f"] for s in store["sites"]} <= set(store["modules"])
    assert [r["sites"] for r in store["releases"].values()] == [31, 16, 22]
    triton = json.loads(gzip.decompress((MESSAGE_DIR / "triton.json.gz").read_bytes()))
    assert triton["modules"] == ["triton/language/core.py::dtype.to_ir"]  # one function of Triton
    assert {(r, v["sites"]) for r, v in triton["releases"].items()} == {
        ("2.3.1", 1),
        ("3.2.0", 2),
        ("3.9.0", 2),
    }


# https://github.com/1CatAI/1Cat-vLLM/issues/27 (a vLLM fork on V100 with --kv-cache-dtype fp8)
TRITON_FP8 = (
    'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are '
    "('fp8e4b15', 'fp8e5')\")"
)


def test_triton_s_fp8_type_names_the_fp8_settings() -> None:
    match = first(TRITON_FP8, "vllm")
    assert (match["framework"], match["function"], match["file"], match["releases"]) == (
        "triton",
        "dtype.to_ir",
        "triton/language/core.py",
        ["3.2.0", "3.9.0"],
    )
    assert settings(match) == [
        ("kv_cache_dtype", "--kv-cache-dtype", "vllm"),
        ("quantization", "--quantization", "vllm"),
    ]
    assert {s["value"] for s in match["settings"]} == {"fp8e4nv"}
    assert match["fix"].endswith(
        "from an fp8 KV cache or fp8 quantization; on this GPU use --kv-cache-dtype auto (or float16) and no "
        "fp8 --quantization"
    )


def test_the_repo_id_rule_read_from_the_wheel() -> None:
    rule = repo_id_rule()
    assert rule is not None
    assert (rule["release"], rule["file"], rule["match"], rule["flags"]) == (
        "2.4.0",
        "huggingface_hub/utils/_validators.py",
        "fullmatch",
        ["ASCII", "VERBOSE"],
    )
    from argtrace.layers.start_values import repo_id_problem

    assert repo_id_problem("TheBloke/Mistral-7B-v0.1-GPTQ", rule) is None
    assert repo_id_problem("Qwen/Qwen3-8B", rule) is None
    assert repo_id_problem("a/b/c", rule) == (
        "more than one '/' (the form is 'repo_name' or 'namespace/repo_name')"
    )
    assert repo_id_problem("org/model:main", rule) == (
        "characters or a shape REPO_ID_REGEX refuses (only letters, digits, '-', '_', '.'; not starting or "
        "ending with '-' or '.'; at most 96 characters)"
    )
    assert repo_id_problem("org/café", rule) is not None  # re.ASCII: \\w is ASCII only
    assert repo_id_problem("org/a--b", rule) == "'--' or '..'"
    assert repo_id_problem("org/model.git", rule) == "'.git' at the end"


# --- RS031: a model value neither a local path nor a repo id ------------------------------------------------


def findings(argv: list[str], cwd: Path, code: str) -> list[tuple[str, str, str]]:
    result = run_cli(["check", "--format", "json", "--no-resolve", *argv], cwd=cwd)
    return [(f["severity"], f["basis"], f["message"]) for f in result.json["findings"] if f["code"] == code]


def test_rs031_a_revision_after_a_colon(tmp_path: Path) -> None:
    got = findings(
        ["-c", "python3 -m sglang.launch_server --model-path org/model:gptq-4bit"], tmp_path, "RS031"
    )
    assert got == [
        (
            "warning",
            "assumed",
            "--model-path 'org/model:gptq-4bit' is not a local directory here and not a valid Hugging Face "
            "repo id: characters or a shape REPO_ID_REGEX refuses (only letters, digits, '-', '_', '.'; not "
            "starting or ending with '-' or '.'; at most 96 characters) ('org/model' is a valid id: give the "
            "revision 'gptq-4bit' to --revision); huggingface_hub's validate_repo_id raises "
            "HFValidationError before any download (huggingface_hub/utils/_validators.py:94 in "
            "huggingface_hub 2.4.0), unless a directory of that name exists where the server starts",
        )
    ]
    # vllm serve's positional model and --model are one setting (model_tag) to the 0.33.0 schema
    for command in ("vllm serve org/my--model", "vllm serve --model org/my--model"):
        got = findings(["-c", command], tmp_path, "RS031")
        assert [m.split(":", 1)[0] for _, _, m in got] == [
            "the model 'org/my--model' is not a local directory here and not a valid Hugging Face repo id"
        ]


@pytest.mark.parametrize(
    "command",
    [
        "vllm serve Qwen/Qwen3-8B",  # a valid id
        "vllm serve /models/qwen:latest",  # a path
        "vllm serve ./my:model",
        "vllm serve s3://bucket/model",
        "vllm serve models/org/name:v1",  # more than one '/': a relative local path, far more often
        "SGLANG_USE_MODELSCOPE=1 python3 -m sglang.launch_server --model-path org/model:v1",
        "python3 -m sglang.launch_server --model-path local:dir",  # exists here (made below)
        "vllm serve '$MODEL'",  # not the value the server gets
        "python3 -m sglang.launch_server --model-path '<MODEL>'",
    ],
)
def test_rs031_stays_quiet(command: str, tmp_path: Path) -> None:
    (tmp_path / "local:dir").mkdir()
    assert findings(["-c", command], tmp_path, "RS031") == []


# --- GPU profiles and RS030 --------------------------------------------------------------------------------


def test_gpu_profiles_come_from_their_recorded_sources() -> None:
    from argtrace.gpus import GPUS, parse_gpu_spec

    assert sorted(GPUS) == [
        "a10", "a100-40g", "a100-80g", "a800-80g", "b200", "h100", "h20", "h200", "l20", "l4", "l40s",
        "mi300x", "rtx-3090", "rtx-4090", "rtx-pro-6000", "t4", "v100", "v100-16g",
    ]  # fmt: skip
    v100 = parse_gpu_spec("v100x2")
    assert v100.count == 2 and (v100.profile.label, v100.profile.compute_capability) == (
        "Tesla V100-PCIE-32GB",
        (7, 0),
    )
    assert [(GPUS[n].smi_total_mib, GPUS[n].total_bytes, GPUS[n].flashinfer) for n in ("t4", "a100-40g")] == [
        (15360, 15848429322, True),  # 14.76 GiB as torch rounds it
        (40536, 42298834944, True),
    ]
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_gpu_profiles.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert (check.returncode, check.stdout) == (0, "src/argtrace/data/gpu_profiles.json: up to date\n")


def test_gpu_profiles_l4_l20_h20_a800_rtx3090_parsed_from_their_quoted_lines() -> None:
    from argtrace.gpus import GPUS

    got = {
        n: (GPUS[n].label, GPUS[n].smi_total_mib, GPUS[n].total_bytes, GPUS[n].compute_capability)
        for n in ("l4", "l20", "h20", "a800-80g", "rtx-3090")
    }
    assert got == {
        "l4": ("NVIDIA L4", 23034, 23654532383, (8, 9)),  # 22.03 GiB as torch rounds it
        "l20": ("NVIDIA L20", 46068, 47813723423, (8, 9)),  # 44.53 GiB
        "h20": ("NVIDIA H20", 97871, 102005473280, (9, 0)),  # 95.00 GiB
        "a800-80g": ("NVIDIA A800-SXM4-80GB", 81920, 85179938898, (8, 0)),  # 79.33 GiB ("capacty", torch 2.1)
        "rtx-3090": ("NVIDIA GeForce RTX 3090", 24576, 25447681229, (8, 6)),  # 23.70 GiB
    }
    data = json.loads((ROOT / "src/argtrace/data/gpu_profiles.json").read_text())
    h20 = next(p for p in data["profiles"] if p["name"] == "h20")
    assert h20["sources"]["compute_capability"] == {
        "url": "https://github.com/sgl-project/sglang/issues/3685",
        "line": "GPU 0,1,2,3,4,5,6,7: NVIDIA H20 / GPU 0,1,2,3,4,5,6,7 Compute Capability: 9.0",
    }


@pytest.mark.parametrize(
    ("spec", "name", "count", "given"),
    [
        ("L4", "l4", 1, False),
        ("NVIDIA L4", "l4", 1, False),
        ("nvidia_l4x2", "l4", 2, True),
        ("h20", "h20", 1, False),
        ("H20 x8", "h20", 8, True),
        ("4090", "rtx-4090", 1, False),
        ("RTX 4090", "rtx-4090", 1, False),
        ("GeForce RTX 3090", "rtx-3090", 1, False),
        ("3090x4", "rtx-3090", 4, True),
        ("A800-SXM4-80GB", "a800-80g", 1, False),
        ("NVIDIA A100-SXM4-40GB", "a100-40g", 1, False),
        ("Tesla T4", "t4", 1, False),
        ("mi300x", "mi300x", 1, False),
        ("mi300xx8", "mi300x", 8, True),
    ],
)
def test_gpu_spellings_users_write(spec: str, name: str, count: int, given: bool) -> None:
    from argtrace.gpus import count_given, parse_gpu_spec

    selection = parse_gpu_spec(spec)
    assert (selection.profile.name, selection.count, count_given(spec)) == (name, count, given)


def test_gpu_spellings_that_name_no_one_profile() -> None:
    from argtrace.gpus import parse_gpu_spec

    # A10G (no torch total found yet) and a bare "a100" (40 or 80 GB?) are refused, not guessed
    for spec in ("a10g", "a100", "rtx"):
        with pytest.raises(ValueError, match=f"unknown GPU profile '{spec}'; known: a10, a100-40g, "):
            parse_gpu_spec(spec)


def test_mem_on_an_l4_sizes_the_kv_cache_from_its_profile(tmp_path: Path) -> None:
    model = ROOT / "tests" / "data" / "models" / "llama-3.1-8b"
    argv = ["mem", "--format", "json", "--model-config", str(model), "--gpu", "NVIDIA L4", "--framework"]
    sglang = run_cli([*argv, "sglang"], cwd=tmp_path).json["memory"]
    assert sglang["gpu"] == {
        "name": "l4", "label": "NVIDIA L4", "total_bytes": 23654532383, "smi_total_mib": 23034, "count": 1,
    }  # fmt: skip
    # SGLang 0.5.10.post1 reserves 4096 MB below 23034 MiB: 0.822 of the card, 21773 tokens of 128 KiB
    assert (sglang["mem_fraction_static"], sglang["max_total_num_tokens"], sglang["verdict"]) == (
        0.822,
        21773,
        "fits",
    )
    check = run_cli(
        [
            "check", "--format", "json", "--no-resolve", "--gpu", "l4", "--model-config", str(model),
            "-c", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192",
        ],
        cwd=tmp_path,
    ).json  # fmt: skip
    assert (check["memory"]["verdict"], check["memory"]["available_kv_cache_bytes"]) == ("fits", 3374657897)
    assert [f["code"] for f in check["findings"] if f["severity"] != "info"] == []


@pytest.mark.skipif(
    not environments.find_environment("sglang", "0.5.10.post1"),
    reason="no resolver environment for sglang==0.5.10.post1 (argtrace resolver add)",
)
def test_sglang_s_own_code_sizes_an_l4(tmp_path: Path) -> None:
    # SGLang 0.5.10.post1 run on the fake L4 (23034 MiB, 22.03 GiB, SM89): its own defaults for that card
    model = ROOT / "tests" / "data" / "models" / "llama-3.1-8b"
    data = run_cli(
        [
            "check", "--format", "json", "--gpu", "l4", "--framework-version", "0.5.10.post1",
            "--model-config", str(model), "-c", "python3 -m sglang.launch_server --model-path org/llama",
        ],
        cwd=tmp_path,
    ).json  # fmt: skip
    assert data["resolution"]["gpu"]["product"] == "NVIDIA L4"
    got = {s["name"]: s["effective"] for s in data["settings"]}
    assert [got[k] for k in ("chunked_prefill_size", "cuda_graph_max_bs", "mem_fraction_static")] == [
        2048,
        24,
        0.822,
    ]
    assert got["attention_backend"] == "flashinfer"
    assert data["memory"]["max_total_num_tokens"] == 21773
    # 21773 tokens hold less than one request of the model's 131072: the one warning
    assert [f["code"] for f in data["findings"] if f["severity"] != "info"] == ["RS021"]


def test_why_reads_a_v100_s_capacity_from_torch_s_message() -> None:
    from argtrace.commands.why import _gpu_from_text

    assert _gpu_from_text("GPU 0 has a total capacity of 31.74 GiB of which 20.00 MiB is free") == "v100"
    assert _gpu_from_text("(GPU 0; 14.76 GiB total capacity; 9.70 GiB already allocated") is None  # old form


RS030_V100 = (
    "--kv-cache-dtype fp8 on Tesla V100-PCIE-32GB (compute capability 7.0): vllm 0.33.0 has no "
    "FlashAttention (SM80+) or FlashInfer (SM75+) backend for it, and the Triton attention backend raises "
    '"FP8 KV cache is not supported by the Triton attention backend ... native FP8 (fp8e4nv) requires SM89+" '
    "(TritonAttentionImpl.__init__, vllm/v1/attention/backends/triton_attn.py; vllm 0.24.0-0.33.0)"
)


def test_rs030_fp8_kv_cache_on_a_v100(tmp_path: Path) -> None:
    argv = [
        "--gpu",
        "v100",
        "--framework-version",
        "0.33.0",
        "-c",
        "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8",
    ]
    assert findings(argv, tmp_path, "RS030") == [("error", "framework-code", RS030_V100)]
    # with no release named, 0.33.0 stands in: a warning resting on it
    unnamed = findings(argv[:2] + argv[4:], tmp_path, "RS030")
    assert [(s, b) for s, b, _ in unnamed] == [("warning", "assumed")]


@pytest.mark.parametrize(
    ("gpu", "version", "dtype"),
    [
        ("t4", "0.33.0", "fp8"),  # SM75: FlashInfer's floor in other releases; not proven
        ("a100-40g", "0.33.0", "fp8_e4m3"),
        ("h100", "0.33.0", "fp8"),
        ("v100", "0.20.2", "fp8"),  # the release has no such check
        ("v100", "0.33.0", "auto"),
    ],
)
def test_rs030_stays_quiet(gpu: str, version: str, dtype: str, tmp_path: Path) -> None:
    argv = [
        "--gpu",
        gpu,
        "--framework-version",
        version,
        "-c",
        f"vllm serve Qwen/Qwen3-8B --kv-cache-dtype {dtype}",
    ]
    assert findings(argv, tmp_path, "RS030") == []
    assert (
        findings(["-c", "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8"], tmp_path, "RS030") == []
    )  # no --gpu


# --- the generator is reproducible ------------------------------------------------------------------------


def test_gen_messages_check_indexes_a_real_wheel_again(tmp_path: Path) -> None:
    """scripts/gen_messages.py --check on huggingface_hub's newest indexed wheel (860 KB, from PyPI): the
    same sites and the same repo-id rule as the stored file. Without PyPI the test is skipped."""
    wheels = tmp_path / "wheels"
    try:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:", "-d",
             str(wheels), "huggingface_hub==2.4.0"],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    except (subprocess.SubprocessError, OSError):
        pytest.skip("huggingface_hub 2.4.0 could not be downloaded from PyPI")
    store = tmp_path / "store"
    store.mkdir()
    (store / "huggingface_hub.json.gz").write_bytes((MESSAGE_DIR / "huggingface_hub.json.gz").read_bytes())
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_messages.py"), "--check", "--out", str(store),
         "--wheel-dir", str(wheels)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1].startswith(
        "checked 1 releases, 2 without their wheel at hand, 0 differ"
    )


def test_a_framework_release_given_keeps_the_library_s_sites() -> None:
    text = (
        "HFValidationError: Repo id must use alphanumeric chars, '-', '_' or '.'. The name cannot start or "
        "end with '-' or '.' and the maximum length is 96: 'org/model:main'."
    )
    match = explain(text, "sglang", "0.5.23")["matches"][0]
    assert (match["framework"], match["releases"], match["file"], match["line"]) == (
        "huggingface_hub",
        ["0.36.2", "2.4.0"],
        "huggingface_hub/utils/_validators.py",
        139,
    )
