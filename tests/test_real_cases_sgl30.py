"""SGLang batch of the 30th session (docs/real_cases.md, "SGLang sgl30: quantized checkpoints against the
release's kernels and loaders (Marlin's repack tile, compressed-tensors schemes), ROCm builds per GPU
architecture, rerank and embedding serving paths, attention backends per GPU and model"), measured before
any fix.

Fourteen failure reports of 2025-2026 whose cause lies in the launch (an AWQ Qwen3.5 checkpoint whose ignored
layers reached Marlin, compressed-tensors W8A8-Int8 and W4A16 2:4 checkpoints, `--quantization
compressed-tensors` on a January 2025 release, a ROCm image on an MI100, the default AITER backend on Radeon
cards, a Qwen3-VL reranker without its template, bge-m3 on the blackwell image, GLM-4.7-Flash with
flashinfer on SM120, DeepSeek-V3.1 with EAGLE and page size 64 on B200, Gemma 3 on torch_native, piecewise
CUDA graphs on Llama 70B, Kimi-Linear's default backend on Blackwell, xgrammar with regex requests) and six
correct launches (``ok_*``). Each case under ``tests/data/real_cases_sgl30/`` names its URL in its header:
``.cmd`` launches (``argtrace check -c``) and two scripts. A new user's machine (no resolver environment,
no Hugging Face cache); ``--framework-version`` only where the report names its release (sglang#5320:
0.4.4.post2; sglang#5775's image: 0.4.5.post3), ``--gpu`` where it names the GPU. Classes by the better
of `check` and `why` on the message a report quotes (sglang#5775's HIP error, the Marlin repack error sglang
PR#20370 quotes for sglang#19406, Qwen3-VL-Embedding#84's rerank answer). Each command runs once per
worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
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

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl30"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report, by the better of `check` and `why`: first seen (52ab1f99) and now.
CLASSES = {
    "sglang19406_qwen35_awq_marlin_repack.cmd": ("c", "a"),
    "sglang5775_mi100_rocm630_image.cmd": ("c", "a"),
    "qwen3vlembedding84_vl_reranker_no_template.cmd": ("c", "a"),  # check's RS077 and why
    "sglang2871_quantization_compressed_tensors.cmd": ("b", "b"),
    "sglang18874_glm47flash_flashinfer_sm120.cmd": ("c", "c"),
    "sglang5320_w8a8_int8_compressed_tensors.cmd": ("c", "c"),
    "sglang31248_gemma4_nvfp4_sparse24.cmd": ("c", "c"),
    "sglang9572_dsv31_eagle_page64_b200.cmd": ("c", "c"),
    "sglang7590_bge_m3_no_is_embedding.sh": ("c", "c"),
    "sglang6044_gemma3_torch_native.cmd": ("c", "c"),
    "sglangpr11569_piecewise_cuda_graph_llama70b.cmd": ("c", "c"),
    "sglangpr15788_kimi_linear_default_backend_blackwell.cmd": ("c", "c"),
    "therock7700_radeon_default_aiter.cmd": ("c", "c"),
    "sglang3295_xgrammar_regex_ebnf.cmd": ("c", "c"),
}
# the release or GPU a report names
OPTIONS = {
    "sglang18874_glm47flash_flashinfer_sm120.cmd": ("--gpu", "rtx-pro-6000"),
    "sglang9572_dsv31_eagle_page64_b200.cmd": ("--gpu", "b200"),
    "sglang7590_bge_m3_no_is_embedding.sh": ("--gpu", "rtx-5090"),
    "sglang5775_mi100_rocm630_image.cmd": ("--framework-version", "0.4.5.post3"),
    "sglang5320_w8a8_int8_compressed_tensors.cmd": ("--framework-version", "0.4.4.post2"),
    "ok_sglangpr12325_dsr1_fp4_rtxpro6000_pp8.cmd": ("--gpu", "rtx-pro-6000"),
}
CORRECT = [
    "ok_sglangpr19526_pplx_embed.cmd",
    "ok_sglangpr12325_dsr1_fp4_rtxpro6000_pp8.cmd",
    "ok_therock7700_triton_backend.cmd",
    "ok_sglangpr15788_kimi_linear_triton.cmd",
    "ok_sglangpr24148_dsv32_aiter_mi35x.sh",
]


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([0, 1, 13, 0], [3, 1, 10, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-05: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


ALARMS = {"qwen3vlembedding84_vl_reranker_no_template.cmd": [("RS077", "warning")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm from `check` on any failure report, before or after: RS077 is Qwen3-VL-Embedding#84's
    cause; the other causes found are `why`'s (and sglang#2871's note)."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_a_qwen3_vl_reranker_without_its_template() -> None:
    """Qwen3-VL-Embedding#84 by `check` too (RS077, read in serving_rerank.py): the path names Qwen3-VL, so
    /v1/rerank renders the served template with query and document only."""
    rs077 = finding(check("qwen3vlembedding84_vl_reranker_no_template.cmd"), "RS077")
    assert rs077["message"] == (
        "/v1/rerank will answer 400 \"'messages' is undefined\" for Qwen/Qwen3-VL-Reranker-8B: SGLang sends "
        "a model path naming Qwen3-VL down its multimodal reranker path, which renders the served chat "
        "template with only query and document (_detect_rerank_backend, _render_vl_jinja_template, "
        "srt/entrypoints/openai/serving_rerank.py), and without --chat-template that is the model's own chat "
        "template, which reads messages (assumed: a reranker, as the model's name says)"
    )
    assert rs077["fix"] == (
        "add --chat-template naming a Qwen3-VL reranker template (one whose text says the answer can only be "
        '"yes" or "no" and holds the vision placeholders <|vision_start|>/<|image_pad|>, what '
        "_is_qwen3_vl_reranker_template tests)"
    )
    assert (rs077["at"], rs077["setting"], rs077["basis"]) == ("<-c>:1:32", "chat_template", "assumed")


def _codes(command: str, *options: str) -> list[str]:
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command]).json
    return [f["code"] for f in report["findings"] if f["severity"] != "info"]


def test_rs077_only_for_a_qwen3_vl_reranker_without_a_template() -> None:
    """With a template, a Qwen3-VL chat model, a text Qwen3 reranker (another path: the template decides
    it) and a release whose serving_rerank.py was not read say nothing."""
    launch = "python -m sglang.launch_server --model-path {model}"
    latest = ("--framework-version", "0.5.23")
    assert _codes(launch.format(model="/models/qwen3vl-reranker-2b"), *latest) == ["RS077"]
    for model in (
        "Qwen/Qwen3-VL-Reranker-8B --chat-template /t/qwen3_vl_reranker.jinja",
        "Qwen/Qwen3-VL-8B-Instruct",
        "Qwen/Qwen3-Reranker-8B",
    ):
        assert _codes(launch.format(model=model), *latest) == [], model
    old = launch.format(model="Qwen/Qwen3-VL-Reranker-8B")
    assert _codes(old, "--framework-version", "0.5.9") == []


def test_a_value_older_releases_refuse_is_a_note() -> None:
    """sglang#2871 (b): no release named, so the launch is analysed as 0.5.23, which takes --quantization
    compressed-tensors; PR011's note names the releases whose choices refuse it, January 2025's among
    them."""
    note = finding(check("sglang2871_quantization_compressed_tensors.cmd"), "PR011")
    assert note["severity"] == "info"
    assert note["message"].endswith(
        "analysed as sglang 0.5.23, the newest bundled release that accepts every flag and variable of the "
        "launch (accepted by 0.5.4.post3-0.5.23); sglang 0.4.0.post2-0.5.3.post3 refuse --quantization "
        "compressed-tensors (not one of its choices)"
    )


# the message each report quotes (sglang#19406's is the one sglang PR#20370, its fix, quotes)
WHY_TEXTS = {
    "sglang5775_mi100_rocm630_image.cmd": "RuntimeError: HIP error: invalid device function",
    "sglang19406_qwen35_awq_marlin_repack.cmd": (
        "RuntimeError: ... gptq_marlin_repack.cuh:309: size_n = 32 is not divisible by tile_n_size = 64"
    ),
    "qwen3vlembedding84_vl_reranker_no_template.cmd": (
        "Rerank Response: {'object': 'error', 'message': \"'messages' is undefined\", 'type': "
        "'BadRequestError', 'param': None, 'code': 400}"
    ),
}
WHY_FIXES = {
    "sglang5775_mi100_rocm630_image.cmd": (
        "rocm-no-kernel-for-gfx",
        "Run a build compiled for this GPU's gfx target (`rocminfo | grep gfx` names it): an image or wheels "
        "built for it, or a source build with PYTORCH_ROCM_ARCH (and the kernel libraries' target lists) "
        "naming it; `roc-obj-ls -v $(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')"
        "/lib/libtorch_hip.so` lists the targets a torch build holds",
    ),
    "sglang19406_qwen35_awq_marlin_repack.cmd": (
        "marlin-repack-tile",
        "If --tp (--tensor-parallel-size) divides the named width below the tile, use a smaller --tp; if the "
        "narrow layer is one the checkpoint's quantization_config ignores, use a release whose model class "
        "matches those names (for Qwen3.5 AWQ checkpoints, one with sglang PR#20370) or a checkpoint "
        "quantized without it; for an FP8 checkpoint on a GPU without FP8 support (Ampere and older: A100, "
        'RTX A6000, RTX 3090; the log\'s "Weight-only FP8 compression" line), run it on GPUs with FP8 '
        "support, or a non-FP8 variant of the model (bf16, AWQ, GPTQ), or a vLLM release that pads FP8 "
        "weights for Marlin (0.33.0 does)",
    ),
    "qwen3vlembedding84_vl_reranker_no_template.cmd": (
        "sglang-rerank-template-messages",
        "Launch the Qwen3-VL reranker with --chat-template naming a Qwen3-VL reranker template: one whose "
        'text says the answer can only be "yes" or "no" and holds the vision placeholders (<|vision_start|>, '
        "<|image_pad|>), what serving_rerank.py's _is_qwen3_vl_reranker_template tests",
    ),
}


@pytest.mark.parametrize("name", sorted(WHY_TEXTS))
def test_why_names_the_cause(name: str) -> None:
    """c -> a: the three texts matched no site nor signature (the Marlin one only weak candidates about
    tensor-parallel divisibility); each now names its signature with the fix."""
    section = explain(WHY_TEXTS[name])
    ident, fix = WHY_FIXES[name]
    assert [(s["id"], s["fix"]) for s in section["signatures"]] == [(ident, fix)]


def test_the_signatures_stay_in_their_lane() -> None:
    """The HIP signature does not read CUDA's own "invalid device function" (a launch configuration error
    there, not a build's missing target), the Marlin one reads the K direction too, and a Jinja template
    missing another variable is not the rerank path's."""
    hip = {
        s["id"]
        for s in explain("hipErrorNoBinaryForGPU: Unable to find code object for all current devices!")[
            "signatures"
        ]
    }
    assert hip == {"rocm-no-kernel-for-gfx"}
    cuda = explain("RuntimeError: CUDA error: invalid device function")["signatures"]
    assert "rocm-no-kernel-for-gfx" not in [s["id"] for s in cuda]
    k = explain("RuntimeError: size_k = 8 is not divisible by tile_k_size = 16")["signatures"]
    assert [s["id"] for s in k] == ["marlin-repack-tile"]
    other = explain("jinja2.exceptions.UndefinedError: 'tools' is undefined")["signatures"]
    assert "sglang-rerank-template-messages" not in [s["id"] for s in other]


