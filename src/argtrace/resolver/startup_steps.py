"""The start-up steps a real server runs after resolving its arguments and before it touches a GPU, run by
the recorder in the resolver interpreter (stdlib only at module top; imported by ``record.py`` by name,
since that script runs by path with this directory first on ``sys.path``).

Each step is the framework's own code, called the way its launcher calls it:

- SGLang ``check_server_args()``: 0.5.10.post1 ``ServerArgs.check_server_args`` (srt/server_args.py:6063),
  called by ``Engine._launch_subprocesses`` (srt/entrypoints/engine.py:642) right after
  ``_set_envs_and_config``; from 0.5.19 the method delegates to ``arg_groups/validation_hook.py``
  ``check_server_args`` (0.5.23: srt/server_args.py:508, called at srt/entrypoints/engine.py:1165, after
  ``resolve_once``).
- SGLang model config: ``ModelConfig.from_server_args(server_args)``, what the scheduler builds
  (0.5.10.post1 srt/managers/scheduler.py:438) from the local ``config.json``: context length,
  ``json_model_override_args``, architectures, quantization checks against the (fake) device.
- SGLang ``_set_envs_and_config(server_args)`` (0.5.10.post1 srt/entrypoints/engine.py, called just before
  ``check_server_args``): the environment the launcher sets for its children (NCCL, CUDA, CuTe DSL variables),
  the ulimit and the SIGQUIT handler. It runs with ``SGLANG_SKIP_SGL_KERNEL_VERSION_CHECK=1`` because its
  version asserts check the GPU kernel packages (sglang-kernel, flashinfer_python) that the resolver
  environment only stubs; the step's detail says so and names the variables it set.
- SGLang ``resolve_auto_parsers(server_args)`` (0.5.23 srt/parser/template_detection.py:931, called at
  srt/entrypoints/engine.py:1169 after ``check_server_args``): architecture parser defaults and
  ``--reasoning-parser/--tool-call-parser auto``. ``auto`` loads the tokenizer, so it runs only when the model
  directory holds the tokenizer files (offline: the resolver sets ``HF_HUB_OFFLINE``).
- SGLang EAGLE3 without a draft of its own (step ``eagle3_draft``, only for such launches): the draft
  ModelConfig the draft worker builds from the target's checkpoint and the release's model registry's class
  for it: whether it defines the ``set_embed`` the EAGLE3 worker calls on it.
- vLLM: ``validate_parsed_serve_args(args)`` (0.33.0 vllm/entrypoints/common/cli_args.py:531), what
  ``vllm serve`` runs right after parsing (vllm/entrypoints/cli/main.py:114 ``cmd.validate(args)``), and
  ``validate_api_server_args(args)`` (0.33.0 cli_args.py:615, from ``setup_server`` in
  vllm/entrypoints/launchers/launcher.py:370): tool/reasoning parser names. Then ``create_engine_config``
  builds the model config from ``config.json`` and checks it against the parallel config.

``out["steps"]`` is a list of ``{"name", "status", "reason", "called_at", "detail"}``; status is one of
``pending`` (while running), ``ran``, ``raised``, ``crashed``, ``skipped`` (with the reason) or
``not_reached`` (an earlier step raised).
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# (name, where the real launcher calls it: a module path and the text of the call, found in the installed
# source at run time so the line is that release's; reason when argtrace never runs the step)
Step = tuple[str, str | None, str | None, str | None]

# the variable that turns off the GPU kernel package version asserts inside _set_envs_and_config
KERNEL_CHECK_SWITCH = "SGLANG_SKIP_SGL_KERNEL_VERSION_CHECK"
SET_ENVS_NOTE = (
    f"run with {KERNEL_CHECK_SWITCH}=1: its version asserts check GPU kernel packages (sglang-kernel, "
    "flashinfer_python) that the resolver environment only stubs"
)
# What the launcher runs after the arguments are resolved, the same in both SGLang shapes.
_AFTER_RESOLVING: list[Step] = [
    ("set_envs_and_config", "sglang/srt/entrypoints/engine.py", "_set_envs_and_config(server_args)", None),
    ("check_server_args", "sglang/srt/entrypoints/engine.py", "server_args.check_server_args()", None),
    ("resolve_auto_parsers", "sglang/srt/entrypoints/engine.py", "resolve_auto_parsers(server_args)", None),
    (
        "model_config",
        "sglang/srt/managers/scheduler.py",
        "ModelConfig.from_server_args(self.server_args)",
        None,
    ),
]
SGLANG_STEPS: dict[str, list[Step]] = {
    "post_init": [
        ("post_init", "sglang/srt/server_args.py", "ServerArgs.from_cli_args(raw_args)", None),
        *_AFTER_RESOLVING,
    ],
    "pipeline": [
        ("resolve_once", "sglang/srt/entrypoints/engine.py", "server_args.resolve_once()", None),
        *_AFTER_RESOLVING,
    ],
}
VLLM_STEPS: list[Step] = [
    ("parse", "vllm/engine/arg_utils.py", "def from_cli_args(", None),
    ("validate_parsed_serve_args", "vllm/entrypoints/cli/main.py", ".validate(args)", None),
    (
        "validate_api_server_args",
        "vllm/entrypoints/launchers/launcher.py",
        "validate_api_server_args(args)",
        None,
    ),
    ("create_engine_config", "vllm/engine/arg_utils.py", "def create_engine_config(", None),
]
# exceptions that are the framework refusing the configuration (a finding), not the resolver failing
VALIDATION = ("ValueError", "AssertionError", "ValidationError", "NotImplementedError")
# vLLM's serve-argument checks refuse with these too ("Error: --enable-auto-tool-choice requires
# --tool-call-parser" is a TypeError, an unknown parser name a KeyError): inside those steps they are verdicts
SERVE_CHECK_REFUSALS = ("TypeError", "KeyError")
# where each vLLM release keeps the serve-argument checks (0.33.0 moved them to entrypoints/common)
VLLM_CHECK_MODULES = ("vllm.entrypoints.common.cli_args", "vllm.entrypoints.openai.cli_args")
VLLM_API_CHECK_MODULES = (*VLLM_CHECK_MODULES, "vllm.entrypoints.openai.api_server")


def called_at(relative: str | None, needle: str | None) -> str | None:
    """``file:line`` of the first line of the installed ``relative`` source holding ``needle``."""
    if not relative or not needle:
        return None
    for entry in sys.path:
        path = os.path.join(entry, relative) if entry else ""
        if path and os.path.isfile(path):
            try:
                with open(path, encoding="utf-8") as fh:
                    for number, text in enumerate(fh, 1):
                        if needle in text:
                            return f"{relative}:{number}"
            except OSError:
                return None
            return None
    return None


def plan(out: dict[str, Any], steps: list[Step]) -> None:
    out["steps"] = [
        {
            "name": name,
            "status": "skipped" if reason else "pending",
            "reason": reason,
            "called_at": called_at(relative, needle),
        }
        for name, relative, needle, reason in steps
    ]


def _step(out: dict[str, Any], name: str) -> dict[str, Any]:
    for step in out.get("steps") or []:
        if step["name"] == name:
            return step
    step = {"name": name, "status": "pending", "reason": None, "called_at": None}
    out.setdefault("steps", []).append(step)
    return step


def skip(out: dict[str, Any], name: str, reason: str) -> None:
    step = _step(out, name)
    step["status"], step["reason"] = "skipped", reason


def run_step(out: dict[str, Any], name: str, recorder: Any, call: Any, refusals: tuple[str, ...] = ()) -> Any:
    """Run ``call()`` under the recorder. A validation error propagates (the launch dies there, as the real
    server would; ``finish_steps`` marks this step ``raised``); any other exception is the resolver's
    limit, not the framework's verdict: the step is ``crashed`` with the reason and resolution goes on.
    ``refusals`` names further exception types that are this step's verdicts; ``out["refused"]`` tells the
    recorder's caller so."""
    step = _step(out, name)
    started = time.perf_counter()
    recorder.active = True
    recorder.step = name
    try:
        result = call()
    except BaseException as exc:
        if type(exc).__name__ in VALIDATION or isinstance(exc, (ValueError, AssertionError)):
            raise
        if type(exc).__name__ in refusals:
            out["refused"] = name
            raise
        frames = traceback.extract_tb(exc.__traceback__)
        last = frames[-1] if frames else None
        step["status"] = "crashed"
        step["reason"] = f"{type(exc).__name__}: {exc}"[:500]
        step["at"] = f"{_rel(last.filename)}:{last.lineno}" if last else None
        return None
    finally:
        recorder.active = False
        recorder.step = None
        step["seconds"] = round(time.perf_counter() - started, 3)
    step["status"] = "ran"
    return result


