"""The start-up stage a traceback's frames show, and which frames belong to which framework.

A launch's stage decides which signature an error matches (an out-of-memory error while loading weights and
one while capturing CUDA graphs have different fixes) and whether the file must hold a configuration line
before the error (LG001). The frames say it best; this module reads them. It also reads frames that arrive
without their ``Traceback`` header (an excerpt that starts mid-traceback, ``[rank0]:``-prefixed frames, frames
whose indentation a report lost), which the analyser gathers line by line.

The frameworks order their steps differently: SGLang validates its arguments (``ServerArgs.__post_init__``)
before it logs ``server_args=``, while vLLM's API server logs ``non-default args`` (``args: Namespace`` up to
0.9) first and builds the engine configuration (``create_engine_config``, the pydantic ``ModelConfig``) after
it (``vllm/entrypoints/launchers/launcher.py`` ``setup_server`` in 0.33; ``run_server`` since 0.5). Only
``vllm serve --headless`` builds it without logging the arguments.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

# Stages every framework reaches only after its configuration line was written (SGLang's launcher logs
# server_args before it starts the schedulers; vLLM's API server logs its args before the engine starts and
# before it builds the engine configuration).
AFTER_ARGS_STAGES = frozenset(
    {
        "weights",
        "mamba_cache",
        "kv_cache",
        "cuda_graph",
        "draft_worker",
        "serving",
        "distributed",
        "engine_config",
        "model_run",
        "warmup",
        "scheduler_init",
    }
)

# A traceback frame line, with or without its indentation (a report may lose it).
FRAME_LINE = re.compile(r'^\s*File "(?P<path>[^"]+)", line \d+, in (?P<fn>\S+)')

# vLLM builds its engine configuration from the parsed arguments: EngineArgs.create_engine_config /
# create_model_config, and the configs' own validation (pydantic dataclasses since 0.10: "1 validation error
# for ModelConfig"). SGLang has no such step (its ServerArgs is a plain dataclass validated before logging).
_VLLM_ENGINE_CONFIG = re.compile(
    r"create_engine_config|create_model_config|create_speculative_config|create_load_config|"
    r"validation error for \w*Config\b"
)
_VLLM_PATH = re.compile(r'(?:^|[/\\"\s])vllm[/\\]')
_SGLANG_PATH = re.compile(r"[/\\]sglang[/\\]|sgl_kernel|launch_server\.py")
_HEADLESS = re.compile(r"run_headless")


def frames_framework(text: str) -> str | None:
    """The framework whose source files the frames run through (SGLang first: SGLang <= 0.4 imports vLLM's
    distributed modules, so a vLLM path in an SGLang traceback says nothing)."""
    if _SGLANG_PATH.search(text):
        return "sglang"
    if _VLLM_PATH.search(text) or "EngineCore" in text or "vllm serve" in text:
        return "vllm"
    return None


def vllm_engine_config(frames: str, exc: str = "") -> bool:
    """A vLLM traceback through building the engine configuration, which the API server does after it logged
    its arguments (not ``--headless``)."""
    text = frames + "\n" + exc
    if not _VLLM_ENGINE_CONFIG.search(text) or _HEADLESS.search(frames) or _SGLANG_PATH.search(frames):
        return False
    return bool(_VLLM_PATH.search(frames) or "validation error for" in exc)


def serving_error(exc: str) -> bool:
    """An exception only a running server raises: vLLM's client raises ``EngineDeadError`` when the engine
    it was serving with died (``v1/engine/exceptions.py``); its cause is the engine's own traceback."""
    return "EngineDeadError" in exc


# The frames Python's own machinery adds to an import or to ``python -m`` (runpy, importlib's bootstrap).
_IMPORT_MACHINERY = frozenset(
    {
        "_run_module_as_main",
        "_run_code",
        "_run_module_code",
        "run_module",
        "_call_with_frames_removed",
        "_find_and_load",
        "_find_and_load_unlocked",
        "_load_unlocked",
        "exec_module",
        "_gcd_import",
        "import_module",
    }
)
_FRAME_FUNCTION = re.compile(r'File "[^"]*", line \d+, in (\S+)')


