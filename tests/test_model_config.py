"""The model's config.json against the launch (layers/model_rules.py: RS024, RS025), and where it is read
from (``--model-config``, a local model directory, the Hugging Face cache).

Without a resolver environment the rules apply one raise of vLLM's model-config code from the release's
bundled raise-site index; with one (marker ``frameworks``), vLLM's own ``create_engine_config`` reads the
config.json and its refusal is the finding. The configs are public checkpoints' (tests/data/models/README.md);
the launches are real cases' (docs/real_cases.md, each with its URL).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from argtrace.resolver import environments
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent
MODELS = ROOT / "data" / "models"
CASES = ROOT / "data" / "real_cases"
QWEN72 = MODELS / "qwen2.5-72b-instruct"  # 64 heads, 32768 positions, no RoPE scaling
QWEN05 = MODELS / "qwen2.5-0.5b-instruct"  # 14 heads
GEMMA3 = MODELS / "gemma-3-27b-it"  # text_config: 32 heads; linear RoPE x8
LLAMA2 = MODELS / "llama-2-7b-chat"  # 32 heads, 4096 positions
LLAMA31 = MODELS / "llama-3.1-8b"  # llama3 RoPE (vLLM does not scale the length by it), 131072 positions

HEADS_0_8_5 = (
    "tensor_parallel_size 3 does not divide the model's 32 attention heads ({path}: num_attention_heads): "
    "vllm 0.8.5.post1 refuses the launch in ModelConfig.verify_with_parallel_config (vllm/config.py:934): "
    '"Total number of attention heads (32) must be divisible by tensor parallel size (3)."'
)
EVERY = "every bundled vllm release (0.6.6.post1 .. 0.33.0, so whichever runs)"
MAX_LEN_CASE_6 = (
    "max_model_len 131072 exceeds the model's max_position_embeddings 32768 ({path}): "
    f"{EVERY} refuses the launch in _get_and_verify_max_len (vllm/config/model.py:2680): "
    '"User-specified max_model_len (131072) is greater than the derived max_model_len '
    "(max_position_embeddings=32768 or model_max_length=None in model's config.json).\""
)


@pytest.fixture(scope="module")
def _empty_hf_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One empty Hugging Face home for the module's tests (a test that needs a cache sets HF_HUB_CACHE to its
    own): the same path in every test's environment lets their resolutions share a resolver host
    (argtrace/resolver/hosts.py serves only an equal environment)."""
    return tmp_path_factory.mktemp("hf")


@pytest.fixture(autouse=True)
def _new_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, _empty_hf_home: Path) -> None:
    """No resolver environment and an empty Hugging Face cache unless a test builds one."""
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HOME", str(_empty_hf_home))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)


def check(*argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv])
    assert result.status in (0, 1), result.stderr
    return dict(result.json)


def model_findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] in ("RS024", "RS025")]


def test_case_47_tensor_parallel_size_3_on_32_heads_named_release() -> None:
    """gpustack#2259 (https://github.com/gpustack/gpustack/issues/2259): vLLM 0.8.5.post1, gemma-3-27b-it,
    --tensor-parallel-size 3. With the checkpoint's config.json the release's own raise is named."""
    report = check(
        "--model-config",
        str(GEMMA3),
        "--framework-version",
        "0.8.5.post1",
        str(CASES / "gpustack2259_tp3_heads.cmd"),
    )
    [finding] = model_findings(report)
    assert (finding["code"], finding["severity"], finding["setting"]) == (
        "RS024",
        "error",
        "tensor_parallel_size",
    )
    assert finding["message"] == HEADS_0_8_5.format(path=GEMMA3 / "config.json")
    assert finding["fix"] == (
        "use a --tensor-parallel-size that divides 32 (2, 4, 8, 16, 32), and --pipeline-parallel-size for "
        "the other GPUs"
    )
    assert finding["basis"] == "static" and not finding.get("assumptions")


def test_heads_with_no_release_named_rest_on_every_release_and_not_on_the_gpu() -> None:
    """No release named, no --gpu: every bundled vLLM release has the raise, and the GPU plays no part, so
    the error is not capped to a warning."""
    report = check(
        "--no-resolve", "--model-config", str(QWEN05), "-c", "vllm serve /m --tensor-parallel-size 4"
    )
    [finding] = model_findings(report)
    assert finding["severity"] == "error"
    assert finding["message"] == (
        f"tensor_parallel_size 4 does not divide the model's 14 attention heads ({QWEN05 / 'config.json'}: "
        f"num_attention_heads): {EVERY} refuses the launch in ModelConfig.verify_with_parallel_config "
        '(vllm/config/model.py:1560): "Total number of attention heads (14) must be divisible by tensor '
        'parallel size (4)."'
    )
    assert finding["fix"] == (
        "use a --tensor-parallel-size that divides 14 (2, 7, 14), and --pipeline-parallel-size for the "
        "other GPUs"
    )


