"""SGLang's own memory sizing for one launch, run inside a resolver environment (``argtrace mem --resolver``).

``run_framework_sizing`` runs this file with the environment's Python, under the same runtime environment
and fake GPU the resolution layer uses (``resolver.environments.runtime_env_for`` +
``resolver.fake_gpu.fake_gpu_env``). Inside, ``main``:

1. resolves the server's argv with the resolver's own recorder (``resolver/record.py`` ``run_sglang``, the
   recording switched off): the real ``ServerArgs`` after ``__post_init__`` / ``resolve_once``, so
   NEXTN -> EAGLE, the speculative ``max_running_requests``, ``auto`` -> ``no_buffer`` and the computed
   ``mem_fraction_static`` for the GPU profile are SGLang's;
2. builds SGLang's ``ModelConfig.from_server_args`` from the local ``config.json`` (no download);
3. calls the version's own pool sizing, stopping before any pool is allocated:

   - 0.5.10.post1 .. 0.5.15.post1: ``ModelRunner._resolve_memory_pool_config`` (the
     ``model_runner_kv_cache_mixin.py`` methods: ``profile_max_num_token`` / ``_profile_available_bytes``,
     ``handle_max_mamba_cache``, ``_resolve_token_capacity`` / ``_apply_token_constraints``,
     ``_resolve_max_num_reqs``, ``_calculate_mamba_ratio``) on a ``ModelRunner`` made without
     ``__init__`` that carries the attributes those methods read (the ones ``ModelRunner.__init__`` /
     ``load_model`` would have set for rank 0), after ``ModelRunner.configure_kv_cache_dtype``;
   - 0.5.19 and later: ``KVCacheConfigurator._resolve_memory_pool_config``
     (``mem_cache/kv_cache_configurator.py``: ``_profile_available_bytes``, ``_handle_max_mamba_cache``,
     ``config_from_budget``, ``_apply_token_constraints``, ``resolve_max_num_reqs``,
     ``_calculate_mamba_ratio``), built by ``ModelRunner.init_kv_cache_configurator`` on the same kind of
     stand-in runner.

   ``get_available_gpu_memory`` answers the post-weights free memory argtrace computed (or the log's
   ``Load weight end. avail mem``); ``pre_model_load_memory`` is the log's ``Load weight begin`` figure (or
   argtrace's estimate). The process groups are stand-ins carrying their world sizes (rank 0, one process).

Every SGLang function entered during step 3 is reported with its ``file:line`` (``sys.setprofile``), so
the JSON says exactly which framework code produced the numbers. Modules that the model runner imports but
that a resolver environment does not install (``STANDIN_MODULES``: web-server and tensor-notation
packages the sizing never calls) are empty stand-ins, and ``torch.library.register_fake`` tolerates the
GPU kernels' operators that do not exist on CPU torch.

This file is run by path with stdlib-only imports at module top (like ``framework_probe.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_S = 240
GIB = 1 << 30
# Imported by model_runner.py (eplb, the HTTP entrypoints) but never by the sizing; not installed in the
# resolver environments (their packages list only what the argument and config modules need).
STANDIN_MODULES = ("einops", "uvicorn", "fastapi")


@dataclass
class FrameworkSizing:
    """What SGLang's own code computed for rank 0 (bytes, counts), or ``error``."""

    version: str
    kv_bytes_per_token: int = 0
    kv_cell_bytes_per_token: int = 0  # what the pool budget divides by (0.5.23: target + EAGLE draft layers)
    kv_cache_dtype: str = ""
    mamba_bytes_per_slot: int = 0
    mamba_conv_bytes_per_slot: int = 0
    mamba_ssm_bytes_per_slot: int = 0
    full_attention_layer_ids: list[int] = field(default_factory=list)
    mamba_ratio: int | None = None  # _calculate_mamba_ratio: Mamba slots per running request
    max_total_num_tokens: int | None = None
    max_mamba_cache_size: int | None = None
    max_running_requests: int | None = None
    mem_fraction_static: float | None = None
    pre_load_gb: float = 0.0
    post_load_gb: float = 0.0
    resolved: dict[str, Any] = field(default_factory=dict)
    functions: list[dict[str, str]] = field(default_factory=list)
    standins: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    variants: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None
    error_at: str | None = None

    @classmethod
    def from_json(cls, version: str, data: Mapping[str, Any]) -> FrameworkSizing:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__ and k != "version"}
        return cls(version=str(data.get("version") or version), **known)


