"""The batch of launches that fail at loading the model (docs/real_cases.md, "Model references"), measured
before any fix.

Public reports of 2025-2026 (vLLM, vLLM-Ascend, vLLM-Omni, GPUStack, a DGX image) whose launch fails on the
model it names: a Hugging Face cache's repo folder, a GGUF reference the release's loader does not take, a
folder that is not where the server runs, a repo that does not exist, a server command swallowed by
`export`. Each case under ``tests/data/real_cases_models/`` names its URL on its first line: ``.cmd`` files
are launches (``argtrace check -c``), ``.txt`` files the error text the report quotes (``argtrace why``),
``ok_*`` the correct launches collected with them. The machine is a new user's (no resolver environment, no
Hugging Face cache); the release is passed only when the report names it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import recorded_check, table_counts, unsourced
from tests.conftest import Launch, alarms, quoted_text, quoted_url, run_cli, v

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "data" / "real_cases_models"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(launch: Launch) -> dict[str, Any]:
    return recorded_check(CASES, launch)


def found(report: dict[str, Any]) -> list[tuple[str, str, str, str | None]]:
    """The errors and warnings, without PR008 (the release read with its family's bundled one)."""
    return [
        (f["code"], f["severity"], f["message"], f["fix"]) for f in alarms(report) if f["code"] != "PR008"
    ]


LAUNCHES = {
    "vllm12378": Launch("vllm12378_hf_cache_repo_folder.cmd", v("0.6.6")),
    "vllm17661": Launch("vllm17661_remote_gguf_repo_load_format.cmd", v("0.8.4")),
    "vllm29137": Launch("vllm29137_gguf_repo_quant_before_support.cmd", v("0.11.2")),
    "vllm13510": Launch("vllm13510_repo_that_does_not_exist.cmd", v("0.7.2")),
    "vllm12867": Launch("vllm12867_local_path_on_ray_nodes.cmd", v("0.7.1")),
    "vllmascend135": Launch("vllmascend135_folder_not_there.cmd"),
    "gpustack1268": Launch("gpustack1268_modelscope_cache_folder.cmd"),
    "gpustack3628": Launch("gpustack3628_path_not_in_container.cmd", v("0.11.0")),
    "vllm15027": Launch("vllm15027_bnb_checkpoint_mistral_format.cmd", v("0.8.2")),
    "vllm23684": Launch("vllm23684_export_line_joined_to_serve.cmd"),
    "vllmomni541": Launch("vllmomni541_relative_model_folder.cmd"),
    "dgxvllm16": Launch("dgxvllm16_offline_cache_mount.cmd"),
    "vllm19050": Launch("vllm19050_split_gguf_first_part.cmd", v("0.8.5")),
}

CORRECT = {
    "ok_vllm33545": Launch("ok_vllm33545_local_folder_served_name.cmd"),
    "ok_vllm29582": Launch("ok_vllm29582_gguf_repo_quant.cmd"),
    "ok_vllm15016": Launch("ok_vllm15016_chat_template_file_with_dashes.cmd"),
    "ok_vllmmetal624": Launch("ok_vllmmetal624_local_gguf_with_tokenizer.cmd"),
    "ok_sglang5813": Launch("ok_sglang5813_repo_id.cmd"),
}

TEXTS = [
    "vllm12378_hf_cache_repo_folder.txt",
    "vllmascend135_folder_not_there.txt",
    "gpustack1268_modelscope_cache_folder.txt",
    "vllm13510_repo_that_does_not_exist.txt",
    "vllm19050_split_gguf_first_part.txt",
    "vllmomni541_relative_model_folder.txt",
]

# The class of each failure report by the better of `check` and `why`: first seen (on ca8b1c1) and now.
CLASSES = {
    "vllm12378": ("c", "a"),  # check: nothing; why: the generic "make the condition false"
    "vllm17661": ("c", "a"),
    "vllm29137": ("b", "a"),  # RS031 with the wrong fix "give the revision 'IQ1_S' to --revision"
    "vllm13510": ("c", "c"),
    "vllm12867": ("c", "c"),
    "vllmascend135": ("a", "a"),  # why: "not a local directory ... give an existing local directory"
    "gpustack1268": ("b", "a"),  # why said "not a local directory": the folder was there, without its config
    "gpustack3628": ("c", "c"),
    "vllm15027": ("c", "c"),
    "vllm23684": ("b", "a"),  # SH019 info "no server start found", no reason
    "vllmomni541": ("c", "c"),
    "dgxvllm16": ("c", "c"),
    "vllm19050": ("b", "b"),  # why: ModelConfig._verify_quantization, a fix that lists every input
}


def test_batch_models_inventory_and_counts() -> None:
    """Every case file is a launch, a text or a correct launch, and the counts are docs/real_cases.md's."""
    files = {p.name for p in CASES.iterdir()}
    launches = {launch.file for launch in (*LAUNCHES.values(), *CORRECT.values())}
    assert files == launches | set(TEXTS)
    assert set(CLASSES) == set(LAUNCHES)
    assert table_counts(CLASSES) == ([1, 4, 8, 0], [6, 1, 6, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


# --- check: the launches ----------------------------------------------------------------------------------


def test_vllm12378_the_cache_repo_folder_is_named_with_its_snapshot() -> None:
    assert found(check(LAUNCHES["vllm12378"])) == [
        (
            "RS034",
            "warning",
            "--model '/myhome/huggingface/hub/models--deepseek-ai--DeepSeek-R1-Distill-Qwen-1.5B' "
            "is a Hugging "
            "Face cache's folder of the repo deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B "
            "(huggingface_hub names it "
            "models--ORG--NAME), which holds blobs/, refs/ and snapshots/<revision>/: the model's files "
            "(config.json, the weights) are in a snapshot folder, so the server finds no "
            "config.json here and "
            "the start fails (assumed from the folder's name)",
            "give the snapshot folder "
            "/myhome/huggingface/hub/models--deepseek-ai--DeepSeek-R1-Distill-Qwen-1.5B"
            "/snapshots/<revision>, or the repo id deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B with "
            "HF_HUB_CACHE=/myhome/huggingface/hub",
        )
    ]


def test_vllm17661_a_repo_id_loaded_as_gguf_by_a_loader_that_takes_a_file() -> None:
    assert found(check(LAUNCHES["vllm17661"])) == [
        (
            "RS035",
            "warning",
            "the model 'NoelJacob/Meta-Llama-3-8B-Instruct-Q4_K_M-GGUF' is a repo id loaded as GGUF "
            "(--load-format/--quantization gguf), which vllm 0.8.4's GGUF loader does not take: it takes a "
            "local .gguf file (read from 0.8.5.post1, the bundled release of its family): "
            "GGUFModelLoader._prepare_weights (vllm/model_executor/model_loader/loader.py:1334) says "
            '"{model_name_or_path} is not a file."; no bundled vllm release takes it',
            "download the .gguf file and give its local path (the original model's repo to --tokenizer), or "
            "with vllm 0.12.0-0.23.0 name the file's quant type: "
            "NoelJacob/Meta-Llama-3-8B-Instruct-Q4_K_M-GGUF:<quant_type>",
        )
    ]


def test_vllm29137_repo_quant_before_the_release_that_takes_it() -> None:
    """was b: RS031 "not a valid repo id ... give the revision 'IQ1_S' to --revision" (a quant type)."""
    assert found(check(LAUNCHES["vllm29137"])) == [
        (
            "RS035",
            "warning",
            "the model 'unsloth/Qwen3-0.6B-GGUF:IQ1_S' is a GGUF reference <repo_id>:<quant_type> (repo "
            "unsloth/Qwen3-0.6B-GGUF, quant type IQ1_S), which vllm 0.11.2's GGUF loader does not take: it "
            "takes a local .gguf file, a raw URL, <repo_id>/<filename>.gguf: "
            "GGUFModelLoader._prepare_weights "
            '(vllm/model_executor/model_loader/gguf_loader.py:55) says "Unrecognised GGUF reference: '
            '{model_name_or_path} (expected local file, raw URL, or <repo_id>/<filename>.gguf)"; before the '
            "loader, huggingface_hub refuses the ':' in a repo id (HFValidationError); vllm 0.12.0-0.23.0 "
            "take <repo_id>:<quant_type>",
            "download the .gguf file and give its local path (the original model's repo to --tokenizer), or "
            "run vllm 0.12.0-0.23.0",
        )
    ]


def test_vllm23684_the_server_command_is_given_to_export() -> None:
    """was b: SH019 info "no server start found" with no reason."""
    report = check(LAUNCHES["vllm23684"])
    assert found(report) == [
        (
            "SH044",
            "error",
            "`vllm serve Qwen/Qwen3.5-4B --port 8020` are names given to `export`, not a command: bash marks "
            '`vllm`, `serve`, refuses `Qwen/Qwen3.5-4B`, `--port`, `8020` ("not a valid identifier") and '
            "returns status 1: the server never starts",
            "End the `export` command before the server command (remove the backslash that joins "
            "the lines, or "
            "put a newline or `;` after its assignments), so that `vllm serve Qwen/Qwen3.5-4B "
            "--port 8020` runs "
            "as a command of its own.",
        )
    ]
    assert [f["code"] for f in report["findings"]] == ["SH044"]  # SH019 would only repeat it


@pytest.mark.parametrize(
    "case",
    ["vllm13510", "vllm12867", "vllmascend135", "gpustack1268", "gpustack3628", "vllm15027", "dgxvllm16"],
)
def test_launches_whose_cause_the_command_does_not_show_stay_quiet(case: str) -> None:
    """A folder that is not on the node or in the container, a repo the Hub lacks, a checkpoint's format:
    nothing in the command says so, and nothing wrong is claimed."""
    assert found(check(LAUNCHES[case])) == []


def test_vllm19050_and_vllmomni541_are_judged_on_other_grounds() -> None:
    assert found(check(LAUNCHES["vllm19050"])) == []
    # vllm-omni's --omni, judged on the newest bundled vLLM (a mechanism of the plugin-flag batch)
    assert [(c, s) for c, s, _m, _f in found(check(LAUNCHES["vllmomni541"]))] == [("PA001", "warning")]


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_launches_are_clean(name: str) -> None:
    """ok_vllm29582 was a RS031 warning: `<repo_id>:<quant_type>` read as a malformed repo id."""
    assert found(check(CORRECT[name])) == []


# --- why: the quoted errors -------------------------------------------------------------------------------


def why_fix(name: str) -> str:
    result = explain(quoted_text(CASES / name))
    first = result["matches"][0]
    return " ".join(s["fix"] for s in first["settings"][:1])


def test_why_names_the_cache_repo_folder() -> None:
    """The report's text lost its closing backtick and period: the value is still read."""
    assert quoted_url(CASES / "vllm12378_hf_cache_repo_folder.txt").endswith("/issues/12378")
    assert why_fix("vllm12378_hf_cache_repo_folder.txt") == (
        "give the snapshot folder /myhome/huggingface/hub/models--deepseek-ai--DeepSeek-R1-Distill-Qwen-1.5B"
        "/snapshots/<revision>, or the repo id deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B with "
        "HF_HUB_CACHE=/myhome/huggingface/hub"
    )


@pytest.mark.parametrize(
    "name", ["vllmascend135_folder_not_there.txt", "gpustack1268_modelscope_cache_folder.txt"]
)
def test_why_says_a_path_refused_as_a_repo_id_was_no_model_folder_where_the_server_ran(name: str) -> None:
    first = explain(quoted_text(CASES / name))["matches"][0]
    assert first["settings"][0]["how"].endswith(
        "is a path, but no model folder of that name (a directory holding its config.json) was found where "
        'the process ran, so it was read as a repo id (vLLM also logs this, as "Error retrieving '
        'safetensors: ...", for a local folder it then loads: that line alone is harmless)'
    )
    assert first["settings"][0]["fix"] == (
        "make the folder, with its config.json, exist where the server runs, on every node of a multi-node "
        "start and inside its container (mount it), or correct the path; a relative path is read from the "
        "server's working directory"
    )


def test_why_names_a_gguf_repo_quant_reference() -> None:
    """Not a report (vllm PR#29137 quotes the line cut short): the whole line of huggingface_hub 0.36."""
    text = (
        "huggingface_hub.errors.HFValidationError: Repo id must use alphanumeric chars, '-', '_' or '.'. The "
        "name cannot start or end with '-' or '.' and the maximum length is 96: "
        "'unsloth/Qwen3-0.6B-GGUF:IQ1_S'."
    )
    setting = explain(text)["matches"][0]["settings"][0]
    assert setting["fix"] == (
        "run a release that takes it (vllm 0.12.0-0.23.0, sglang 0.5.19-0.5.23), or download the .gguf file "
        "and give its local path (the original model's repo to --tokenizer)"
    )


# --- the mechanisms, on inputs that are not the reports --------------------------------------------------


def check_command(command: str, *options: str) -> list[tuple[str, str]]:
    result = run_cli(["check", "--format", "json", *options, "-c", command], cwd=CASES)
    return [(f["code"], f["severity"]) for f in alarms(result.json) if f["code"] != "PR008"]


@pytest.mark.parametrize(
    ("command", "options", "expected"),
    [
        # a snapshot folder is the model's folder
        (
            "vllm serve /hf/hub/models--Qwen--Qwen3-0.6B/snapshots/c1899de289a04d12100db370d81485cdf75e47ca",
            (),
            [],
        ),
        # the snapshots folder without a revision, for SGLang
        (
            "python3 -m sglang.launch_server --model-path /hf/hub/models--Qwen--Qwen3-0.6B/snapshots/",
            (),
            [("RS034", "warning")],
        ),
        # a folder whose name only holds `--` is not a cache folder
        ("vllm serve /data/models/meta-llama--Llama-3-1-8B-Instruct", (), []),
        # <repo_id>:<quant_type> where the loader takes it, and with no release named
        ("vllm serve unsloth/Qwen3-0.6B-GGUF:IQ1_S", ("--framework-version", "0.13.0"), []),
        ("python3 -m sglang.launch_server --model-path unsloth/Qwen3-0.6B-GGUF:Q4_K_M", (), []),
        # SGLang before its loader resolves Hub references
        (
            "python3 -m sglang.launch_server --model-path unsloth/Qwen3-0.6B-GGUF:Q4_K_M",
            ("--framework-version", "0.5.17"),
            [("RS035", "warning")],
        ),
        (
            "python3 -m sglang.launch_server --model-path unsloth/Qwen3-0.6B-GGUF:Q4_K_M",
            ("--framework-version", "0.5.19"),
            [],
        ),
        # --quantization gguf with a repo id, on vLLM 0.9.2 (a local file only)
        (
            "vllm serve TheBloke/TinyLlama-1.1B-Chat-v1.0-GGUF --quantization gguf",
            ("--framework-version", "0.9.2"),
            [("RS035", "warning")],
        ),
        # repo:revision is RS031's: `branch` is no GGUF quant type (gguf's GGMLQuantizationType)
        ("vllm serve org/model:branch", ("--framework-version", "0.9.2"), [("RS031", "warning")]),
        (
            "vllm serve unsloth/Qwen3-30B-A3B-GGUF:UD-Q4_K_XL",
            ("--framework-version", "0.9.2"),
            [("RS035", "warning")],
        ),
    ],
)
def test_model_reference_variants(
    command: str, options: tuple[str, ...], expected: list[tuple[str, str]]
) -> None:
    assert check_command(command, *options) == expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("readonly MODEL=Qwen/Qwen3-8B vllm serve Qwen/Qwen3-8B", [("SH044", "error")]),
        ("declare -x A=1 python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B", [("SH044", "error")]),
        ("export HF_HUB_OFFLINE=1; vllm serve Qwen/Qwen3-8B", []),
    ],
)
def test_declaration_builtins_given_a_server_command(command: str, expected: list[tuple[str, str]]) -> None:
    assert check_command(command) == expected


def test_export_refusing_a_name_returns_1_so_and_does_not_start_the_server() -> None:
    """bash 5.2: `export A=1 b/c` exports A, refuses b/c and returns 1; `&&` skips the server."""
    result = run_cli(
        ["check", "--format", "json", "-c", "export A=1 b/c && vllm serve Qwen/Qwen3-8B"], cwd=CASES
    )
    assert result.json["servers"] == []
    assert [f["code"] for f in result.json["findings"]] == ["SH019"]
    quoted = run_cli(
        ["check", "--format", "json", "-c", 'export "A=b c" && vllm serve Qwen/Qwen3-8B'], cwd=CASES
    )
    assert len(quoted.json["servers"]) == 1  # `export "A=b c"` is an assignment: status 0


def test_the_model_reference_table_is_what_the_message_index_gives() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_model_refs.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert (result.returncode, result.stdout) == (0, "model_refs.json is current\n")