@pytest.mark.parametrize("tp", ["1", "2", "4", "8"])
def test_heads_that_split_evenly_say_nothing(tp: str) -> None:
    report = check(
        "--no-resolve", "--model-config", str(LLAMA2), "-c", f"vllm serve /m --tensor-parallel-size {tp}"
    )
    assert model_findings(report) == []


def test_case_6_max_model_len_beyond_the_model_without_a_resolver() -> None:
    """LongVT#9 (https://github.com/EvolvingLMMs-Lab/LongVT/issues/9): --max-model-len 131072 on
    Qwen2.5-72B-Instruct (max_position_embeddings 32768)."""
    report = check("--no-resolve", "--model-config", str(QWEN72), str(CASES / "longvt9_max_model_len.cmd"))
    [finding] = model_findings(report)
    assert (finding["code"], finding["severity"], finding["setting"]) == ("RS025", "error", "max_model_len")
    assert finding["message"] == MAX_LEN_CASE_6.format(path=QWEN72 / "config.json")
    assert finding["fix"] == (
        "--max-model-len 32768 or less (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets vLLM exceed it: outputs beyond "
        "the trained length are unreliable)"
    )


def test_case_6_found_from_the_hugging_face_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a GPU node the model is usually in the Hugging Face cache: the repo id of the launch is looked up
    there (offline), as the resolution layer does, with no --model-config."""
    repo = tmp_path / "hub" / "models--Qwen--Qwen2.5-72B-Instruct"
    snapshot = repo / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    shutil.copy(QWEN72 / "config.json", snapshot / "config.json")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    report = check("--no-resolve", str(CASES / "longvt9_max_model_len.cmd"))
    [finding] = model_findings(report)
    assert finding["message"] == MAX_LEN_CASE_6.format(path=snapshot / "config.json")


def test_no_readable_config_says_nothing() -> None:
    """A new user's machine: no --model-config, no local directory, an empty cache. Nothing is guessed from
    the model's name."""
    report = check("--no-resolve", str(CASES / "longvt9_max_model_len.cmd"))
    assert model_findings(report) == []
    assert "memory" not in report or not report["memory"]


@pytest.mark.parametrize(
    ("model", "command"),
    [
        # within the model's length
        (QWEN72, "vllm serve /m --max-model-len 32768"),
        # vLLM only warns with the variable set
        (QWEN72, "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve /m --max-model-len 131072"),
        # llama3 RoPE: vLLM does not scale the length by it, and 131072 is within it
        (LLAMA31, "vllm serve /m --max-model-len 131072"),
        # Gemma 3: linear RoPE x8 and no max_position_embeddings in text_config: what vLLM derives is open
        (GEMMA3, "vllm serve /m --max-model-len 131072"),
    ],
)
def test_max_model_len_says_nothing_where_the_framework_does_not_refuse_or_argtrace_cannot_tell(
    model: Path, command: str
) -> None:
    report = check("--no-resolve", "--model-config", str(model), "-c", command)
    assert model_findings(report) == []


def test_a_rope_factor_leaves_the_derived_length_to_the_framework(tmp_path: Path) -> None:
    """A linear or dynamic RoPE factor multiplies the length vLLM derives; YaRN is scaled differently by
    older and newer releases: nothing is said without the framework's own code."""
    for rope in (
        {"rope_type": "linear", "factor": 4.0},
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
    ):
        config = json.loads((QWEN72 / "config.json").read_text())
        config["rope_scaling"] = rope
        (tmp_path / "config.json").write_text(json.dumps(config))
        report = check(
            "--no-resolve", "--model-config", str(tmp_path), "-c", "vllm serve /m --max-model-len 131072"
        )
        assert model_findings(report) == [], rope


def test_sglang_context_length_is_not_checked_statically_its_heads_are() -> None:
    """SGLang's context-length refusal depends on the release (an environment default changed): without a
    resolver nothing is said of it (docs/memory.md). Its head checks are asserts of the model files, read
    from the wheels (mtp37): Qwen2.5-0.5B's 14 heads at --tp-size 4 stop Qwen2Attention."""
    report = check(
        "--no-resolve",
        "--model-config",
        str(QWEN05),
        "--framework-version",
        "0.5.10.post1",
        "-c",
        "python -m sglang.launch_server --model-path /m --context-length 131072 --tp-size 4",
    )
    (heads,) = model_findings(report)
    assert (heads["code"], heads["severity"]) == ("RS024", "error")
    assert heads["message"].startswith("tp_size 4 does not divide the model's 14 attention heads")
    assert "sglang 0.5.10.post1's Qwen2Attention asserts it" in heads["message"]
    report = check(
        "--no-resolve",
        "--model-config",
        str(QWEN05),
        "--framework-version",
        "0.5.10.post1",
        "-c",
        "python -m sglang.launch_server --model-path /m --context-length 131072 --tp-size 2",
    )
    assert model_findings(report) == []