def test_why_on_an_embedding_request_names_the_rerank_template() -> None:
    """The refusal a decoder-only reranker meets on /v1/rerank without its yes/no template (sglang#20456,
    sgl26b): the raise site still leads with the message's own --is-embedding, and the signature beside it
    names the template path serving_rerank.py takes."""
    section = explain(
        "This model does not appear to be an embedding model by default. Please add `--is-embedding` when "
        "launching the server or try another model."
    )
    assert section["matches"][0]["function"] == "TokenizerManager._validate_one_request"
    (signature,) = section["signatures"]
    assert signature["id"] == "sglang-embedding-request-on-generation-model"
    assert signature["fix"].startswith(
        "For a decoder-only reranker (Qwen3-Reranker): relaunch without --is-embedding and with "
        '--chat-template naming a yes/no reranker template (one whose text says the answer can only be "yes" '
        'or "no"'
    )


def test_why_on_a_scheme_the_release_never_defines() -> None:
    """sglang#5320's failure as sglang PR#9642 quotes it (the report itself shows a screenshot): no raise
    site, the signature names the release that has the scheme (0.5.3, read in the wheels)."""
    section = explain(
        "NameError: name 'CompressedTensorsW8A8Int8' is not defined. Did you mean: "
        "'CompressedTensorsW8A8Fp8'?"
    )
    assert section["matches"] == []
    (signature,) = section["signatures"]
    assert (signature["id"], signature["fix"]) == (
        "sglang-compressed-tensors-scheme-undefined",
        "Install a release whose sglang/srt/layers/quantization/compressed_tensors/schemes/ has the "
        "checkpoint's scheme (W8A8-Int8: 0.5.3 on), or serve a checkpoint quantized in a scheme the release "
        "has (its schemes/ folder lists them)",
    )


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglang2871_quantization_compressed_tensors.cmd": (
        "compressed-tensors",
        "the report names no release: analysed as 0.5.23, which takes the value; PR011's note names the "
        "releases that refuse it (0.4.0.post2-0.5.3.post3), January 2025's among them",
    ),
    "sglang18874_glm47flash_flashinfer_sm120.cmd": (
        "flashinfer",
        "garbage output of an MLA model under flashinfer on SM120: a kernel path of the release at run "
        "time, no argument check refuses the pair",
    ),
    "sglang5320_w8a8_int8_compressed_tensors.cmd": (
        "W8A8",
        "the checkpoint's compressed-tensors scheme is config.json's (a local folder here); the report "
        "quotes no text (a screenshot), so the scheme signature's `why` has nothing to read",
    ),
    "sglang31248_gemma4_nvfp4_sparse24.cmd": (
        "Sparse24",
        "the W4A16 2:4 sparse scheme is the checkpoint's quantization_config; a new user has no config.json",
    ),
    "sglang9572_dsv31_eagle_page64_b200.cmd": (
        "page",
        "the FlashInfer MLA backend with EAGLE and a page size above 1 failed in the release of August "
        "2025; the release is not named and the newest takes the launch",
    ),
    "sglang7590_bge_m3_no_is_embedding.sh": (
        "embedding",
        "SGLang reads XLMRobertaModel as an embedding model by itself; what killed the blackwell image on "
        "the first request is not in the report",
    ),
    "sglang6044_gemma3_torch_native.cmd": (
        "torch_native",
        "the posted traceback is cut before its cause: a run-time path of the torch_native backend",
    ),
    "sglangpr11569_piecewise_cuda_graph_llama70b.cmd": (
        "piecewise",
        "the piecewise runner's metadata was not initialised in the release of October 2025 (the PR's fix); "
        "the release is not named",
    ),
    "sglangpr15788_kimi_linear_default_backend_blackwell.cmd": (
        "attention",
        "Kimi-Linear's default backend on Blackwell failed before the PR; neither the GPU nor the release is "
        "named",
    ),
    "therock7700_radeon_default_aiter.cmd": (
        "aiter",
        "no GPU profile for Radeon cards (gfx1100, gfx1201), and the note gives no command",
    ),
    "sglang3295_xgrammar_regex_ebnf.cmd": (
        "regex",
        "xgrammar's regex and EBNF support is a request-time matter of the release of February 2025",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
