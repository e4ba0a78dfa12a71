"""`argtrace why` on a 29th batch of 12 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/real_cases_why32/, the first line of each file names the report, the release and
the cause its thread settled on, and what is a stand-in), as a new user runs it, and the mechanisms they led
to (docs/real_cases.md "`why`, 29th batch (why32)"):

- other programs' words read ahead of the frames they surface in (``why_toolchain.TOOLCHAIN_WORDINGS``):
  numactl's refused memory binding (SGLang's SGLANG_NUMA_BIND_V2 wrapper, vLLM's --numa-bind), CUDA's "No CUDA
  GPUs are available" in a process given no GPU (a Ray Data map worker), the NVIDIA driver's own libcuda.so.1
  missing from the loader's path, NCCL's bootstrap that cannot connect to another node's rank, torchvision's
  operators missing from a torch it was not built for;
- tokenizers' "untagged enum" refusal of a tokenizer.json names its way out (a newer tokenizers);
- huggingface_hub's GatedRepoError names the repository and where the token must be
  (``why_fixes.hub_repo_fix``);
- vLLM's get_quant_config finding no config file of --quantization's method in the model folder names the
  weights against the flag (``why_fixes.quant_config_fix``);
- who printed the text goes on the first screen whole: a known wording's way out is at its end
  (``why_text.render_why``).
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, render_why
from argtrace.commands.why_confidence import origin_of
from argtrace.commands.why_fixes import hub_repo_fix, quant_config_fix
from tests.batches import WhyCase, assert_why_gives, batch_grades
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "real_cases_why32"


@functools.cache
def _explained(name: str) -> dict[str, Any]:
    section: dict[str, Any] = explain(quoted_text(DATA / f"{name}.txt"))
    return section


def _why(name: str) -> dict[str, Any]:
    return copy.deepcopy(_explained(name))


CASES = [
    WhyCase(
        "pipecat8_flashinfer_cubin_modal",
        "a",
        "a",
        None,
        "none",
        origin="FlashInfer's version check: the flashinfer-cubin or flashinfer-jit-cac",
    ),
    WhyCase(
        "productionstack617_static_service_discovery_router",
        "a",
        "a",
        None,
        "none",
        origin="Python's interpreter: a call to StaticServiceDiscovery.__init__ that d",
    ),
    WhyCase(
        "qwenpaw3084_tokenizersbackend_vllm019",
        "a",
        "a",
        "AutoTokenizer.from_pretrained",
        "strong",
        "transformers/models/auto/tokenization_auto.py:1153",
        (),
        "TokenizersBackend is a tokenizer class the indexed transformers 5.23.0 know and 4.57.6 doe",
    ),
    WhyCase(
        "ray54812_gated_repo_vllm_v1_ray_serve",
        "b",
        "a",
        "hf_raise_for_status",
        "strong",
        "huggingface_hub/utils/_errors.py:358",
        (),
        "the Hub's repository 'meta-llama/Meta-Llama-3-8B-Instruct' is gated: the request carried n",
    ),
    WhyCase(
        "sagemaker5752_tokenizer_json_modelwrapper_djl",
        "b",
        "a",
        "NeuronSpeculationCausalLM.load_weights",
        "weak",
        "vllm/model_executor/model_loader/neuronx_distributed.py:549",
        (),
        "this only reports another error, the cause: 'data did not match any variant of untagged en",
        origin="tokenizers: the installed release cannot read the model's tokenizer.json, which a newer",
    ),
    WhyCase(
        "sglang27368_numactl_membind_scheduler_died",
        "c",
        "a",
        "_resolve_weight_override_quantization",
        "weak",
        "sglang/multimodal_gen/runtime/loader/transformer_load_utils.py:928",
        (),
        "this reports json.JSONDecodeError raised by the code it wraps",
        origin="numactl (the NUMA binding SGLang puts in front of each scheduler process while SGLANG_NUMA",
    ),
    WhyCase(
        "sglang3820_nccl_socketpollconnect_no_route",
        "c",
        "a",
        "run_scheduler_process",
        "strong",
        "sglang/srt/managers/scheduler.py:6372",
        (),
        "this reports Exception raised by the code it wraps; the text after the message is the caus",
        origin="NCCL's bootstrap between ranks on different nodes: this rank could not open a TCP connection",
    ),
    WhyCase(
        "sglang4778_sgl_kernel_libcuda_so1",
        "b",
        "a",
        None,
        "none",
        origin="the dynamic loader: libcuda.so.1 is the NVIDIA driver's own library (not a pip package)",
    ),
    WhyCase(
        "vllm14413_no_cuda_gpus_ray_data_map_worker",
        "c",
        "a",
        "ParallelConfig.__post_init__",
        "weak",
        "vllm/config.py:1350",
        ("distributed_executor_backend", "pipeline_parallel_size", "tensor_parallel_size"),
        "make the condition false (self.distributed_executor_backend != 'ray')",
        origin="CUDA, as torch reaches it: the process sees no GPU: CUDA_VISIBLE_DEVICES is empty",
    ),
    WhyCase(
        "vllmascend6790_cannot_find_config_file_ascend",
        "a",
        "a",
        "get_quant_config",
        "strong",
        "vllm/model_executor/model_loader/weight_utils.py:380",
        ("download_dir", "model", "quantization", "revision"),
        "--quantization ascend asks for ascend's quantization config file among the model folder's ",
        origin="pydantic",
    ),
    WhyCase(
        "vllmascend477_torchvision_nms",
        "c",
        "a",
        None,
        "none",
        origin="torchvision: its compiled operators did not load into the installed torch, so torchvision",
    ),
    WhyCase(
        "xinference2836_nccl_unhandled_system_error_docker",
        "a",
        "a",
        "NCCLLibrary.NCCL_CHECK",
        "strong",
        "vllm/distributed/device_communicators/pynccl_wrapper.py:464",
        (),
        "this only reports another error, the cause: 'unhandled system error (run with NCCL_DEBUG=I",
    ),
]


def test_the_batch_is_12_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 12
    assert batch_grades(CASES) == ([5, 3, 4, 0], [12, 0, 0, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case)


# the words of each case's way out, on the first screen (80 columns, 23 lines)
WAY_OUT = {
    "pipecat8_flashinfer_cubin_modal": "flashinfer-cubin",
    "productionstack617_static_service_discovery_router": "releases",
    "qwenpaw3084_tokenizersbackend_vllm019": "transformers",
    "ray54812_gated_repo_vllm_v1_ray_serve": "HF_TOKEN",
    "sagemaker5752_tokenizer_json_modelwrapper_djl": "newer server image",
    "sglang27368_numactl_membind_scheduler_died": "SGLANG_NUMA_BIND_V2=0",
    "sglang3820_nccl_socketpollconnect_no_route": "NCCL_SOCKET_IFNAME",
    "sglang4778_sgl_kernel_libcuda_so1": "LD_LIBRARY_PATH",
    "vllm14413_no_cuda_gpus_ray_data_map_worker": "num_gpus on the Ray Data map",
    "vllmascend6790_cannot_find_config_file_ascend": "--quantization ascend",
    "vllmascend477_torchvision_nms": "install the torchvision made for the installed torch",
    "xinference2836_nccl_unhandled_system_error_docker": "--shm-size",
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_class_a_case_shows_its_way_out_on_the_first_screen(case: WhyCase) -> None:
    screen = " ".join(" ".join(render_why(_why(case.name), 80).splitlines()[:23]).split())
    assert WAY_OUT[case.name] in screen


# --- other programs' words ----------------------------------------------------------------------------------
def _said(text: str) -> str:
    return (origin_of(text) or {}).get("origin", "")


def test_numactls_refused_binding() -> None:
    assert _said("setting membind: Invalid argument").startswith("numactl (the NUMA binding SGLang puts")
    assert _said("setting membind: Operation not permitted").startswith("numactl")
    assert _said("set_mempolicy: Operation not permitted").startswith("numactl")
    # not: numactl's options in a command line, another program's invalid argument
    assert not _said("numactl --cpunodebind=0 --membind=0 python -m sglang.launch_server").startswith(
        "numactl"
    )
    assert _said("setting affinity: Invalid argument") == ""


def test_a_process_given_no_gpu() -> None:
    assert _said("(RayWorkerWrapper pid=7) RuntimeError: No CUDA GPUs are available").startswith(
        "CUDA, as torch reaches it: the process sees no GPU"
    )
    # not: a count of GPUs, CUDA's other refusals
    assert _said("INFO: 8 CUDA GPUs are available") == ""
    assert not _said("RuntimeError: CUDA error: no kernel image is available").startswith("CUDA, as torch")


def test_torchvision_built_for_another_torch() -> None:
    assert _said("RuntimeError: operator torchvision::roi_align does not exist").startswith(
        "torchvision: its compiled operators did not load"
    )
    # not: another library's missing operator
    assert not _said("RuntimeError: operator vllm::fused_moe does not exist").startswith("torchvision")


def test_the_drivers_own_library() -> None:
    said = _said("ImportError: libcuda.so.1: cannot open shared object file: No such file or directory")
    assert said.startswith("the dynamic loader: libcuda.so.1 is the NVIDIA driver's own library")
    # not: a library of a pip package (the CUDA runtime), which keeps the loader's general reading
    assert _said(
        "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory"
    ) == ("the dynamic loader: a shared library the packages need is missing")


def test_ncclss_bootstrap_that_cannot_reach_another_node() -> None:
    for text in (
        "n1:5:5 [0] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned "
        "113(No route to host) errno 115(Operation now in progress)",
        "n1:5:5 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 10.1.2.3<4040> failed : "
        "Connection refused",
    ):
        assert _said(text).startswith("NCCL's bootstrap between ranks on different nodes"), text
    # not: NCCL's INFO lines while it retries (the connection may come), NCCL's shared-memory warning
    assert _said("n1:5:6 [0] NCCL INFO socketPollConnect: connect returned No route to host, retrying") == ""
    assert not _said("NCCL WARN Error while creating shared memory segment /dev/shm/nccl-x").startswith(
        "NCCL's bootstrap"
    )


# --- the Hub's gated repository -----------------------------------------------------------------------------
def test_a_gated_repository_names_where_the_token_must_be() -> None:
    group = {
        "message": "{response.status_code} Client Error. Cannot access gated repo for url {response.url}."
    }
    text = "Cannot access gated repo for url https://huggingface.co/org/name/resolve/main/config.json."
    assert hub_repo_fix(group, text) == (
        "the Hub's repository 'org/name' is gated: the request carried no token, or the token's account has "
        "not been granted access: accept the model's terms on its page with that account, and give its token "
        "(HF_TOKEN) to every process that reads the Hub (the server's environment and its workers': a "
        "container's env, a Ray runtime_env that reaches the engine's processes, a Kubernetes secret mounted "
        "as HF_TOKEN), or serve a local copy of the weights; no other server setting changes it"
    )
    # the missing repository keeps its own reading
    missing = {
        "message": "{response.status_code} Client Error. Repository Not Found for url: {response.url}."
    }
    assert str(
        hub_repo_fix(missing, text.replace("Cannot access gated repo", "Repository Not Found"))
    ).startswith("the Hub has no repository 'org/name'")


# --- a quantization method's config file --------------------------------------------------------------------
def test_a_quantization_method_without_its_config_file() -> None:
    group = {"message": "Cannot find the config file for {model_config.quantization}"}
    assert quant_config_fix(group, "ValueError: Cannot find the config file for gptq") == (
        "--quantization gptq asks for gptq's quantization config file among the model folder's *.json "
        "files, and the folder holds none: the weights are not quantized with it (or that file was not "
        "copied with them): leave --quantization unset so the method comes from the checkpoint's own "
        "config, or point --model at weights quantized with gptq"
    )
    # not: the other refusal of the same lookup (several config files)
    several = {"message": "Found multiple config files for {model_config.quantization}: {quant_config_files}"}
    assert quant_config_fix(several, "Found multiple config files for awq: [a, b]") is None


# --- who printed the text, whole ---------------------------------------------------------------------------
def test_who_printed_the_text_is_whole_on_the_first_screen() -> None:
    screen = render_why(_why("sglang27368_numactl_membind_scheduler_died"), 80).splitlines()
    assert screen[0].startswith("the text comes from numactl")
    # its way out, at the wording's end, is before the weak candidates (it was cut after three lines)
    head = " ".join(
        " ".join(screen[: screen.index("candidates only (matched on words; not where it failed):")]).split()
    )
    assert "or a container that allows the binding; no other server setting" in head