def _needs(framework: str, version: str) -> Any:
    return pytest.mark.skipif(
        environments.find_environment(framework, version) is None,
        reason=f"no resolver environment for {framework}=={version}",
    )


# the machine's resolver environments: where the test command built them (.ci/run sets a fresh cache)
_MACHINE_CACHE = os.environ.get("ARGTRACE_CACHE_DIR")


@pytest.fixture
def _resolvers(monkeypatch: pytest.MonkeyPatch) -> None:
    if _MACHINE_CACHE:
        monkeypatch.setenv("ARGTRACE_CACHE_DIR", _MACHINE_CACHE)
    else:
        monkeypatch.delenv("ARGTRACE_CACHE_DIR", raising=False)


@pytest.mark.frameworks
@pytest.mark.slow
@_needs("vllm", "0.33.0")
def test_case_6_with_the_resolver_is_vllms_own_refusal(_resolvers: None) -> None:
    """With vLLM 0.33.0's environment its own _get_and_verify_max_len reads the config.json: RS001 with its
    message (it prints the derived length as a float), and the static RS025 stays silent."""
    report = check(
        "--model-config",
        str(QWEN72),
        "--gpu",
        "h100x8",
        "--framework-version",
        "0.33.0",
        str(CASES / "longvt9_max_model_len.cmd"),
    )
    assert model_findings(report) == []
    rs001 = next(f for f in report["findings"] if f["code"] == "RS001")
    assert rs001["severity"] == "error" and rs001["setting"] == "max_model_len"
    assert rs001["message"].startswith(
        "ValidationError in _get_and_verify_max_len (vllm/config/model.py:2680) reads max_model_len = 131072 "
        "(from the command line): 1 validation error for ModelConfig\n  Value error, User-specified "
        "max_model_len (131072) is greater than the derived max_model_len "
        "(max_position_embeddings=32768.0 or model_max_length=None in model's config.json)."
    )


@pytest.mark.frameworks
@pytest.mark.slow
@pytest.mark.parametrize(("version", "line"), [("0.5.10.post1", 402), ("0.5.23", 1314)])
def test_sglang_context_length_beyond_the_model_is_its_own_model_config(
    _resolvers: None, version: str, line: int
) -> None:
    """SGLang's own ModelConfig (resolution) refuses --context-length beyond what it derives from
    config.json; argtrace adds no static rule of its own for it."""
    if environments.find_environment("sglang", version) is None:
        pytest.skip(f"no resolver environment for sglang=={version}")
    report = check(
        "--model-config",
        str(QWEN05),
        "--gpu",
        "h100",
        "--framework-version",
        version,
        "-c",
        "python -m sglang.launch_server --model-path Qwen/Qwen2.5-0.5B-Instruct --context-length 131072",
    )
    rs001 = next(f for f in report["findings"] if f["code"] == "RS001")
    assert rs001["message"].startswith(
        f"ValueError in _derive_context_length (sglang/srt/configs/model_config.py:{line}) reads "
        "context_length = 131072 (from the command line): Warning: User-specified context_length (131072) is "
        "greater than the derived context_length (32768)."
    )


