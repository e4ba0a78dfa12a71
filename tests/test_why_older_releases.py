"""The message index beyond the bundled releases (vLLM 0.2.7-0.6.5, SGLang 0.1.14-0.3.6.post3), the library a
launch goes through (huggingface_hub's validators), and RS031 (a model value huggingface_hub's
validate_repo_id refuses); the GPU profiles and RS030 are tests/test_gpu_profiles.py's. The texts are
real reports' (URLs beside them) or the frameworks' own messages."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, release_spans
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
        "from an fp8 KV cache, fp8 quantization or an fp8 checkpoint; on this GPU use --kv-cache-dtype auto "
        "(or float16) and no fp8 --quantization; a checkpoint whose config.json says fp8 "
        "(quantization_config) needs a GPU of compute capability 8.9+ or another variant of the model (bf16, "
        "int8, int4)"
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