def with_settings(argv: Sequence[str], changes: Mapping[str, Any]) -> list[str]:
    """``argv`` with each ``dest`` in ``changes`` set to its value: earlier ``--dest-flag V`` /
    ``--dest-flag=V`` words removed, ``--dest-flag V`` appended (``None`` or ``False``: removed only)."""
    flags = {"--" + dest.replace("_", "-") for dest in changes}
    out: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
            continue
        name = word.split("=", 1)[0]
        if name in flags:
            skip = "=" not in word
            continue
        out.append(word)
    for dest, value in changes.items():
        if value is None or value is False:
            continue
        out.append("--" + dest.replace("_", "-"))
        if value is not True:
            out.append(str(value))
    return out


def _sizing_process(
    version: str, gpu: str, env: Mapping[str, str] | None
) -> tuple[str, Path, str, dict[str, str]] | None:
    """(release label, environment directory, its interpreter, the run's environment) of a sizing run for
    ``version`` on ``gpu``, or None when no resolver environment for that version exists."""
    from argtrace.resolver import environments
    from argtrace.resolver.fake_gpu import fake_gpu_env

    manifest = environments.find_environment("sglang", version)
    if manifest is None:
        return None
    env_dir = (
        Path(manifest.path)
        if manifest.path
        else environments.cache_dir() / environments.env_name("sglang", version)
    )
    # argtrace's own environment: the launch's interpreter and loader variables never reach it
    base = environments.launch_env_for_resolver(dict(env or {}))
    run_env = environments.runtime_env_for(base, {"ARGTRACE_FAKE_GPU": fake_gpu_env(gpu)})
    return manifest.version or version, env_dir, str(environments.env_python(env_dir)), run_env


def prestart_sizing_host(version: str, gpu: str, env: Mapping[str, str] | None = None) -> bool:
    """Start the host a sizing run of ``version`` on ``gpu`` with ``env`` will ask for, without waiting for
    its import (``resolver/hosts.py`` ``prestart``): it imports SGLang while the resolution layer's run
    works, and the sizing run that follows finds it ready. A host serves only a run of the same key, so
    a host started for inputs the run does not have costs its import and nothing else. True when one
    started."""
    process = _sizing_process(version, gpu, env)
    if process is None:
        return False
    from argtrace.resolver import hosts

    _label, _env_dir, python, run_env = process
    return hosts.prestart(python, __file__, list(STANDIN_MODULES), run_env)