def _import_chain(frames: str) -> bool:
    """The frames are modules importing modules: every one module-level (``in <module>``, or its start where
    a copy cuts the line) past Python's import machinery, two or more of them (the entry point's module
    importing the next, sglang#8432: launch_server.py, http_server.py, engine.py, ... in <module>): the
    process was still importing, whatever the modules' names say (http_server.py is no request)."""
    functions = [f for f in _FRAME_FUNCTION.findall(frames) if f not in _IMPORT_MACHINERY]
    return len(functions) >= 2 and all("<module>".startswith(f) and len(f) >= 3 for f in functions)


def frames_stage(block: Sequence[str], exc: str) -> str | None:
    """The stage the frames of ``block`` (a traceback, exception line ``exc``) were in; None if they do not
    say."""
    return _frames_stage(tuple(block), exc)


# The same traceback is asked about for each error line near it (errors._match_errors, the findings): on
# the bench's vLLM log 15 calls, 12 of them the same three frames and exception line, each some 20 searches
# over the frames, the first one compiling them (4.0 M instructions of the command's 114 M, 1.4 M now; issue
# 18). The answer depends on the text alone; a block holds up to 64 KiB, so the 32 kept hold 2 MB at most.
@lru_cache(maxsize=32)
def _frames_stage(block: tuple[str, ...], exc: str) -> str | None:
    frames = "\n".join(block)
    text = frames + "\n" + exc
    if re.search(r"ImportError|ModuleNotFoundError|cannot open shared object file|undefined symbol", exc):
        return "import"
    if _import_chain(frames):
        return "import"
    runtime = re.search(
        r"model_runner|scheduler\.py|tp_worker|gpu_worker|worker_base|engine/core\.py", frames
    )
    if not runtime:
        if vllm_engine_config(frames, exc):
            return "engine_config"
        if re.search(
            r"model_config\.py|get_config|AutoConfig|configuration_auto|hf_transformers_utils", text
        ):
            return "model_config"
        if re.search(
            r"server_args\.py|__post_init__|check_server_args|resolve_once|create_engine_config|"
            r"arg_utils\.py",
            frames,
        ):
            return "validation"
        if re.search(r"parse_args|argparse", frames):
            return "arguments"
    # The loops that run once start-up is over (SGLang's scheduler event loops, one per mode: normal,
    # overlap, pp, disaggregated; the multimodal generation runtime's one ``event_loop``, sglang#17874; the
    # overlap thread; vLLM's engine busy loop): whatever they call (a CUDA
    # graph replay, the sampler), the server was serving. SGLang's ``Scheduler.run_event_loop`` and the
    # ``dispatch_event_loop`` it calls to pick the mode's loop (0.5.10.post1 managers/scheduler.py:1290 and
    # :3487, 0.5.23 :1975 "Engine init (graph capture, warmups) is done" and :6209) come first in those
    # frames: a copy cut before the mode's loop still shows them (sglang#30854).
    if re.search(
        r"\bevent_loop_\w+|\bin event_loop\b|\b(?:run|dispatch)_event_loop\b|forward_thread_func|"
        r"process_batch_result|run_busy_loop|_process_engine_step",
        frames,
    ):
        return "serving"
    # vLLM's API server answering a request (``serving_chat.py``, the output handler that receives the
    # engine's results), and EngineDeadError, which the client raises once a running engine died: serving.
    if re.search(r"entrypoints[/\\]openai[/\\]serving_\w+\.py|output_handler|get_output_async", frames) or (
        serving_error(exc)
    ):
        return "serving"
    # SGLang's CudaGraphRunner; vLLM's capture_model (V0 model_runner, V1 gpu_model_runner) and torch's
    # graph capture itself.
    if re.search(
        r"cuda_graph_runner|capture_one_batch|init_cuda_graphs|init_device_graphs|CudaGraphRunner|"
        r"capture_model|_capture_cudagraphs|torch[/\\]cuda[/\\]graphs\.py",
        text,
    ):
        return "cuda_graph"
    # SGLang's draft workers; vLLM's drafter (a proposer of v1/spec_decode/ loading its model: 0.33.0
    # gpu_model_runner.load_model calls ``self.drafter.load_model``, llm_base_proposer.py, vllm#54526)
    if re.search(
        r"eagle_worker|draft_worker|EAGLEWorker|MTPWorker|drafter|"
        r'spec_decode[/\\]\w+\.py", line \d+, in (?:load_model|_get_model)\b',
        text,
    ):
        return "draft_worker"
    if re.search(r"(?i)mamba", frames) and re.search(r"init_memory_pool|alloc|pool", frames):
        return "mamba_cache"
    # vLLM's profile run (gpu_model_runner.profile_run, called by gpu_worker.determine_available_memory) sizes
    # the KV cache
    if re.search(
        r"init_memory_pool|profile_max_num_token|kv_cache|determine_available_memory|initialize_kv_cache|"
        r"\bprofile_run\b",
        text,
    ):
        return "kv_cache"
    # vLLM's warm-up once the KV cache is allocated (gpu_worker.compile_or_warm_up_model: the CUDA graphs,
    # then the sampler's dummy run, 0.33.0 gpu_worker.py); a bare _dummy_sampler_run is not enough (the
    # profile run calls it too)
    if re.search(r"\bcompile_or_warm_up_model\b", frames):
        return "warmup"
    # quantized weights are repacked for their kernels once loaded (process_weights_after_loading:
    # gptq_marlin_repack, awq_marlin_repack): still the weights step
    if re.search(
        r"load_model|load_weights|weight_utils|model_loader|process_weights_after_loading|marlin_repack", text
    ):
        return "weights"
    # vLLM's get_open_port picks the ports of its distributed init method and internal sockets
    if re.search(
        r"parallel_state\.py|init_torch_distributed|pynccl|init_distributed|\bget_open_port\b", text
    ):
        return "distributed"
    # A model's own forward (vLLM's model_executor/models/, SGLang's srt/models/) with none of the steps
    # above named: the weights were loaded and the model ran (a profiling, warm-up or serving step).
    if re.search(r'(?:model_executor|srt)[/\\]models[/\\]\w+\.py", line \d+, in forward\b', frames):
        return "model_run"
    # SGLang's scheduler being built (``run_scheduler_process`` constructing ``Scheduler``, its
    # ``__init__`` in managers/scheduler.py; 0.5.23 scheduler.py:6362, then ``run_event_loop``) with none of
    # its steps named (the copy cut in ``init_model_worker``, sglang#30663): start-up, after server_args was
    # logged, before serving; which of its steps is not in the frames (errors.py prefers the step the
    # timeline shows, where it shows one).
    if re.search(r"\bscheduler = Scheduler\(", frames) and re.search(
        r'managers[/\\]scheduler\.py", line \d+, in __init__\b', frames
    ):
        return "scheduler_init"
    return None


