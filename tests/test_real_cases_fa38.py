"""The 2026-12-05 wrong-alarm sweep, seventeenth (fa38): correct launches of 2025-2026 from sources earlier
sweeps did not read (each repository path grepped first): the SGLang cookbook's pages not read before (the
diffusion pages: FLUX, MOVA, Qwen-Image and Qwen-Image-Edit, Wan2.1, Wan2.2, Z-Image-Turbo; the DeepSeek-OCR,
DeepSeek-OCR-2, Glyph, Llama-3.3-70B on AMD and Qwen2.5-VL pages), vLLM's recipes not read before (GLM-ASR,
GLM-V, GLM-Image through vllm-omni) and nine of sgl-project/ome's runtimes (SGLang: a diffusion model and its
edit model, a reranker, a multimodal embedding model, DeepSeek-VL2, Qwen3-VL-235B, DeepSeek-V3 over an RDMA
LeaderWorkerSet with the router; vLLM: Llama-3.1-405B FP8, Llama-4-Maverick FP8). Each file under
``tests/data/real_cases_fa38/`` is a reconstruction (its header names the source at its commit and what it
keeps; a Markdown page keeps its headings and its shell blocks, and reads as the page does), checked as a new
user: no options, no resolver environment, no Hugging Face cache. docs/false_alarms.md ("The fa38 sweep") has
the table and the mechanism.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import SweepBatch
from tests.conftest import run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa38"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# launch -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    "ome_srt_bge_reranker_v2_m3_rt.yaml": 1,
    # had an untrue PA030 note: the engine's leader and worker were read as two launches that "meet at
    # different rendezvous" (both `$(LWS_LEADER_ADDRESS):5000`)
    "ome_srt_deepseek_rdma_lws_router_rt.yaml": 2,
    "ome_srt_deepseek_vl2_rt.yaml": 1,
    "ome_srt_gme_qwen2_vl_embedding_rt.yaml": 1,
    "ome_srt_qwen3_vl_235b_rt.yaml": 1,
    "ome_srt_qwen_image_diffusion_rt.yaml": 1,
    "ome_srt_qwen_image_edit_rt.yaml": 1,
    "ome_vllm_llama31_405b_fp8_rt.yaml": 1,
    "ome_vllm_llama4_maverick_fp8_rt.yaml": 1,
    "recipes_glm_asr_page.md": 1,
    "sglcookbook_deepseek_ocr2_page.md": 2,
    "sglcookbook_deepseek_ocr_page.md": 2,
    "sglcookbook_flux_page.md": 4,
    "sglcookbook_glyph_page.md": 3,
    "sglcookbook_llama33_70b_amd_page.md": 1,
    "sglcookbook_qwen25_vl_page.md": 2,
    "sglcookbook_qwen_image_edit_page.md": 3,
    "sglcookbook_qwen_image_page.md": 3,
    "sglcookbook_wan21_page.md": 6,
    "sglcookbook_wan22_page.md": 6,
    "sglcookbook_z_image_turbo_page.md": 3,
}

_ADJUST = (
    "--adjust-frames is not an option of SGLang 0.5.23's diffusion server, which `sglang serve` runs for a "
    'diffusion model: it stops with "error: unrecognized arguments" (ServerArgs.from_cli_args of '
    "sglang/multimodal_gen)"
)
# launches the source itself breaks, or that the releases the page installs refuse (kept: true findings)
KEPT: dict[str, tuple[int, list[tuple[str, str, str]]]] = {
    # `--mm-encoder-tp-mode data \ ` (a blank after the backslash, on the page as written)
    "recipes_glm_v_page.md": (
        1,
        [
            (
                "SH003",
                "error",
                "space after the line-continuation backslash at the end of line 25: the command ends on "
                "line 25 with an extra argument `' '`, and line 26 runs as a separate command; the flags "
                "after it never reach the server",
            ),
            (
                "PA001",
                "error",
                "' ' (after data) is not a value of any flag: vllm 0.33.0 rejects it with \"unrecognized "
                'arguments" (exit 2)',
            ),
        ],
    ),
    # the page installs the newest vllm-omni after vLLM; from 0.20.0 vllm-omni installs no `vllm` command
    # (data/plugin_flags.json), so `vllm serve ... --omni` is vLLM's own, which refuses --omni
    "recipes_glm_image_omni_page.md": (
        1,
        [
            (
                "PA001",
                "warning",
                "--omni is not a vllm 0.33.0 flag: it is vllm-omni's (vllm-omni 0.14.0-0.30.0 add it), "
                "read only when vllm-omni's own `vllm`/`vllm-omni` command parses the launch; vLLM's own "
                '`vllm` refuses it ("unrecognized arguments", exit 2), as it does when vllm-omni is not '
                "installed or vLLM was installed after it (assumed: the installed packages are not visible "
                "here)",
            )
        ],
    ),
    # `sglang serve ... --adjust-frames false`: a sampling option (SamplingParams.add_cli_args, which
    # `sglang generate` reads); no release's diffusion serve parser has it, and 0.5.23's from_cli_args
    # exits on what is left over
    "sglcookbook_mova_page.md": (4, [("PA001", "warning", _ADJUST), ("PA001", "warning", _ADJUST)]),
}

BATCH = SweepBatch(CASES, CLEAN, kept=KEPT)
report_of = BATCH.report
globals().update(BATCH.tests())


# --- the Maverick runtime's vLLM v0.9.0.1 image and its key=value limit ----------------------------------


def test_the_maverick_runtime_is_read_as_its_image_release_and_its_limit_is_taken() -> None:
    """Its image `vllm-openai:v0.9.0.1` names the release (a four-part tag was read as none, so the launch was
    analysed as 0.33.0), and `--limit-mm-per-prompt image=10` is taken: 0.9.x hands a value not written as a
    JSON object to `nullable_kvs` (data/vllm_kvs_fallback.json). It had an untrue PA011 note ("cannot be
    converted to <function loads>")."""
    report = report_of("ome_vllm_llama4_maverick_fp8_rt.yaml")
    framework = report["framework"]
    assert (framework["version"], framework["source"]) == ("0.9.0.1", "image")
    assert [f["code"] for f in report["findings"]] == ["PR008", "PA013", "RS004"]


# --- an OME runtime's engine leader and worker are one launch ---------------------------------------------


def test_the_rdma_runtimes_leader_and_worker_are_one_launch() -> None:
    report = report_of("ome_srt_deepseek_rdma_lws_router_rt.yaml")
    placed = [(s["placement"]["role"], s["placement"]["group"]) for s in report["servers"]]
    assert placed == [("engine-leader", "engine"), ("engine-worker", "engine")]
    assert [f["code"] for f in report["findings"] if f["code"] == "PA030"] == []


_RUNTIME = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: srt-two-nodes
spec:
{parts}
"""
_PART = """  {key}:
    leader:
      runner:
        name: ome-container
        image: lmsysorg/sglang:v0.5.9
        command: [python3, -m, sglang.launch_server, --model-path, $(MODEL_PATH), --tp-size, "16",
                  --dist-init-addr, "$(LWS_LEADER_ADDRESS):{port}", --nnodes, "2", --node-rank, "0"]
        resources:
          limits:
            nvidia.com/gpu: 8
    worker:
      size: 1
      runner:
        name: ome-container
        image: lmsysorg/sglang:v0.5.9
        command: [python3, -m, sglang.launch_server, --model-path, $(MODEL_PATH), --tp-size, "16",
                  --dist-init-addr, "$(LWS_LEADER_ADDRESS):{port}", --nnodes, "2",
                  --node-rank, $(LWS_WORKER_INDEX)]
        resources:
          limits:
            nvidia.com/gpu: 8
"""


def _check(tmp_path: Path, text: str) -> dict[str, Any]:
    (tmp_path / "rt.yaml").write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", "rt.yaml"], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def _pa030(report: dict[str, Any]) -> list[str]:
    return [f["message"] for f in report["findings"] if f["code"] == "PA030"]


def test_an_ome_engines_leader_and_worker_meet_as_one_launch(tmp_path: Path) -> None:
    report = _check(tmp_path, _RUNTIME.format(parts=_PART.format(key="engineConfig", port=5000)))
    assert [s["placement"]["group"] for s in report["servers"]] == ["engine", "engine"]
    assert _pa030(report) == []


def test_an_ome_engine_and_decoder_stay_two_launches(tmp_path: Path) -> None:
    # prefill (engine) and decode (decoder) are two servers of one model, each over its own two nodes
    parts = _PART.format(key="engineConfig", port=5000) + _PART.format(key="decoderConfig", port=5000)
    report = _check(tmp_path, _RUNTIME.format(parts=parts))
    assert [s["placement"]["group"] for s in report["servers"]] == ["engine", "engine", "decoder", "decoder"]
    assert _pa030(report) == []