def run_framework_sizing(
    model_dir: Path,
    server_argv: Sequence[str],
    gpu: str,
    version: str,
    *,
    pre_load_bytes: int,
    post_load_bytes: int,
    env: Mapping[str, str] | None = None,
    variants: Sequence[Mapping[str, Any]] = (),
    timeout: float = TIMEOUT_S,
) -> FrameworkSizing | None:
    """SGLang ``version``'s own sizing for ``server_argv`` (the server's flags, without the model path) on
    ``gpu`` (a ``--gpu`` spec), or None when no resolver environment for that version exists. ``variants``
    (dest -> value changes, e.g. a suggestion's settings) are sized in the same process, after the launch
    (``FrameworkSizing.variants``, in order)."""
    process = _sizing_process(version, gpu, env)
    if process is None:
        return None
    label, env_dir, python, run_env = process
    # Last, so it wins over the launch's own --model-path (a hub id or a node path): argparse keeps the last.
    argv = [*server_argv, "--model-path", str(Path(model_dir).resolve())]
    from argtrace.layers.remote_code import remote_code_reason

    never = remote_code_reason(argv, Path(model_dir).resolve())
    if never is not None:
        return FrameworkSizing(version=version, error=f"not sized: {never}")
    request = {
        "argv": argv,
        "record_py": str(Path(__file__).resolve().parent.parent.parent / "resolver" / "record.py"),
        "pre_load_gb": pre_load_bytes / GIB,
        "post_load_gb": post_load_bytes / GIB,
        "standins": list(STANDIN_MODULES),
        "variants": [with_settings(argv, changes) for changes in variants],
    }
    started = time.monotonic()
    from argtrace.resolver import cache, cache_write, hosts

    # the sizing process's answer (its last JSON line and argparse's refusal, if any) under the same key
    # as a resolution's (resolver/cache.py): same code, environment, argv and files, env -> same answer
    entry = cache_write.key("sizing", str(env_dir), request, run_env)
    hit = cache.load(entry)
    if hit is not None and isinstance(hit.get("line"), str):
        return _sizing_answer(label, hit["line"], hit.get("said"), started)
    with tempfile.TemporaryDirectory(prefix="argtrace-sizing-") as tmp:
        req = Path(tmp) / "request.json"
        req.write_text(json.dumps(request))
        try:
            done = hosts.run(
                python,
                __file__,
                [str(req)],
                prep=list(STANDIN_MODULES),
                env=run_env,
                cwd=tmp,
                timeout=timeout,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return FrameworkSizing(version=label, error=f"sizing run failed: {exc}")
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}, no result"])[-1]
        return FrameworkSizing(version=label, error=tail)
    # argparse's refusal of the flags, if any (its message is on stderr)
    said = [line for line in done.stderr.splitlines() if ": error: " in line and not line[:1].isspace()]
    try:
        error = json.loads(lines[-1]).get("error")
    except (ValueError, AttributeError):
        return FrameworkSizing(version=label, error=f"sizing run printed no JSON result: {lines[-1][:200]}")
    if not error or str(error).startswith("SystemExit"):  # a complete answer (a refusal is one too)
        cache_write.store(entry, {"line": lines[-1], "said": said[-1] if said else None})
    return _sizing_answer(label, lines[-1], said[-1] if said else None, started)


def _sizing_answer(label: str, line: str, said: str | None, started: float) -> FrameworkSizing:
    result = FrameworkSizing.from_json(label, json.loads(line))
    if result.error and result.error.startswith("SystemExit") and said:
        # argparse refused the flags: that version does not take this launch.
        result.error = f"the {label} parser exits: {said.strip()}"
    result.seconds = round(time.monotonic() - started, 2)
    return result


# ------------------------------------------------------------------------------ inside the environment