def _rel(path: str) -> str:
    for marker in ("site-packages/", "dist-packages/"):
        idx = path.rfind(marker)
        if idx >= 0:
            return path[idx + len(marker) :]
    return path


def _model_dir_reason(model_path: Any, trust_remote_code: bool) -> str | None:
    """Why the model config cannot be built from the local files alone (None when it can)."""
    path = str(model_path or "")
    config = os.path.join(path, "config.json")
    if not os.path.isfile(config):
        return f"no local config.json at {path!r} (pass --model-config DIR)"
    try:
        with open(config, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        return f"config.json unreadable: {exc}"
    auto_map = isinstance(data, dict) and data.get("auto_map")
    if trust_remote_code and auto_map:
        # the custom config class is Python code next to the weights (or on the Hub): never run here
        return "the model's config class is remote code (auto_map with --trust-remote-code)"
    return None


TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json")


def sglang_set_envs(server_args: Any, recorder: Any, out: dict[str, Any]) -> None:
    """The launcher's ``_set_envs_and_config``: what it sets for the children is recorded; only the writes
    that replace a value the process already had become ``env_writes`` (a fresh variable such as the per-run
    ``SGLANG_RUN_ID`` is named in the step's detail, so the same launch always reports the same)."""
    try:
        from sglang.srt.entrypoints.engine import _set_envs_and_config
    except Exception as exc:  # an import the stubs do not cover: the resolver's limit
        skip(out, "set_envs_and_config", f"sglang.srt.entrypoints.engine does not import: {exc}"[:500])
        return
    before = len(recorder.env_writes)
    had_switch = KERNEL_CHECK_SWITCH in os.environ
    saved = os.environ.get(KERNEL_CHECK_SWITCH)
    recorder.active = False  # the switch is argtrace's, not the launcher's: never a recorded write
    os.environ[KERNEL_CHECK_SWITCH] = "1"
    try:
        run_step(out, "set_envs_and_config", recorder, lambda: _set_envs_and_config(server_args))
    finally:
        if had_switch:
            os.environ[KERNEL_CHECK_SWITCH] = saved or ""
        else:
            os.environ.pop(KERNEL_CHECK_SWITCH, None)
    fresh = recorder.env_writes[before:]
    recorder.env_writes[before:] = [w for w in fresh if w.get("old") is not None]
    step = _step(out, "set_envs_and_config")
    if step["status"] == "ran":
        step["detail"] = {
            "note": SET_ENVS_NOTE,
            "sets": sorted({str(w["name"]) for w in fresh if w.get("old") is None}),
        }


def _tokenizer_reason(server_args: Any) -> str | None:
    """Why ``auto`` parser detection cannot run here (None when it can): it loads the tokenizer."""
    wanted = [a for a in ("reasoning_parser", "tool_call_parser") if getattr(server_args, a, None) == "auto"]
    if not wanted:
        return None
    path = str(getattr(server_args, "tokenizer_path", None) or getattr(server_args, "model_path", "") or "")
    if not any(os.path.isfile(os.path.join(path, name)) for name in TOKENIZER_FILES):
        names = ", ".join("--" + a.replace("_", "-") for a in wanted)
        return f"{names} auto loads the tokenizer, and {path!r} holds no tokenizer files here"
    return None


def sglang_auto_parsers(server_args: Any, recorder: Any, out: dict[str, Any]) -> None:
    try:
        from sglang.srt.parser.template_detection import resolve_auto_parsers
    except Exception:
        skip(out, "resolve_auto_parsers", "this release has no parser auto-detection")
        return
    reason = _tokenizer_reason(server_args)
    if reason:
        skip(out, "resolve_auto_parsers", reason)
        return
    run_step(out, "resolve_auto_parsers", recorder, lambda: resolve_auto_parsers(server_args))


def sglang_startup(
    server_args: Any, recorder: Any, out: dict[str, Any], pipeline: bool, log_args: Any = None
) -> None:
    """_set_envs_and_config, check_server_args, the parser auto-detection, the ``server_args=`` log line
    (``log_args``), then the scheduler's ModelConfig, in the launcher's order."""
    sglang_set_envs(server_args, recorder, out)
    if hasattr(server_args, "check_server_args"):
        run_step(out, "check_server_args", recorder, server_args.check_server_args)
    else:
        skip(out, "check_server_args", "this release has no ServerArgs.check_server_args")
    sglang_auto_parsers(server_args, recorder, out)
    if log_args is not None:
        log_args()
    reason = _model_dir_reason(
        getattr(server_args, "model_path", None), bool(getattr(server_args, "trust_remote_code", False))
    )
    if reason:
        skip(out, "model_config", reason)
        return
    try:
        from sglang.srt.configs.model_config import ModelConfig
    except Exception as exc:  # an import the stubs do not cover: the resolver's limit
        skip(out, "model_config", f"sglang.srt.configs.model_config does not import: {exc}"[:500])
        return
    config = run_step(out, "model_config", recorder, lambda: ModelConfig.from_server_args(server_args))
    if config is not None:
        _step(out, "model_config")["detail"] = sglang_model_summary(config)
        sglang_eagle3_draft(server_args, recorder, out, ModelConfig)


# Where SGLang's EAGLE3 workers hand the target's embedding to the draft model (EAGLEWorker.__init__ in
# 0.5.10.post1 srt/speculative/eagle_worker.py:169, EAGLEWorkerV2.init_lm_head in 0.5.23
# eagle_worker_v2.py:363): the draft class must define the method, or the server dies there after loading
# the weights.
EAGLE3_CALLS = (
    ("sglang/srt/speculative/eagle_worker.py", "model.set_embed(embed)"),
    ("sglang/srt/speculative/eagle_worker_v2.py", "model.set_embed(embed)"),
)


def _resolved(server_args: Any, name: str) -> Any:
    """The effective value: 0.5.19+ keep the raw input sealed and give the resolution's through
    ``resolved_dict()``; older releases wrote it into the field."""
    getter = getattr(server_args, "resolved_dict", None)
    if callable(getter):
        try:
            values = getter()
            if isinstance(values, dict) and name in values:
                return values[name]
        except Exception:
            pass
    return getattr(server_args, name, None)


def sglang_eagle3_draft(server_args: Any, recorder: Any, out: dict[str, Any], model_config: Any) -> None:
    """EAGLE3 with no draft of its own (``speculative_draft_model_path`` None or the target's after
    resolution): the draft worker builds its model from the target's checkpoint (``TpModelWorker`` with
    ``is_draft_worker``: ``ModelConfig.from_server_args(..., model_path=speculative_draft_model_path,
    is_draft_model=True)``), then calls ``set_embed`` on it (``set_embed_and_head`` when the class sets
    ``load_lm_head_from_target``). This step builds that draft ModelConfig and asks the release's own model
    registry (``ModelRegistry.resolve_model_cls``) which class that is and whether it defines the method. It
    runs only for such launches (importing every model module takes 10-20 s)."""
    if str(_resolved(server_args, "speculative_algorithm") or "").upper() != "EAGLE3":
        return
    draft = _resolved(server_args, "speculative_draft_model_path")
    target = _resolved(server_args, "model_path")
    if draft not in (None, "", target):
        skip(
            out,
            "eagle3_draft",
            "a draft model is given (--speculative-draft-model-path); it is not read here",
        )
        return
    try:
        from sglang.srt.models.registry import ModelRegistry
    except Exception as exc:  # an import the stubs do not cover: the resolver's limit
        skip(out, "eagle3_draft", f"sglang.srt.models.registry does not import: {exc}"[:500])
        return

    def inspect_draft() -> dict[str, Any]:
        import inspect

        config = model_config.from_server_args(server_args, model_path=draft or target, is_draft_model=True)
        architectures = list(getattr(config.hf_config, "architectures", None) or [])
        cls, arch = ModelRegistry.resolve_model_cls(architectures)
        needed = "set_embed_and_head" if getattr(cls, "load_lm_head_from_target", False) else "set_embed"
        try:
            defined_in: str | None = _rel(inspect.getsourcefile(cls) or "")
        except TypeError:
            defined_in = None
        return {
            "draft_model_path": "the target's" if draft in (None, "", target) else draft,
            "architecture": arch,
            "class": f"{cls.__module__}.{cls.__qualname__}",
            "defined_in": defined_in,
            "calls": needed,
            "defines": callable(getattr(cls, needed, None)),
            "called_at": [c for c in (called_at(rel, needle) for rel, needle in EAGLE3_CALLS) if c],
        }

    detail = run_step(out, "eagle3_draft", recorder, inspect_draft)
    if detail is not None:
        _step(out, "eagle3_draft")["detail"] = detail


def sglang_model_summary(config: Any) -> dict[str, Any]:
    """What the scheduler's ModelConfig derived from config.json and the arguments."""
    hf = getattr(config, "hf_config", None)
    summary: dict[str, Any] = {
        "context_len": getattr(config, "context_len", None),
        "architectures": list(getattr(hf, "architectures", None) or []),
        "num_hidden_layers": getattr(config, "num_hidden_layers", None),
    }
    arch = getattr(config, "attention_arch", None)
    summary["attention_arch"] = getattr(arch, "name", None) or (str(arch) if arch is not None else None)
    dtype = getattr(config, "dtype", None)
    summary["dtype"] = str(dtype) if dtype is not None else None
    override = getattr(config, "model_override_args", None)
    if override:
        summary["model_override_args"] = override if isinstance(override, (dict, str)) else repr(override)
    plain = (str, int, float, bool, list, dict, type(None))
    return {k: v for k, v in summary.items() if isinstance(v, plain)}


def _first_attr(modules: tuple[str, ...], name: str) -> Any:
    import importlib

    for module in modules:
        try:
            found = getattr(importlib.import_module(module), name, None)
        except Exception:
            continue
        if found is not None:
            return found
    return None


def vllm_serve_checks(ns: Any, recorder: Any, out: dict[str, Any]) -> None:
    """What ``vllm serve`` checks between parsing and building the engine config, in its order."""
    validate = _first_attr(VLLM_CHECK_MODULES, "validate_parsed_serve_args")
    if validate is None:
        skip(out, "validate_parsed_serve_args", "this release has no validate_parsed_serve_args")
    else:
        run_step(out, "validate_parsed_serve_args", recorder, lambda: validate(ns), SERVE_CHECK_REFUSALS)
    plugins = [
        flag
        for flag, attr in (
            ("--tool-parser-plugin", "tool_parser_plugin"),
            ("--reasoning-parser-plugin", "reasoning_parser_plugin"),
        )
        if getattr(ns, attr, None)
    ]
    if plugins:
        # the launcher imports the plugin file first (init_parser_plugin): argtrace never runs user code
        skip(
            out,
            "validate_api_server_args",
            f"{', '.join(plugins)} names a plugin file the server imports first",
        )
        return
    api_check = _first_attr(VLLM_API_CHECK_MODULES, "validate_api_server_args")
    if api_check is None:
        skip(out, "validate_api_server_args", "this release has no validate_api_server_args")
        return
    run_step(out, "validate_api_server_args", recorder, lambda: api_check(ns), SERVE_CHECK_REFUSALS)