# vLLM's worker wrappers name the method a worker was running when it raised: V0's
# ``_run_worker_process`` logs "Exception in worker %s while processing method %s."
# (multiproc_worker_utils.py, 0.6.3.post1-0.10.2; 0.7.3 :242) and ``execute_method`` "Error executing method
# %s. This might cause deadlock in distributed execution." (worker/worker_base.py to 0.11.0,
# v1/worker/worker_base.py 0.11.2-0.17.1, v1/executor/ray_utils.py 0.18.1-0.32.0; the name quoted or not), as
# the message index read them from the wheels. A pasted excerpt often keeps that line and not the frames
# (vllm#14092).
_WORKER_METHOD = re.compile(r"\bwhile processing method (\w+)|\bError executing method '?(\w+)")
# The worker methods whose step is one alone: ``load_model`` loads the weights; V0's
# ``Worker.determine_num_available_blocks`` and V1's ``determine_available_memory`` run the memory profile
# that sizes the KV cache (the index's "Error in memory profiling" assertion is in the former: 0.6.3.post1
# vllm/worker/worker.py:232, 0.6.6.post1 vllm/v1/worker/gpu_worker.py:139; 0.33.0 gpu_worker.py:641 defines
# the latter). ``initialize_cache`` is left out:
# V0's also warms the model up (CUDA graphs), so an error there is in either step.
_METHOD_STAGE = {
    "load_model": "weights",
    "determine_num_available_blocks": "kv_cache",
    "determine_available_memory": "kv_cache",
}