def _install_standins(names: Sequence[str]) -> list[str]:  # pragma: no cover - runs in the environment
    """Empty modules for ``names`` that are not installed (never shadows an installed one)."""
    import importlib.abc
    import importlib.machinery
    import importlib.util
    import types

    for finder in sys.meta_path:  # a host took this step before forking this run (resolver/host_main.py)
        done = getattr(finder, "argtrace_standins", None)
        if done is not None:
            return sorted(done)
    missing = {n for n in names if importlib.util.find_spec(n) is None}

    class _Anything:
        """What a stand-in module's attributes are: callable, subscriptable, a base class."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def __call__(self, *args: Any, **kwargs: Any) -> _Anything:
            return _Anything()

        def __getattr__(self, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return _Anything()

        def __getitem__(self, key: Any) -> _Anything:
            return _Anything()

        def __mro_entries__(self, bases: Any) -> tuple[type, ...]:
            return (object,)

    class _Loader(importlib.abc.Loader):
        def create_module(self, spec: Any) -> types.ModuleType:
            module = types.ModuleType(spec.name)
            module.__path__ = []

            def attr(name: str) -> Any:
                if name.startswith("__"):
                    raise AttributeError(name)
                return _Anything()

            module.__getattr__ = attr  # type: ignore[method-assign]
            return module

        def exec_module(self, module: types.ModuleType) -> None:
            return None

    class _Finder(importlib.abc.MetaPathFinder):
        argtrace_standins = frozenset(missing)

        def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
            if name.split(".")[0] in missing:
                return importlib.machinery.ModuleSpec(name, _Loader(), is_package=True)
            return None

    sys.meta_path.insert(0, _Finder())
    import torch.library

    original = torch.library.register_fake

    def register_fake(op: Any, func: Any = None, /, **kwargs: Any) -> Any:
        # sgl_kernel's operators do not exist on CPU torch: their fake kernels cannot register.
        def decorate(fn: Any) -> Any:
            try:
                return original(op, fn, **kwargs)
            except RuntimeError:
                return fn

        return decorate(func) if func is not None else decorate

    torch.library.register_fake = register_fake
    return sorted(missing)


def _rel(path: str) -> str:
    for marker in ("site-packages/", "dist-packages/"):
        idx = path.rfind(marker)
        if idx >= 0:
            return path[idx + len(marker) :]
    return path


class _CallLog:  # pragma: no cover - runs in the environment
    """Every SGLang function entered while active: (qualname, file:first line), in first-call order."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], None] = {}

    def __enter__(self) -> _CallLog:
        def profile(frame: Any, event: str, arg: Any) -> None:
            if event != "call":
                return
            code = frame.f_code
            path = code.co_filename
            if "/sglang/srt/" not in path or code.co_name.startswith("<"):
                return
            key = (getattr(code, "co_qualname", code.co_name), f"{_rel(path)}:{code.co_firstlineno}")
            self.seen.setdefault(key, None)

        sys.setprofile(profile)
        return self

    def __exit__(self, *exc: Any) -> None:
        sys.setprofile(None)

    def functions(self) -> list[dict[str, str]]:
        skip = ("__init__", "__post_init__", "__getattr__", "__setattr__", "_read", "config_bag")
        return [
            {"function": name, "at": at}
            for name, at in self.seen
            if not name.rsplit(".", 1)[-1].startswith(skip)
            and "/environ.py" not in at
            and "/logging" not in at
        ]


def _resolved_server_args(record_py: str, argv: list[str]) -> tuple[Any, dict[str, Any]]:  # pragma: no cover
    """The resolver's own path to a resolved ``ServerArgs`` (record.py ``run_sglang``, recording off), and
    its effective values as the resolution layer reads them (``record.sglang_final``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("argtrace_record", record_py)
    assert spec is not None and spec.loader is not None
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    import sglang.srt.server_args as sa

    captured: dict[str, Any] = {}
    prepare = sa.prepare_server_args

    def capture(words: Any) -> Any:
        captured["args"] = prepare(words)
        return captured["args"]

    sa.prepare_server_args = capture
    recording: dict[str, Any] = {"timings": {}}
    try:
        record.run_sglang(argv, record.Recorder(enabled=False), recording)
    finally:
        sa.prepare_server_args = prepare
    return captured["args"], dict(recording.get("final") or {})


def _group(world_size: int) -> Any:  # pragma: no cover
    """A process-group stand-in: rank 0 of ``world_size``, no communication (one process sizes rank 0)."""
    import types

    return types.SimpleNamespace(
        world_size=world_size, rank_in_group=0, rank=0, cpu_group=None, device_group=None
    )


def _stand_in_parallel(server_args: Any) -> dict[str, int]:  # pragma: no cover
    """Rank 0's process groups as stand-ins carrying their world sizes (the module globals every version's
    group getters read: ``parallel_state._TP`` ..., ``dp_attention._ATTN_DP_SIZE``)."""
    import sglang.srt.distributed.parallel_state as ps
    import sglang.srt.layers.dp_attention as dpa

    dp_attn = bool(server_args.enable_dp_attention)
    sizes = {
        "tp": int(server_args.tp_size),
        "pp": int(server_args.pp_size),
        "attn_tp": int(server_args.tp_size) // (int(server_args.dp_size) if dp_attn else 1),
        "attn_dp": int(server_args.dp_size) if dp_attn else 1,
    }
    # _WORLD: rank 0 alone, so the measured free memory is not all-reduced across ranks.
    for name, size in (
        ("_WORLD", 1),
        ("_TP", sizes["tp"]),
        ("_PP", sizes["pp"]),
        ("_ATTN_TP", sizes["attn_tp"]),
    ):
        if hasattr(ps, name):
            setattr(ps, name, _group(size))
    for name, value in (("_ATTN_DP_SIZE", sizes["attn_dp"]), ("_ATTN_DP_RANK", 0), ("_ATTN_TP_RANK", 0)):
        if hasattr(dpa, name):
            setattr(dpa, name, value)
    if hasattr(dpa, "_ATTN_TP_SIZE"):
        dpa._ATTN_TP_SIZE = sizes["attn_tp"]
    return sizes


def _model_stand_in(model_config: Any, out: dict[str, Any]) -> Any:  # pragma: no cover
    """What ``configure_kv_cache_dtype`` reads of the loaded model: its ``quant_config`` (a checkpoint that
    declares ``kv_cache_quant_algo: FP8`` gets an FP8 KV cache under ``--kv-cache-dtype auto``), built by
    the loader's own ``_get_quantization_config`` from the checkpoint's config (no weights)."""
    import types

    quant_config = None
    if getattr(model_config, "quantization", None) is not None:
        try:
            from sglang.srt.configs.load_config import LoadConfig
            from sglang.srt.model_loader.loader import _get_quantization_config

            quant_config = _get_quantization_config(model_config, LoadConfig())
        except Exception as exc:
            out.setdefault("notes", []).append(
                f"quant_config not built ({type(exc).__name__}: {exc}); kv_cache_dtype auto read as the "
                "model dtype"
            )
    return types.SimpleNamespace(quant_config=quant_config)


def _call(fn: Any, **kwargs: Any) -> Any:  # pragma: no cover
    """``fn`` with the keyword arguments its version accepts (signatures grow between releases)."""
    import inspect

    accepted = inspect.signature(fn).parameters
    return fn(**{k: v for k, v in kwargs.items() if k in accepted})


def _parallel_state(sizes: Mapping[str, int]) -> Any:  # pragma: no cover
    """0.5.19's ``ParallelState`` for rank 0 (``ParallelState.trivial``); later versions have none."""
    try:
        from sglang.srt.distributed.parallel_state_wrapper import ParallelState
    except ImportError:
        return None
    return ParallelState.trivial(
        tp_size=sizes["tp"], pp_size=sizes["pp"], attn_tp_size=sizes["attn_tp"], attn_dp_size=sizes["attn_dp"]
    )


