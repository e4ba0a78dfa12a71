"""`argtrace why` on a 28th batch of 25 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/real_cases_why30/, the first line of each file names the report, the release and
the cause its thread settled on), as a new user runs it, and the mechanisms they led to (docs/real_cases.md
"`why`, 28th batch (why30)"):

- other programs' words about the toolchain and the cluster, read ahead of the frames they surface in
  (``why_toolchain.TOOLCHAIN_WORDINGS``): a CUDA_HOME holding a PATH-like list (the JIT build runs
  ':/…/bin/nvcc'), nvcc refusing an option a JIT build passes (an older toolkit than the build chose its
  options for), a header on none of the compiler's include paths, FlashInfer's "Ninja build failed", NCCL's
  shared-memory segment, vLLM's "No platform detected" line (the container sees no GPU), Ray's placement group
  bundle index past the group's bundles (the parallel sizes against the devices given);
- huggingface_hub's "Repository Not Found" (401 for a missing id and for a private one without a token) names
  the id and both ways out (``why_fixes.hub_repo_fix``);
- a KV connector's handshake that reached another engine ("engine ID mismatch") is the address the remote
  engine advertises: the connector's host and port variables, read from the bundled variable table
  (``why_fixes.peer_mismatch_fix``);
- a condition comparing settings against a count of what the machine offers (``world_size >
  available_gpus``) has two ways out: the settings, or more of what is counted (``why._AVAILABLE``);
- huggingface_hub's refusal of a local path under a call that asked for one file of the model
  (get_hf_file_to_dict) may be a folder that lacks that file (``why_library.one_file_lookup``).
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import _AVAILABLE, explain, render_why
from argtrace.commands.why_confidence import origin_of
from argtrace.commands.why_fixes import hub_repo_fix, peer_mismatch_fix
from tests.batches import WhyCase, assert_why_gives, batch_grades
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "real_cases_why30"


@functools.cache
def _explained(name: str) -> dict[str, Any]:
    section: dict[str, Any] = explain(quoted_text(DATA / f"{name}.txt"))
    return section


def _why(name: str) -> dict[str, Any]:
    return copy.deepcopy(_explained(name))


CASES = [
    WhyCase(
        "awsdoeks79_gpu_memory_utilization_ep16",
        "a",
        "a",
        "request_memory",
        "strong",
        "vllm/v1/worker/utils.py:762",
        ("gpu_memory_utilization",),
        "--gpu-memory-utilization 0.98 asks 174.78 GiB of the device's 178.35 GiB, of which 174.24 ",
    ),
    WhyCase(
        "cubestudio38_unspecified_platform",
        "c",
        "a",
        None,
        "none",
        origin="vLLM's platform detection: it found no GPU or other accelerator in the",
    ),
    WhyCase(
        "flashinfer1532_static_global_template_stub",
        "c",
        "a",
        None,
        "none",
        origin="nvcc (the CUDA compiler of a JIT build: FlashInfer compiles its kernel",
    ),
    WhyCase(
        "flashinfer4410_curand_kernel_header",
        "c",
        "a",
        None,
        "none",
        origin="the C++/CUDA compiler of a JIT build (FlashInfer's kernels, torch's cp",
    ),
    WhyCase(
        "flashinfer5479_nvcc_compress_mode",
        "c",
        "a",
        "call_trtllm_fused_allreduce_norm",
        "weak",
        "vllm/compilation/passes/fusion/allreduce_rms_fusion.py:143",
        (),
        "make the condition false (not (workspace is not None))",
        origin="nvcc (the CUDA compiler of a JIT build: FlashInfer compiles its kernel",
    ),
    WhyCase(
        "gpustack2500_placement_bundle_index",
        "b",
        "a",
        None,
        "none",
        origin="Ray's placement group: the engine places one worker per bundle (one GP",
    ),
    WhyCase(
        "gpustack2547_ascend_bundle_index",
        "b",
        "a",
        None,
        "none",
        origin="Ray's placement group: the engine places one worker per bundle (one GP",
    ),
    WhyCase(
        "gpustack4280_tp_exceeds_gpus_on_node",
        "b",
        "a",
        "initialize_ray_cluster",
        "strong",
        "vllm/v1/executor/ray_utils.py:293",
        ("tensor_parallel_size", "pipeline_parallel_size", "prefill_context_parallel_size"),
        "make the condition false (parallel_config.world_size > available_gpus): change --pipeline-",
    ),
    WhyCase(
        "gpustack5096_tokenizersbackend",
        "a",
        "a",
        "AutoTokenizer.from_pretrained",
        "strong",
        "transformers/models/auto/tokenization_auto.py:1153",
        (),
        "TokenizersBackend is a tokenizer class the indexed transformers 5.23.0 know and 4.57.6 doe",
    ),
    WhyCase(
        "higgsaudio123_xcodec_repo_not_found",
        "b",
        "a",
        "hf_raise_for_status",
        "strong",
        "huggingface_hub/utils/_errors.py:358",
        (),
        "the Hub has no repository 'xcodec_tps25_0215' this request may read: an id that does not e",
    ),
    WhyCase(
        "kserve4565_flashinfer_ninja_image",
        "b",
        "a",
        "EngineCoreProc.run_engine_core",
        "strong",
        "vllm/v1/engine/core.py:1584",
        (),
        "this reports Exception raised by the code it wraps, with its traceback: the exception at t",
        origin="a JIT build of GPU kernels (FlashInfer compiles its kernels at first u",
    ),
    WhyCase(
        "llmddeployer273_unspecified_platform_kubectl",
        "c",
        "a",
        None,
        "none",
        origin="vLLM's platform detection: it found no GPU or other accelerator in the",
    ),
    WhyCase(
        "msswift7100_ninja_build_failed",
        "c",
        "a",
        None,
        "none",
        origin="a JIT build of GPU kernels (FlashInfer compiles its kernels at first u",
    ),
    WhyCase(
        "openrlhf732_ray_driver_no_gpus",
        "b",
        "b",
        "RayDistributedExecutor._init_workers_ray",
        "strong",
        "vllm/executor/ray_distributed_executor.py:231",
        ("VLLM_USE_RAY_SPMD_WORKER",),
        "make the condition false (not self.use_ray_spmd_worker and self.driver_dummy_worker is Non",
    ),
    WhyCase(
        "sglang31295_nixl_prepxferdlist_not_found",
        "c",
        "c",
        None,
        "none",
    ),
    WhyCase(
        "sglang7033_sgl_kernel_undefined_symbol",
        "a",
        "a",
        None,
        "none",
        origin="the dynamic loader: a compiled extension needs a symbol the libraries ",
    ),
    WhyCase(
        "slime1314_ninja_sglangengine_ray",
        "b",
        "a",
        "run_scheduler_process",
        "strong",
        "sglang/srt/managers/scheduler.py:6372",
        (),
        "this reports Exception raised by the code it wraps; the text after the message is the caus",
        origin="a JIT build of GPU kernels (FlashInfer compiles its kernels at first u",
    ),
    WhyCase(
        "vastai128_qwen35_awq_repo_not_found",
        "b",
        "a",
        "hf_raise_for_status",
        "strong",
        "huggingface_hub/utils/_errors.py:358",
        (),
        "the Hub has no repository 'Qwen/Qwen3.5-27B-AWQ' this request may read: an id that does no",
    ),
    WhyCase(
        "verl967_gloo_connectfullmesh",
        "a",
        "a",
        None,
        "none",
        origin="torch",
    ),
    WhyCase(
        "vllm18831_nccl_shm_attach",
        "c",
        "a",
        "_create_or_attach_shared_memory",
        "weak",
        "vllm/model_executor/layers/fused_moe/routed_experts_capturer.py:63",
        (),
        "make the condition false (shm.size != size)",
        origin="NCCL's shared-memory transport between the ranks of one host: a segmen",
    ),
    WhyCase(
        "vllm27083_nixl_engine_id_mismatch",
        "b",
        "a",
        "NixlBaseConnectorWorker._nixl_handshake",
        "strong",
        "vllm/distributed/kv_transfer/kv_connector/v1/nixl/base_worker.py:1231",
        (),
        "the handshake reached another engine than the one the request named: it connects to the ad",
    ),
    WhyCase(
        "vllm36077_flashinfer_nvcc_leading_colon",
        "c",
        "a",
        None,
        "none",
        origin="the JIT build's CUDA path (FlashInfer's kernels, built at first use): ",
    ),
    WhyCase(
        "vllm50765_nixl_handshake_asymmetric_tp",
        "b",
        "b",
        "NixlBaseConnectorWorker._log_failure",
        "strong",
        "vllm/distributed/kv_transfer/kv_connector/v1/nixl/base_worker.py:1377",
        (),
        "make the condition false (msg)",
    ),
    WhyCase(
        "vllmomni2123_dreamid_local_path",
        "b",
        "a",
        "validate_repo_id",
        "strong",
        "huggingface_hub/utils/_validators.py:133",
        ("model_path", "model"),
        "huggingface_hub refused '/cy50055764/models/dreamid_omni', which comes from --model-path (",
    ),
    WhyCase(
        "vllmomni5412_hf_hub_offline_diffusion",
        "b",
        "b",
        None,
        "none",
        origin="huggingface_hub",
    ),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    assert batch_grades(CASES) == ([4, 12, 9, 0], [21, 3, 1, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case)


@pytest.mark.parametrize("case", [c for c in CASES if c.grade == "a"], ids=lambda c: c.name)
def test_a_class_a_case_shows_its_cause_and_way_out_on_the_first_screen(case: WhyCase) -> None:
    screen = render_why(_why(case.name), 80).splitlines()[:23]
    assert screen[0].startswith(
        (
            "vllm: ",
            "sglang: ",
            "transformers: ",
            "huggingface_hub: ",
            "cause: ",
            "no framework raise",
            "the text",
        )
    )
    assert any(line.startswith(("  fix: ", "the text comes from ", "python: ")) for line in screen)


# --- the toolchain's and the cluster's words ----------------------------------------------------------------
def _said(text: str) -> str:
    return (origin_of(text) or {}).get("origin", "")


def test_the_toolchains_and_the_clusters_words() -> None:
    assert _said("[1/3] :/opt/cuda/bin/nvcc -c x.cu -o x.o").startswith("the JIT build's CUDA path")
    assert _said("nvcc fatal   : Unknown option '-compress-mode=size'").startswith("nvcc (the CUDA compiler")
    assert _said("fatal error: cuda_runtime.h: No such file or directory").startswith(
        "the C++/CUDA compiler of a JIT build"
    )
    assert _said("RuntimeError: Ninja build failed.").startswith("a JIT build of GPU kernels")
    assert _said(
        "NCCL WARN Error while creating shared memory segment /dev/shm/nccl-x (size 9637888)"
    ).startswith("NCCL's shared-memory transport")
    assert _said(
        "DEBUG 01-01 12:00:00 [__init__.py:291] No platform detected, vLLM is running on UnspecifiedPlatform"
    ).startswith("vLLM's platform detection: it found no GPU")
    assert _said(
        "ValueError: placement group bundle index 1 is invalid. Valid placement group indexes: 0-0"
    ).startswith("Ray's placement group")
    # the colon of the path is the cause, ahead of the build's failure it leads to
    assert _said(":/usr/local/cuda-12.8/bin/nvcc -c a.cu\nRuntimeError: Ninja build failed.").startswith(
        "the JIT build's CUDA path"
    )
    # not: a PATH listing, nvcc run by its own path, another program's unknown option, another fatal error,
    # another NCCL warning
    # SGLang imports vLLM, whose platform line on an NPU is harmless there (sglang#12835's log)
    sglang = "INFO [__init__.py:243] No platform detected, vLLM is running on UnspecifiedPlatform\n[sglang] x"
    assert not _said(sglang).startswith("vLLM's platform detection")
    assert _said("PATH=/usr/bin:/usr/local/cuda/bin/nvcc") == ""
    assert _said("/usr/local/cuda/bin/nvcc --version") == ""
    assert _said("error: Unknown option --foo") == ""
    assert _said("fatal error: out of memory") == ""
    assert not _said("NCCL WARN Cuda failure 'out of memory'").startswith("NCCL's shared-memory")


# --- the Hub's "Repository Not Found" -----------------------------------------------------------------------
def test_a_repository_the_hub_does_not_find_names_the_id_and_both_ways_out() -> None:
    group = {"message": "{response.status_code} Client Error. Repository Not Found for url: {response.url}."}
    text = "Repository Not Found for url: https://huggingface.co/api/models/org/name/revision/main."
    assert hub_repo_fix(group, text) == (
        "the Hub has no repository 'org/name' this request may read: an id that does not exist (misspelt, or "
        "a local folder that is not where the process runs, which is then read as an id) or a private or "
        "gated repository asked for without a token: name a repository that exists (its page on the Hub) or "
        "a folder that exists, or give a token with access (HF_TOKEN); no other server setting changes it"
    )
    assert _why("vastai128_qwen35_awq_repo_not_found")["matches"][0]["fix"].startswith(
        "the Hub has no repository 'Qwen/Qwen3.5-27B-AWQ'"
    )
    # not: another message (a gated repository has its own fix since why32: tests/test_real_cases_why32.py)
    assert hub_repo_fix({"message": "Revision Not Found for url: {response.url}."}, text) is None


# --- a handshake that reached another engine ----------------------------------------------------------------
def test_a_handshake_with_another_engine_is_the_address_it_advertises() -> None:
    group = {
        "message": "Remote NIXL agent engine ID mismatch. Expected {a},received {b}.",
        "function": "NixlConnectorWorker._nixl_handshake",
        "file": "vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py",
        "framework": "vllm",
    }
    assert peer_mismatch_fix(group) == (
        "the handshake reached another engine than the one the request named: it connects to the address the "
        "remote engine advertises (VLLM_NIXL_SIDE_CHANNEL_HOST, VLLM_NIXL_SIDE_CHANNEL_PORT): on several "
        "nodes set the host to each node's own reachable address (the default is localhost), and give "
        "engines that share a node distinct ports"
    )
    # not: outside a handshake, outside a KV connector, a message without a mismatch
    assert peer_mismatch_fix({**group, "function": "NixlConnectorWorker.start_load_kv"}) is None
    assert peer_mismatch_fix({**group, "file": "vllm/v1/engine/core.py"}) is None
    assert peer_mismatch_fix({**group, "message": "NIXL is not available"}) is None


# --- settings against what the machine offers ---------------------------------------------------------------
def test_settings_against_a_count_of_what_is_available_have_two_ways_out() -> None:
    assert _why("gpustack4280_tp_exceeds_gpus_on_node")["matches"][0]["fix"] == (
        "make the condition false (parallel_config.world_size > available_gpus): change "
        "--pipeline-parallel-size, --prefill-context-parallel-size, --tensor-parallel-size, or give the "
        "engine more of what available_gpus counts (the devices the process, or the Ray cluster it joins, "
        "sees)"
    )
    assert _AVAILABLE.search("num_gpus_available < tp")
    # not: an attribute without a comparison, a package's availability
    assert not _AVAILABLE.search("self.available_memory")
    assert not _AVAILABLE.search("not (is_flashinfer_available)")


# --- a local path under a call for one file -----------------------------------------------------------------
def test_a_path_refused_under_a_one_file_call_may_lack_that_file() -> None:
    fix = _why("vllmomni2123_dreamid_local_path")["matches"][0]["fix"]
    assert fix == (
        "huggingface_hub refused '/cy50055764/models/dreamid_omni', which comes from --model-path (sglang), "
        "--model (vllm): '/cy50055764/models/dreamid_omni' is a path, and the caller asked for one file of "
        "the model (get_hf_file_to_dict: the local file first, then the Hub with the path as a repo id): the "
        "folder is not where the process runs, or it lacks that file (a model whose layout the calling code "
        "does not expect); check that the folder holds the file the call names (its file_name, beside "
        "config.json); if it does not and the layout is the model publisher's, the calling code expects "
        "another layout (a release with the fix, or its issue tracker); else make the folder exist where the "
        "server runs"
    )
    # not: the same refusal without that call keeps the folder that is not there
    text = quoted_text(DATA / "vllmomni2123_dreamid_local_path.txt").replace(
        "get_hf_file_to_dict", "load_config"
    )
    assert "no model folder of that name" in explain(text)["matches"][0]["fix"]