@pytest.mark.frameworks
@pytest.mark.slow
@_needs("vllm", "0.33.0")
def test_quantization_against_the_checkpoints_is_vllms_own_check(_resolvers: None, tmp_path: Path) -> None:
    """--quantization awq on a GPTQ checkpoint: vLLM's _verify_quantization reads quantization_config from
    config.json. The config is Qwen2.5-0.5B-Instruct's with the quantization_config shape of its public GPTQ
    release (Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4: gptq, 4 bits, group 128); no static rule of argtrace's
    (the release's Marlin overrides decide which pairs pass)."""
    config = json.loads((QWEN05 / "config.json").read_text())
    config["quantization_config"] = {
        "bits": 4,
        "group_size": 128,
        "desc_act": False,
        "sym": True,
        "quant_method": "gptq",
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    report = check(
        "--model-config",
        str(tmp_path),
        "--gpu",
        "h100",
        "--framework-version",
        "0.33.0",
        "-c",
        "vllm serve Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4 --quantization awq",
    )
    rs001 = next(f for f in report["findings"] if f["code"] == "RS001")
    assert rs001["setting"] == "quantization"
    assert rs001["message"].startswith(
        "ValidationError in _verify_quantization (vllm/config/model.py:1457) reads quantization = 'awq' "
        "(from the command line): 1 validation error for ModelConfig\n  Value error, Quantization method "
        "specified in the model config (gptq) does not match the quantization method specified in the "
        "`quantization` argument (awq)."
    )


CASE_62 = (
    "--speculative-algorithm EAGLE3 without a draft model: sglang {version} resolves no "
    "--speculative-draft-model-path, so its draft worker loads the target's checkpoint (Qwen2ForCausalLM) as "
    "the EAGLE3 draft and calls draft_model.set_embed(embed) ({where}), which "
    "sglang.srt.models.qwen2.Qwen2ForCausalLM (sglang/srt/models/qwen2.py) does not define: the server dies "
    "with AttributeError at start-up, after loading the weights twice (the release's model registry, "
    "resolution step eagle3_draft)"
)


@pytest.mark.frameworks
@pytest.mark.slow
@pytest.mark.parametrize(
    ("version", "where"),
    [
        (
            "0.5.10.post1",
            "sglang/srt/speculative/eagle_worker.py:169, sglang/srt/speculative/eagle_worker_v2.py:210",
        ),
        ("0.5.23", "sglang/srt/speculative/eagle_worker_v2.py:363"),
    ],
)
def test_case_62_eagle3_target_as_its_own_draft(_resolvers: None, version: str, where: str) -> None:
    """sglang#36528 (https://github.com/sgl-project/sglang/issues/36528): EAGLE3 without
    --speculative-draft-model-path on Qwen2.5-0.5B-Instruct. With its config.json and the release's
    resolver, the release's own model registry says the draft's class has no set_embed."""
    if environments.find_environment("sglang", version) is None:
        pytest.skip(f"no resolver environment for sglang=={version}")
    report = check(
        "--model-config",
        str(QWEN05),
        "--gpu",
        "h100",
        "--framework-version",
        version,
        str(CASES / "sglang36528_eagle3_no_draft.cmd"),
    )
    [finding] = [f for f in report["findings"] if f["code"] == "RS026"]
    assert (finding["severity"], finding["setting"]) == ("error", "speculative_draft_model_path")
    assert finding["message"] == CASE_62.format(version=version, where=where)
    step = next(s for s in report["resolution"]["steps"] if s["name"] == "eagle3_draft")
    assert step["detail"]["defines"] is False and step["detail"]["calls"] == "set_embed"


@pytest.mark.frameworks
@pytest.mark.slow
@_needs("sglang", "0.5.10.post1")
def test_eagle3_with_a_draft_or_a_class_that_takes_the_embedding(_resolvers: None) -> None:
    """A draft path given: the step is skipped and nothing is said. A Llama target as its own draft defines
    set_embed: a note only (the report says it may still fail later)."""
    base = ("--model-config", str(LLAMA31), "--gpu", "h100", "--framework-version", "0.5.10.post1", "-c")
    given = check(
        *base,
        "python -m sglang.launch_server --model-path /m --speculative-algorithm EAGLE3 "
        "--speculative-draft-model-path /draft",
    )
    assert [f for f in given["findings"] if f["code"] == "RS026"] == []
    step = next(s for s in given["resolution"]["steps"] if s["name"] == "eagle3_draft")
    assert step["status"] == "skipped"
    llama = check(*base, "python -m sglang.launch_server --model-path /m --speculative-algorithm EAGLE3")
    [finding] = [f for f in llama["findings"] if f["code"] == "RS026"]
    assert finding["severity"] == "info"
    assert (
        "sglang.srt.models.llama.LlamaForCausalLM (sglang/srt/models/llama.py) defines set_embed"
        in (finding["message"])
    )


@pytest.mark.frameworks
@pytest.mark.slow
@_needs("vllm", "0.33.0")
def test_vllms_refusal_of_too_few_devices_follows_from_the_gpu_count(_resolvers: None) -> None:
    """On ``--gpu h100x2`` the resolver's fake node has 2 devices and vLLM 0.33.0 refuses tensor parallel 4
    ("World size (4) is larger than the number of available GPUs (2)", a condition reading
    ``device_count()``): that RS001 and the memory layer's MM007 are consequences of RS005, one cause."""
    report = check(
        "--model-config",
        str(LLAMA31),
        "--gpu",
        "h100x2",
        "-c",
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4",
    )
    causes = [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")]
    assert causes == ["RS005"]
    (rs005,) = [f for f in report["findings"] if f["code"] == "RS005"]
    assert sorted(c["code"] for c in rs005["consequences"]) == ["MM007", "RS001"]
    (rs001,) = [c for c in rs005["consequences"] if c["code"] == "RS001"]
    assert "World size (4) is larger than the number of available GPUs (2)" in rs001["message"]