def _sliding_window(model: Any, model_config: Any) -> Any:  # pragma: no cover
    """``load_model_utils.resolve_sliding_window_size`` (0.5.19+): the model class's window when it has
    one (not instantiated here), else the config's; None where the function does not exist."""
    try:
        from sglang.srt.model_executor.model_runner_components.load_model_utils import (
            resolve_sliding_window_size,
        )
    except ImportError:
        return None
    return resolve_sliding_window_size(model, model_config)


def _schedule_page_size(server_args: Any) -> Any:  # pragma: no cover
    """``ModelRunner.__init__``'s ``self.page_size``: ``get_schedule().page_size`` where the release has the
    config bags (0.5.23 model_runner.py:399), else ``server_args.page_size``."""
    try:
        from sglang.srt.runtime_context import get_schedule
    except ImportError:
        return server_args.page_size
    page = getattr(get_schedule(), "page_size", None)
    return page if page is not None else server_args.page_size


def _legacy_sliding_window(model_config: Any) -> Any:  # pragma: no cover
    """``ModelRunner.__init__``'s window before 0.5.19 (0.5.10.post1 model_runner.py:1223-1231) without its
    first branch, the model instance's ``get_attention_sliding_window_size`` (no model is built here): the
    config's window for hybrid-SWA models, else the attention chunk size. GPT-OSS's class would answer
    ``sliding_window - 1``; ``_resolve_hybrid_swa_tokens`` only asserts the window is positive, so the pool
    sizes do not depend on which of the two it gets."""
    if getattr(model_config, "is_hybrid_swa", False) and getattr(model_config, "sliding_window_size", None):
        return model_config.sliding_window_size
    return getattr(model_config, "attention_chunk_size", None)


