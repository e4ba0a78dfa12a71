"""Real server logs, session 28's batch (docs/real_cases.md, "Logs, 15th batch"): 15 failures, 5 working.

Each ``*.log`` under ``tests/data/real_cases_logs28/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy gives it (prefixes kept as posted), behind a ``# source:`` header line with
the URL and the date (a month or a year alone where the copy shows no post date). The kinds the batch went
for: a TTS library's Flask app around vLLM's V0 engine, torch's ``[rank0]:`` lines with the report's own
``...`` for frames left out, Docker Desktop's time stamps, docker compose's service column before vLLM's
lines (a CUDA fault printed after the client's EngineDeadError), SGLang's scheduler traceback with ``...``,
a traceback copied from a web page's HTML source (``File &quot;...&quot;``), a shell prompt before SGLang's
import traceback, a compiled extension's ImportError on one line, vLLM's V0 ``engine.py:400]`` lines.
``ok/`` holds the working launches (vLLM on Windows through a launcher, compose's ``vllm_gb10_server  |``
column up to its routes, vLLM Ascend's routes, vLLM on a GB10 warming its chat template, a bench's API server
lines). ``why/`` holds each failure's error text (its lines from the first line naming an error, a failure or
a death on; the whole copy where none does).

What each copy cuts (the corpus keeps about 2,000 characters around the words searched): the exception of
orpheusstreaming7 (the renderer's frame), sglang40076 (the scheduler's, in ``get_top_l``), vllm48707 (the
engine's, in ``concurrent.futures``), xinference4926 (after ``EngineCore failed to start.``), sglang8432 (in
``schedule_batch.py``'s imports), xinference3785 (the frames of vLLM's ``add_request_async``) and sparkmxfp4_3
(the CUDA error above its hints); sglang7407 stops in SGLang's notes on AWQ before the error; orpheustts13 in
the Flask app's frames (after vLLM's message); sparkmxfp4_5 in CUDA's hint lines. The working copies stop
inside their start-up or serving (no error, no warning).

Classes as in the other batches (``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without its change, ``c`` not named, ``d`` a wrong error, warning or claim).
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from argtrace.layers.log.signatures import match_line
from argtrace.layers.log.stages import frames_stage
from tests.batches import (
    LogCase,
    log_batch_tests,
    recorded_why,
)
from tests.conftest import (
    class_counts,
    last_launch,
    log_files,
    log_report,
    written_log,
)

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs28"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
INFO12 = ("LG012", "info")
ERROR7 = ("LG007", "error")
ERROR3 = ("LG003", "error")
CUT = "the exception is not in the copy (cut before it)"
CUT_TB = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
MID_START = "begins mid-start-up"
KV_FIX = "Lower --max-model-len to the estimate, raise --gpu-memory-utilization or use --kv-cache-dtype fp8"
KV_SAYS = (
    "[vllm-max-model-len-exceeds-kv] The KV cache cannot hold one sequence of max_model_len tokens (during "
    "allocating the KV cache). Logged max_model_len=131072. Logged kv_tokens="
)
NO_KERNEL = (
    "[cuda-no-kernel-image] The CUDA runtime found no kernel compiled for this GPU's architecture in the "
    "library that launched it (cudaErrorNoKernelImageForDevice)"
)
NO_KERNEL_FIX = (
    "Install a build compiled for this GPU's compute capability (an image or torch/sgl-kernel/vLLM wheels "
    "with it: CUDA 12.8+ builds for sm_120; a source build with TORCH_CUDA_ARCH_LIST naming it); `python -c "
    '"import torch; print(torch.cuda.get_device_capability(), torch.cuda.get_arch_list())"` shows the GPU\'s '
    "and the build's"
)
TORCH_ABI_FIX = (
    "Install the extension's build for the installed torch, or the torch it was built for, in one step "
    '(SGLang: `pip install "sglang[all]==<release>"` brings the sgl-kernel and torch it pins; vLLM: the vllm '
    "wheel for this torch); `pip show torch sgl-kernel vllm` shows what is installed"
)
DRIVER_FIX = (
    "Update the NVIDIA driver to one for the CUDA release the extension was built for (`nvidia-smi` prints "
    "the highest CUDA the driver supports), or install the extension's build for the CUDA this driver "
    "supports (an image or wheel for an older CUDA); in a container, start it with the GPU runtime (`--gpus "
    "all`)"
)
ILLEGAL_ACCESS_FIX = (
    "Relaunch with CUDA_LAUNCH_BLOCKING=1 (slow: for finding it only) so the traceback names the kernel that "
    "faulted; then run without that kernel (another attention backend or quantization kernel; "
    "--enforce-eager, SGLang --disable-cuda-graph, when it happens only under CUDA graphs; "
    "--disable-custom-all-reduce) and report it with that traceback to the server's project"
)

CASES = [
    LogCase(
        "orpheusstreaming7_apiserver_preprocessing_ignored_field_cut.log",
        "c",
        "c",
        (INFO10,),
        "vllm",
        "incomplete",
        "validation",
        "Launch 1 stops inside a traceback (from line 4) that the file cuts before its exception line: "
        "something failed while it served (one request, or the server)",
        CUT_TB,
        cause="max_model_len",
        change="--max-model-len",
        missing=CUT + ": the request's traceback stops in the renderer (the title: max_model_len read as 0)",
    ),
    LogCase(
        "orpheustts13_flask_v0_gpu_blocks_max_seq_len.log",
        "a",
        "a",
        (ERROR3, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        KV_SAYS + "126208.",
        KV_FIX,
        cause="max_model_len",
        change="--max-model-len",
    ),
    LogCase(
        "orpheustts290_rank0_elided_frames_max_seq_len.log",
        "a",
        "a",
        (ERROR3, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        KV_SAYS + "62896.",
        KV_FIX,
        cause="max_model_len",
        change="--max-model-len",
    ),
    LogCase(
        "sglang40076_scheduler_hit_exception_elided_top_logprobs_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "unknown",
        "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows (during a step this "
        "excerpt does not show). Its traceback is cut after its last frame (layers/logprob_processor.py, "
        "compute_logprobs)",
        "Read the traceback after this line",
        cause="top_logprobs",
        change="top_logprobs",
        missing=CUT + ": the scheduler's traceback stops in compute_logprobs (the report: one request's "
        "top_logprobs above the vocabulary's size)",
    ),
    LogCase(
        "sglang7407_compose_awq_tp_notes_cut.log",
        "c",
        "c",
        (INFO12,),
        None,
        None,
        None,
        "has 7 line(s) with SGLang's scheduler lines (`[2025-06-21 00:33:53 TP0] Attention backend not set. "
        "Use flashinfer backend by default.`) and none of its start-up",
        "Give argtrace the log from the server's start (an older rotated file, the journal, `docker logs`/"
        "`kubectl logs` of the whole container).",
        cause="error",
        change="--",
        missing="the copy holds SGLang's notes on AWQ before the error the report quotes",
    ),
    LogCase(
        # was b: LG011 "died during a step this excerpt does not show with: ImportError:
        # ...common_ops.abi3.so: undefined symbol: _ZN3c104cuda9SetDeviceEa." and the generic fix (add a
        # signature)
        "sglang8373_rtx5080_sgl_kernel_undefined_symbol_one_line.log",
        "b",
        "a",
        (ERROR7,),
        "sglang",
        "failed",
        "import",
        "[compiled-extension-torch-abi] A compiled extension the server imports (the library named: "
        "sgl_kernel's common_ops, vLLM's _C, a FlashAttention build) was built against another PyTorch than "
        "the one installed",
        TORCH_ABI_FIX,
        cause="Logged symbol=_ZN3c104cuda9SetDeviceEa",
        change="sglang[all]",
    ),
    LogCase(
        # was "something failed while it served (one request, or the server)": http_server.py's frame is a
        # module imported by launch_server.py, not a request
        "sglang8432_shell_prompt_launch_traceback_cut.log",
        "c",
        "c",
        (INFO10,),
        "sglang",
        "incomplete",
        "validation",
        "Launch 1 stops inside a traceback (from line 3) (during importing the framework) that the file cuts "
        "before its exception line: the launch was failing there",
        CUT_TB,
        cause="cuGreenCtxDestroy",
        change="driver",
        missing=CUT + ": the import chain stops in schedule_batch.py (the title: undefined symbol "
        "cuGreenCtxDestroy)",
    ),
    LogCase(
        # was b: LG011 with the generic fix
        "sglang_pr8701_sgl_kernel_cugreenctxdestroy_frames.log",
        "b",
        "a",
        (ERROR7,),
        "sglang",
        "failed",
        "import",
        "[compiled-extension-cuda-driver-symbol] A compiled extension the server imports (the library named) "
        "calls a function of the CUDA driver API",
        DRIVER_FIX,
        cause="Logged symbol=cuGreenCtxDestroy",
        change="NVIDIA driver",
    ),
    LogCase(
        "sparkmxfp4_3_compose_enginecore_cuda_error_output_handler.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 7) (during serving) that the file cuts before its "
        "exception line",
        CUT_TB,
        cause="CUDA error",
        change="--",
        missing="the engine's CUDA error is cut: the copy begins at CUDA's hint lines below it",
    ),
    LogCase(
        # was c: LG007 vllm-engine-dead ("Read the first error ... above this line"), while the dying engine's
        # abort (terminate called ..., `  what():  CUDA error: an illegal memory access was encountered`) came
        # below it and was read as no error line (indented)
        "sparkmxfp4_5_compose_engine_dead_illegal_memory_access.log",
        "c",
        "b",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "serving",
        "[cuda-illegal-memory-access] A CUDA kernel the engine ran read or wrote memory outside what it was "
        "given (cudaErrorIllegalAddress)",
        ILLEGAL_ACCESS_FIX,
        cause="illegal memory access",
        change="mxfp4",
        missing="which kernel faulted (the image's MXFP4 path) is in no line of the copy: the fix is how to "
        "find it",
    ),
    LogCase(
        # was c: "stops after weights_loaded (line 4) without an error" beside vLLM V0's ERROR line
        "vllm16307_docker_v073_no_kernel_image.log",
        "c",
        "a",
        (ERROR7, INFO10),
        None,
        "failed",
        "kv_cache",
        NO_KERNEL,
        NO_KERNEL_FIX,
        cause="no kernel image",
        change="compute capability",
    ),
    LogCase(
        # was b: LG011 "died during argument validation" with the generic fix
        "vllm19596_docker_desktop_stamps_no_kernel_image_5060ti.log",
        "b",
        "a",
        (ERROR7, INFO10),
        None,
        "failed",
        "unknown",
        NO_KERNEL,
        NO_KERNEL_FIX,
        cause="no kernel image",
        change="compute capability",
    ),
    LogCase(
        "vllm48707_v0250_enginecore_step_batch_queue_cut.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 4) that the file cuts before its exception line",
        CUT_TB,
        cause="crash",
        change="--",
        missing=CUT + ": the engine's traceback stops in concurrent.futures (step_with_batch_queue)",
    ),
    LogCase(
        # was d: LG012 **warning** "none from an SGLang or vLLM server ... Point argtrace at the file the
        # server writes" on vLLM's frames, their quotes shown as the page's `&quot;`
        "xinference3785_html_escaped_decoder_prompt_longer_cut.log",
        "d",
        "c",
        (INFO12,),
        None,
        None,
        None,
        "has 16 line(s) holding 8 frame(s) of a vllm traceback (the last in add_request_async) without its "
        "exception line",
        "Give argtrace the whole log, from the server's start, or the full traceback with its last line (the "
        "exception).",
        cause="max_model_len",
        change="--max-model-len",
        missing=CUT + ": the title's 'decoder prompt (length 21535) is longer than the maximum model length "
        "of 16384' is below the copy's last frame",
    ),
    LogCase(
        "xinference4926_enginecore_dp0_failed_after_kv_memory_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        # was "weights" (logs29: "Available KV cache memory" above it says the weights were loaded; the
        # cache is configured and allocated after that line)
        "kv_cache",
        "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
        "above it (during allocating the KV cache). Its traceback is cut after its last frame "
        "(tracing/otel.py, sync_wrapper)",
        "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line",
        cause="KV cache",
        change="--",
        missing=CUT + ": the engine's traceback stops in otel's sync_wrapper, after 'Available KV cache "
        "memory: 6.94 GiB'",
    ),
]

# Launches that started; each copy stops inside its start-up or its serving: notes only.
OK_LOGS = {
    "club3090_295_apiserver_routes_bench.log": ((INFO10,), MID_START),
    "sparkvllmdocker_pr200_compose_gb10_routes.log": ((INFO10,), MID_START),
    "vllm_pr31740_gb10_chat_template_warmup.log": (
        (INFO12,),
        "has 10 line(s), 9 of them logged by vLLM's own processes (`EngineCore_DP0`, `APIServer`)",
    ),
    "vllmascend_pr12662_dspark_routes_started.log": ((), ""),
    "vllmwindowsbuild4_launcher_lines_after_graphs.log": ((INFO10, INFO10), MID_START),
}


def test_the_batch() -> None:
    assert len(CASES) == 15
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([2, 3, 9, 1], [6, 1, 8, 0])
    assert [sum(WHY_CLASSES[0]), sum(WHY_CLASSES[1])] == [15, 15]
    assert {p.stem for p in (LOGS / "why").glob("*.txt")} == {Path(c.file).stem for c in CASES}


# --- `why` on each failure's error text -----------------------------------------------------------------

# name -> (confidence, the first site's function or None, the signatures' ids in order, its fix holds)
WRAPPED = "the exception at the end of that traceback is the cause"
AFTER = "the text after the message is the cause"
WHY = {
    "orpheusstreaming7_apiserver_preprocessing_ignored_field_cut": (
        "strong",
        "OpenAIServingCompletion.render_completion_request",
        [],
        WRAPPED,
    ),
    "orpheustts13_flask_v0_gpu_blocks_max_seq_len": (
        "strong",
        "raise_if_cache_size_invalid",
        ["vllm-max-model-len-exceeds-kv"],
        "change --max-model-len, --gpu-memory-utilization",
    ),
    "orpheustts290_rank0_elided_frames_max_seq_len": (
        "strong",
        "raise_if_cache_size_invalid",
        ["vllm-max-model-len-exceeds-kv"],
        "change --max-model-len, --gpu-memory-utilization",
    ),
    "sglang40076_scheduler_hit_exception_elided_top_logprobs_cut": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
        AFTER,
    ),
    # the copy's one message: SGLang's note on AWQ kernels, where it is raised (not the failure)
    "sglang7407_compose_awq_tp_notes_cut": (
        "strong",
        "ModelConfig._verify_quantization",
        [],
        "change --quantization",
    ),
    # was none and no signature: the catalog's entries now name the cause and the change (a)
    "sglang8373_rtx5080_sgl_kernel_undefined_symbol_one_line": (
        "none",
        None,
        ["compiled-extension-torch-abi"],
        None,
    ),
    "sglang8432_shell_prompt_launch_traceback_cut": ("none", None, [], None),
    "sglang_pr8701_sgl_kernel_cugreenctxdestroy_frames": (
        "none",
        None,
        ["compiled-extension-cuda-driver-symbol"],
        None,
    ),
    "sparkmxfp4_3_compose_enginecore_cuda_error_output_handler": (
        "strong",
        "AsyncLLM._run_output_handler.output_handler",
        [],
        WRAPPED,
    ),
    # b: the illegal memory access named as the cause, now with the catalog's entry; which kernel is not said
    "sparkmxfp4_5_compose_engine_dead_illegal_memory_access": (
        "weak",
        "check_cuda_result",
        ["vllm-engine-dead", "cuda-illegal-memory-access"],
        "the cause: 'an illegal memory access was encountered'",
    ),
    # a before and after: the CUDA runtime's own words (why's origin) name the build; the entry now too
    "vllm16307_docker_v073_no_kernel_image": ("none", None, ["cuda-no-kernel-image"], None),
    "vllm19596_docker_desktop_stamps_no_kernel_image_5060ti": (
        "weak",
        "check_cuda_result",
        ["cuda-no-kernel-image"],
        "the cause: 'no kernel image is available for execution on the device'",
    ),
    "vllm48707_v0250_enginecore_step_batch_queue_cut": ("none", None, [], None),
    "xinference3785_html_escaped_decoder_prompt_longer_cut": ("none", None, [], None),
    "xinference4926_enginecore_dp0_failed_after_kv_memory_cut": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-failed"],
        WRAPPED,
    ),
}
# before, after (docs/real_cases.md): a the two Orpheus KV refusals and the two no-kernel-image texts (the
# CUDA runtime's words), then also the two undefined symbols; b the illegal memory access
WHY_CLASSES = ([4, 1, 10, 0], [6, 1, 8, 0])


globals().update(log_batch_tests(LOGS, CASES, OK_LOGS, WHY, sources=20))


@pytest.mark.parametrize(
    ("name", "fix"),
    [
        ("sglang8373_rtx5080_sgl_kernel_undefined_symbol_one_line", TORCH_ABI_FIX),
        ("sglang_pr8701_sgl_kernel_cugreenctxdestroy_frames", DRIVER_FIX),
        ("vllm16307_docker_v073_no_kernel_image", NO_KERNEL_FIX),
    ],
)
def test_why_gives_the_entrys_fix(name: str, fix: str) -> None:
    section = recorded_why(LOGS / "why" / f"{name}.txt")
    assert section["signatures"][-1]["fix"] == fix


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "symbol"),
    [
        # torch's own C++ functions, by their mangled names' namespaces (c10, at, torch)
        (
            "ImportError: /x/sgl_kernel/common_ops.abi3.so: undefined symbol: _ZN3c104cuda9SetDeviceEa",
            "compiled-extension-torch-abi",
            "_ZN3c104cuda9SetDeviceEa",
        ),
        (
            "ImportError: /x/vllm/_C.abi3.so: undefined symbol: "
            "_ZNK3c1010TensorImpl36is_contiguous_customENS_12MemoryFormatE",
            "compiled-extension-torch-abi",
            "_ZNK3c1010TensorImpl36is_contiguous_customENS_12MemoryFormatE",
        ),
        (
            "ImportError: /x/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so: undefined symbol: "
            "_ZN2at4_ops5zeros4callEN3c108ArrayRefINS2_6SymIntEEE",
            "compiled-extension-torch-abi",
            "_ZN2at4_ops5zeros4callEN3c108ArrayRefINS2_6SymIntEEE",
        ),
        # the CUDA driver API
        (
            "ImportError: /usr/local/lib/python3.10/dist-packages/sgl_kernel/common_ops.abi3.so: undefined "
            "symbol: cuGreenCtxStreamCreate",
            "compiled-extension-cuda-driver-symbol",
            "cuGreenCtxStreamCreate",
        ),
    ],
)
def test_an_undefined_symbol_names_the_library_it_belongs_to(text: str, expected: str, symbol: str) -> None:
    hit = match_line(text, framework=None, stage=None)
    assert hit is not None and (hit[0].id, hit[1]["symbol"]) == (expected, symbol)


@pytest.mark.parametrize(
    "text",
    [
        # neither torch's nor the driver's: another library's (NCCL, a C library): no entry claims it
        "ImportError: /x/libfoo.so: undefined symbol: ncclCommInitRankConfig",
        "ImportError: /x/libbar.so: undefined symbol: _ZN5boost6system15system_categoryEv",
    ],
)
def test_another_librarys_undefined_symbol_is_no_entrys(text: str) -> None:
    assert match_line(text, framework=None, stage=None) is None


def test_a_native_abort_after_the_clients_engine_dead_error_is_its_cause(tmp_path: Path) -> None:
    # spark-vllm-mxfp4-docker#5's order: the client's EngineDeadError, then the engine's own abort
    text = (
        "(APIServer pid=1) vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See "
        "stack trace (above) for the root cause.\n"
        "terminate called after throwing an instance of 'c10::AcceleratorError'\n"
        "  what():  CUDA error: an illegal memory access was encountered\n"
    )
    report = log_report(written_log(tmp_path, text))
    assert [(f["code"], f["severity"]) for f in report["findings"]][:1] == [ERROR7]
    message = report["findings"][0]["message"]
    assert message.startswith("[cuda-illegal-memory-access] ")
    assert message.endswith(
        "(during serving). Line: what():  CUDA error: an illegal memory access was encountered"
    )
    assert last_launch(report)["stage"] == "serving"


def test_an_indented_what_line_alone_is_an_error_line(tmp_path: Path) -> None:
    # libstdc++'s terminate handler indents the native exception's message under its first line
    text = (
        "terminate called after throwing an instance of 'c10::Error'\n"
        "  what():  CUDA error: no kernel image is available for execution on the device\n"
    )
    report = log_report(written_log(tmp_path, text))
    first = report["findings"][0]
    assert (first["code"], first["severity"], first["fix"]) == (*ERROR7, NO_KERNEL_FIX)
    assert first["message"].endswith(
        "Line: what():  CUDA error: no kernel image is available for execution on the device"
    )


@pytest.mark.parametrize(
    ("frames", "stage"),
    [
        # modules importing modules from the entry point: importing, whatever the modules' names
        (
            [
                '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
                '  File "/sgl-workspace/sglang/python/sglang/launch_server.py", line 6, in <module>',
                '  File "/sgl/python/sglang/srt/entrypoints/http_server.py", line 51, in <module>',
                '  File "/sgl/python/sglang/srt/managers/schedule_batch.py", line 50, in <modu',
            ],
            "import",
        ),
        # one module-level frame calling a function: no chain of imports
        (
            [
                '  File "/x/sglang/launch_server.py", line 14, in <module>',
                '  File "/x/sglang/srt/entrypoints/http_server.py", line 822, in launch_server',
            ],
            None,
        ),
        # a request's handling under the same module: serving, as before
        (
            [
                '  File "/x/vllm/entrypoints/openai/serving_chat.py", line 239, in create_chat_completion',
                '  File "/x/vllm/v1/engine/async_llm.py", line 503, in output_handler',
            ],
            "serving",
        ),
    ],
    ids=["import_chain", "module_calls_function", "request"],
)
def test_an_import_chain_is_the_import_step(frames: list[str], stage: str | None) -> None:
    assert frames_stage(frames, "") == stage


@pytest.mark.parametrize(
    ("line", "read"),
    [
        (
            "  File &quot;/x/vllm/engine/async_llm_engine.py&quot;, line 976, in generate",
            '  File "/x/vllm/engine/async_llm_engine.py", line 976, in generate',
        ),
        ("ValueError: it&#39;s &lt;module&gt;", "ValueError: it's <module>"),
        # a line without an escaped quote stays as written (a logged prompt's own text)
        ("INFO prompt: 'a &lt; b &amp;&amp; c'", "INFO prompt: 'a &lt; b &amp;&amp; c'"),
    ],
)
def test_a_copy_of_a_pages_html_source_is_read_as_the_page_showed_it(line: str, read: str) -> None:
    from argtrace.layers.log.lines import _decode

    assert _decode(line.encode()) == read


def test_html_escaped_frames_are_a_vllm_traceback(tmp_path: Path) -> None:
    text = "".join(
        f"  File &quot;/home/u/.local/lib/python3.10/site-packages/vllm/engine/{name}.py&quot;, line {n}, "
        f"in f{n}\n"
        f"    call_{n}()\n"
        for n, name in ((976, "async_llm_engine"), (115, "async_llm_engine"), (486, "llm_engine"))
    )
    report = log_report(written_log(tmp_path, text))
    first = report["findings"][0]
    assert (first["code"], first["severity"]) == INFO12
    assert "holding 3 frame(s) of a vllm traceback" in first["message"]


# --- the fast paths read the batch as the slow one ----------------------------------------------------------


def test_a_gzipped_copy_reads_alike(tmp_path: Path) -> None:
    path = tmp_path / "server.log.gz"
    path.write_bytes(gzip.compress((LOGS / CASES[10].file).read_bytes()))
    first = log_report(path)["findings"][0]
    assert (first["code"], first["severity"], first["fix"]) == (*ERROR7, NO_KERNEL_FIX)