def worker_method_stage(text: str) -> str | None:
    """The step vLLM's worker wrapper lines in ``text`` name (``... while processing method load_model.``):
    the step of the methods they name when all name the same one; None when none is named, a method's step
    is not one alone, or two ranks were in different steps."""
    stages = {_METHOD_STAGE.get(a or b) for a, b in _WORKER_METHOD.findall(text)}
    return stages.pop() if len(stages) == 1 else None


# The modules whose code runs only in the server's processes once it started (SGLang's scheduler, its
# workers, the model and its layers, constrained decoding; vLLM's engine, workers, model executor): a raise
# site there is reached after the configuration line was logged.
_RUNTIME_MODULE = re.compile(
    r"sglang[/\\]srt[/\\](?:managers|model_executor|models|layers|constrained|mem_cache|distributed|"
    r"speculative|disaggregation)[/\\]|vllm[/\\](?:v1|worker|model_executor|distributed|attention)[/\\]"
)


def runtime_module(path: str) -> bool:
    """A source file whose code runs only in the started server's processes (not argument handling)."""
    return bool(_RUNTIME_MODULE.search(path))


# The titles the frameworks give their processes (SGLang's ``setproctitle(f"sglang::scheduler{prefix}")``,
# ``sglang::detokenizer``, ``sglang::data_parallel_controller``; vLLM's ``set_process_title``:
# ``VLLM::<name>``, VLLM_PROCESS_NAME_PREFIX's default), seen in native stack frames and system messages
# (the kernel keeps 15 characters: ``VLLM::EngineCor`` in an OOM killer's line). Each such process starts
# only after the framework logged its arguments (SGLang's ``_launch_subprocesses`` logs server_args first;
# vLLM logs its non-default args before it builds the engine).
PROCESS_TITLE = re.compile(r"\b(sglang|VLLM)::([A-Za-z][\w:]*)")

# The names vLLM gives its processes in the ``(NAME pid=N)`` tag before each line they log
# (utils/system_utils.py ``decorate_logs``; v1/engine/utils.py ``EngineCore``/``EngineCore_DP{n}``,
# v1/executor/multiproc_executor.py ``Worker_{rank}`` such as ``Worker_TP0`` or ``Worker_DP1_TP1_EP3``,
# v1/utils.py ``APIServer``, v1/engine/coordinator.py ``DPCoordinator``, ``DPEngineCoreActor_DP{n}`` under
# Ray; ``VllmWorker``/``VllmWorkerProcess``/``RayWorkerWrapper`` before 0.10).
VLLM_PROCESS = re.compile(
    r"(?:APIServer|EngineCore|DPEngineCoreActor|DPCoordinator|Worker|VllmWorker\w*|RayWorkerWrapper)"
    r"(?:_\w+)?$"
)

# A serving process's steady lines (lines.BORING's forms and the OpenAI API's request lines): SGLang's
# ``Decode batch. #``/``Prefill batch, #``, vLLM's ``Avg prompt throughput``, uvicorn's access lines; and
# vLLM's route list (``Route: /v1/models, Methods: GET``, launcher.py's serve_http logs it as it starts
# uvicorn, after "Starting vLLM server on").
SERVING_LINE = re.compile(
    r"(?:Decode|Prefill) batch[.,] #|Avg prompt throughput|\"(?:POST|GET) /(?:v1/\S*|generate|health)\S* "
    r"HTTP/1\.1\" \d{3}|\bRoute: /\S*, Methods: "
)