def _mamba_bytes(mambaish: Any) -> dict[str, Any]:  # pragma: no cover
    params = mambaish.mamba2_cache_params
    conv = sum(_prod(s) for s in params.shape.conv) * params.dtype.conv.itemsize * len(params.layers)
    ssm = _prod(params.shape.temporal) * params.dtype.temporal.itemsize * len(params.layers)
    return {
        "mamba_bytes_per_slot": int(params.mamba_cache_per_req),
        "mamba_conv_bytes_per_slot": int(conv),
        "mamba_ssm_bytes_per_slot": int(ssm),
        "full_attention_layer_ids": [int(i) for i in mambaish.full_attention_layer_ids],
    }


def _prod(shape: Any) -> int:
    out = 1
    for n in shape:
        out *= int(n)
    return out


def _size_mixin(
    server_args: Any, model_config: Any, pre_gb: float, post_gb: float, out: dict[str, Any]
) -> Any:  # pragma: no cover
    """0.5.10.post1 .. 0.5.15.post1: the sizing methods live on ``ModelRunner`` (its KV-cache mixin)."""

    import sglang.srt.model_executor.model_runner as mr
    import sglang.srt.model_executor.model_runner_kv_cache_mixin as mixin
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    dp_attn = bool(server_args.enable_dp_attention)
    _stand_in_parallel(server_args)
    mixin.get_available_gpu_memory = lambda *a, **k: post_gb
    runner = object.__new__(mr.ModelRunner)
    layers = max(model_config.num_hidden_layers, getattr(model_config, "num_attention_layers", 0) or 0)
    # What ModelRunner.__init__ / load_model set for rank 0 of a target worker (model_runner.py).
    runner.__dict__.update(
        server_args=server_args,
        model_config=model_config,
        device="cuda",
        gpu_id=0,
        tp_size=server_args.tp_size,
        mem_fraction_static=server_args.mem_fraction_static,
        dp_size=server_args.dp_size if dp_attn else 1,
        pp_size=server_args.pp_size,
        is_draft_worker=False,
        spec_algorithm=SpeculativeAlgorithm.from_string(server_args.speculative_algorithm),
        is_hybrid_swa=model_config.is_hybrid_swa,
        use_mla_backend=model_config.attention_arch == mr.AttentionArch.MLA,
        dtype=model_config.dtype,
        model=_model_stand_in(model_config, out),
        sliding_window_size=_legacy_sliding_window(model_config),
        start_layer=0,
        end_layer=layers,
        num_effective_layers=layers,
    )
    if hasattr(mr, "_UNSET"):  # 0.5.15.post1's __init__: the linear-attention registry lookup is lazy
        runner._linear_attn_registry_cache = mr._UNSET
    with _CallLog() as calls:
        runner.configure_kv_cache_dtype()
        config = runner._resolve_memory_pool_config(pre_gb)
    mambaish = runner.mambaish_config
    kv_layers = len(mambaish.full_attention_layer_ids) if mambaish is not None else layers
    if hasattr(runner, "get_cell_size_per_token"):
        cell = runner.get_cell_size_per_token(kv_layers)
    else:
        from sglang.srt.model_executor.pool_configurator import create_memory_pool_configurator

        cell = create_memory_pool_configurator(runner)._compute_cell_size(runner, kv_layers)
    out.update(
        kv_bytes_per_token=int(cell),
        kv_cell_bytes_per_token=int(cell),
        kv_cache_dtype=str(runner.kv_cache_dtype).replace("torch.", ""),
        max_total_num_tokens=int(config.max_total_num_tokens),
        max_running_requests=int(config.max_running_requests),
        max_mamba_cache_size=int(server_args.max_mamba_cache_size) if mambaish is not None else None,
    )
    if mambaish is not None:
        out.update(_mamba_bytes(mambaish), mamba_ratio=int(runner._calculate_mamba_ratio()))
    out["functions"] = calls.functions()
    return config


def _resolved(final: Mapping[str, Any], model_config: Any) -> dict[str, Any]:  # pragma: no cover
    """The memory-relevant effective values (``final`` is the resolution layer's reading of them)."""
    names = (
        "tp_size",
        "dp_size",
        "enable_dp_attention",
        "mem_fraction_static",
        "chunked_prefill_size",
        "cuda_graph_max_bs",
        "max_running_requests",
        "max_total_tokens",
        "page_size",
        "kv_cache_dtype",
        "speculative_algorithm",
        "speculative_num_steps",
        "speculative_eagle_topk",
        "speculative_num_draft_tokens",
        "mamba_scheduler_strategy",
        "mamba_radix_cache_strategy",
        "mamba_ssm_dtype",
        "mamba_full_memory_ratio",
        "max_mamba_cache_size",
        "disable_radix_cache",
        "disable_overlap_schedule",
        "disable_cuda_graph",
        "context_length",
    )
    out: dict[str, Any] = {}
    for name in names:
        if name not in final:
            continue
        value = final[name]
        out[name] = value if value is None or isinstance(value, (bool, int, float, str)) else str(value)
    out["context_len"] = int(model_config.context_len)
    return out


def _size_launch(request: Mapping[str, Any], argv: list[str]) -> dict[str, Any]:  # pragma: no cover
    """Resolve ``argv`` and size its pools; the framework's own raise is an answer too (``error``)."""
    out: dict[str, Any] = {"pre_load_gb": request["pre_load_gb"], "post_load_gb": request["post_load_gb"]}
    try:
        server_args, final = _resolved_server_args(request["record_py"], argv)
        from sglang.srt.configs.model_config import ModelConfig

        model_config = ModelConfig.from_server_args(server_args)
        out["resolved"] = _resolved(final, model_config)
        out["mem_fraction_static"] = out["resolved"].get("mem_fraction_static")
        import importlib.util

        if importlib.util.find_spec("sglang.srt.mem_cache.kv_cache_configurator") is not None:
            _size_configurator(
                server_args, model_config, request["pre_load_gb"], request["post_load_gb"], out
            )
        else:
            _size_mixin(server_args, model_config, request["pre_load_gb"], request["post_load_gb"], out)
    except BaseException as exc:  # SystemExit too: argparse refusing a flag
        import traceback

        frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/sglang/" in f.filename]
        out["error"] = f"{type(exc).__name__}: {exc}"[:2000]
        out["error_at"] = f"{_rel(frames[-1].filename)}:{frames[-1].lineno}" if frames else None
        traceback.print_exc()
    return out


def _drop_own_directory() -> None:  # pragma: no cover - runs inside the resolver environment
    """This file sits beside argtrace's own sglang.py: drop its directory so ``import sglang`` is SGLang."""
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if p and str(Path(p).resolve()) != here]


def host_imports(*standins: str) -> None:  # pragma: no cover - runs inside the resolver environment
    """The import step every run of this file takes first, for a host to take once (resolver/hosts.py):
    the stand-ins, then SGLang's argument module (``_resolved_server_args`` imports it first)."""
    _drop_own_directory()
    _install_standins(standins)
    import sglang.srt.server_args  # noqa: F401


def main(argv: Sequence[str]) -> int:  # pragma: no cover - runs inside the resolver environment
    request = json.loads(Path(argv[0]).read_text())
    _drop_own_directory()
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # the framework prints; our one JSON line goes to the real stdout
    logs: list[str] = []
    import logging

    class _Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.INFO and "/sglang/srt/" in record.pathname:
                logs.append(f"{_rel(record.pathname)}:{record.lineno}: {record.getMessage()}"[:500])

    standins: list[str] = []
    try:
        standins = _install_standins(request["standins"])
    except Exception as exc:  # reported; the sizing below then fails with its own error
        logs.append(f"stand-ins not installed: {exc}")
    logging.getLogger().addHandler(_Keep())
    out = _size_launch(request, list(request["argv"]))
    out["standins"] = standins
    out["logs"] = logs[-20:]
    variants = []
    for words in request.get("variants") or ():
        one = _size_launch(request, list(words))
        variants.append(
            {k: v for k, v in one.items() if k not in ("functions", "pre_load_gb", "post_load_gb")}
        )
    out["variants"] = variants
    try:
        import importlib.metadata as md

        out["version"] = md.version("sglang")
    except Exception:
        pass
    sys.stdout = real_stdout
    print(json.dumps(out, default=str))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _size_configurator(
    server_args: Any, model_config: Any, pre_gb: float, post_gb: float, out: dict[str, Any]
) -> Any:  # pragma: no cover
    """0.5.19 and later: ``KVCacheConfigurator`` (``mem_cache/kv_cache_configurator.py``) reads the published
    config bags (``get_schedule()`` ...) and the parallel context; the runner builds it."""

    import sglang.srt.mem_cache.kv_cache_configurator as kvc_module
    import sglang.srt.model_executor.model_runner as mr
    from sglang.srt.model_executor.model_runner_components.layer_setup import resolve_layer_indices
    from sglang.srt.runtime_context import get_context, get_parallel, get_spec
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    get_context().set_server_args(server_args)  # what the scheduler process publishes before the runner
    sizes = _stand_in_parallel(server_args)
    parallel = get_parallel()
    if hasattr(parallel, "override_permanently"):  # 0.5.23: groups live in the context, not the globals
        parallel.override_permanently(world_group=_group(1), pp_group=_group(sizes["pp"]))
    kvc_module.get_available_gpu_memory = lambda *a, **k: post_gb
    runner = object.__new__(mr.ModelRunner)
    model = _model_stand_in(model_config, out)
    runner.__dict__.update(
        server_args=server_args,
        model_config=model_config,
        device="cuda",
        gpu_id=0,
        is_draft_worker=False,
        draft_model_idx=None,
        draft_attention_backend=None,
        spec_algorithm=SpeculativeAlgorithm.from_string(get_spec().speculative_algorithm),
        # model_runner.py:399 (0.5.23) reads the resolved schedule bag, where ServerArgs may still say None
        page_size=_schedule_page_size(server_args),
        is_hybrid_swa=model_config.is_hybrid_swa,
        is_hybrid_swa_compress=getattr(model_config, "is_hybrid_swa_compress", False),
        use_mla_backend=model_config.attention_arch == mr.AttentionArch.MLA,
        dtype=model_config.dtype,
        model=model,
        sliding_window_size=_sliding_window(model, model_config),
        pp_group=parallel.pp_group,
        ps=_parallel_state(sizes),
        forward_stream=None,
        req_to_token_pool=None,
        token_to_kv_pool_allocator=None,
        memory_pool_config=None,
    )
    with _CallLog() as calls:
        runner.init_spec_aux_hidden_state()
        runner.layer_info = _call(
            resolve_layer_indices,
            model=model,
            model_config=model_config,
            is_draft_worker=False,
            draft_model_idx=None,
            spec_algorithm=runner.spec_algorithm,
        )
        runner.configure_kv_cache_dtype()
        runner.init_kv_cache_configurator()
        configurator = runner.kv_cache_configurator
        config = configurator._resolve_memory_pool_config(pre_gb)
    from sglang.srt.model_executor.pool_configurator import create_memory_pool_configurator
    from sglang.srt.runtime_context import get_schedule

    mambaish = configurator.mambaish_config
    layers = runner.layer_info.num_effective_layers
    kv_layers = len(mambaish.full_attention_layer_ids) if mambaish is not None else layers
    pools = create_memory_pool_configurator(configurator)
    cell = pools._compute_cell_size(configurator, kv_layers) if hasattr(pools, "_compute_cell_size") else 0
    out.update(
        kv_bytes_per_token=int(cell),
        kv_cell_bytes_per_token=int(getattr(pools, "_cell_size", cell)),
        kv_cache_dtype=str(runner.kv_cache_dtype).replace("torch.", ""),
        max_total_num_tokens=int(config.max_total_num_tokens),
        max_running_requests=int(config.max_running_requests),
        max_mamba_cache_size=int(get_schedule().max_mamba_cache_size) if mambaish is not None else None,
        mem_fraction_static=float(get_schedule().mem_fraction_static),
    )
    if mambaish is not None:
        out.update(_mamba_bytes(mambaish), mamba_ratio=int(configurator._calculate_mamba_ratio()))
    out["functions"] = calls.functions()
    return config


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
