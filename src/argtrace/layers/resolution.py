"""The resolution layer: the framework's own post-parse code, run under a recorder, in a subprocess.

Entry point: :func:`resolve_server`. It runs ``argtrace/resolver/record.py`` in the target interpreter (a
resolver environment, or ``--python``) with the stubs on ``PYTHONPATH``, the fake GPU of ``--gpu`` and the
server's predicted environment, on the server's argv with the model path pointed at a local config, and turns
the recording into observations of layer ``resolution`` (``by`` = the function, ``at`` = file:line relative
to site-packages, ``detail`` = ``{"old": ...}``), the ``resolution`` section and RS findings.

Never imitates the framework: without a resolver, nothing here produces a value.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from argtrace import localfs
from argtrace.frameworks.argv import UNKNOWN_PREFIX
from argtrace.model import Evidence, LayerResult, Observation, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_TIMEOUT = 240.0  # seconds; ARGTRACE_RESOLVE_TIMEOUT overrides it


def default_timeout() -> float:
    """Read when a run starts, not at import: a warm process imports this module under another
    environment than the command's (argtrace/warm/)."""
    return float(os.environ.get("ARGTRACE_RESOLVE_TIMEOUT") or DEFAULT_TIMEOUT)


RECORDER = Path(__file__).resolve().parent.parent / "resolver" / "record.py"
MODEL_FLAGS = {"sglang": ("--model-path", "--model"), "vllm": ("--model",)}
PARALLEL_DESTS = {
    "tp": ("tp_size", "tensor_parallel_size"),
    "dp": ("dp_size", "data_parallel_size"),
    "pp": ("pp_size", "pipeline_parallel_size"),
}
# What to do about a raise, by the function that raises and words of its message (framework knowledge, kept
# to a few known sites; everything else gets the framework's own message and the settings its condition
# reads). A function raises for several reasons: SGLang's ``_handle_mamba_radix_cache`` refuses speculative
# decoding with the radix cache under no_buffer (the seed's error: extra_buffer or --disable-radix-cache
# avoid it) but also extra_buffer *with* --disable-radix-cache (0.5.10.post1-0.5.13.post1, sglang PR#19169:
# the fix is the opposite) and FlashInfer's GDN decode under no_buffer, so a hint names the raise it is for.
FIX_HINTS: tuple[tuple[str, str, str], ...] = (
    (
        "_handle_mamba_radix_cache",
        "is not compatible with radix cache when using",
        "pass --mamba-scheduler-strategy extra_buffer (keeps the radix cache; doubles the Mamba state "
        "cache per request, so fewer requests fit; with SGLANG_ENABLE_SPEC_V2=1) or --disable-radix-cache "
        "(no prefix reuse between requests: every prompt is prefilled in full)",
    ),
)


def fix_hint(function: str, message: str) -> str | None:
    """The hint for the raise of ``function`` (qualified or not) whose message is ``message``, if any."""
    name = function.rsplit(".", 1)[-1]
    return next((hint for func, words, hint in FIX_HINTS if func == name and words in message), None)


@dataclass(frozen=True)
class ResolverTarget:
    """Where to run: an interpreter and, for a resolver environment, its manifest label."""

    python: str
    label: str  # "resolver-env sglang==0.5.10.post1" or "--python /opt/venv/bin/python"
    env_path: str | None = None


def find_target(
    framework: str, version: str | None, python: str | None, detected: str | None = None
) -> ResolverTarget | None:
    """``--python`` (the user's explicit choice), else argtrace's own resolver environment of the version.

    The interpreter the script names (``detected``) is never a target: running the framework's code in
    it would run whatever the script controls (a wrapper posing as ``python3``, its ``sitecustomize``).
    ``detected`` is kept in the signature for callers; it is not used."""
    del detected
    if python:
        return ResolverTarget(python=python, label=f"--python {python}")
    from argtrace.resolver import environments

    manifest = environments.find_environment(framework, version) if version else None
    if manifest is not None:
        return ResolverTarget(
            python=str(environments.env_python(Path(manifest.path))),
            label=f"resolver-env {framework}=={manifest.version}",
            env_path=manifest.path,
        )
    return None


def local_model_dir(model_config: str | os.PathLike[str] | None, model_value: str | None) -> Path | None:
    """``--model-config DIR|config.json``, else the model path when it is a local directory with a
    config.json, else the Hugging Face cache snapshot of a repo id (offline)."""
    from argtrace.remote.host import current_host

    if current_host().is_remote:  # argtrace --host: a local copy of the node's config.json
        from argtrace.remote.models import node_model_dir

        return node_model_dir(current_host(), str(model_config) if model_config else None, model_value)
    if model_config:
        p = Path(model_config)
        if localfs.is_file(p):  # any text, even a component too long for the file system: never raises
            return p.parent
        if localfs.is_file(p / "config.json"):
            return p
        return None
    if model_value:
        p = Path(model_value)
        if localfs.is_file(p / "config.json"):
            return p
        from argtrace.layers.hf_cache import hf_snapshot

        snap = hf_snapshot(model_value)
        if snap is not None:
            return snap
    return None


def server_argv(server: ServerCommand, framework: str) -> tuple[list[str] | None, str | None]:
    """The words the framework's parser receives, with ``sglang serve``'s own argv rewrites applied (the
    recorder calls ``prepare_server_args`` directly). ``(None, reason)`` when a word is unknown."""
    words = [w.text for w in server.server_args]
    if any(w is None for w in words):
        return None, "an argv word cannot be known statically"
    argv = [w for w in words if w is not None]
    if server.entrypoint == "sglang_router.launch_server":
        from argtrace.frameworks.sglang_router import split_router

        argv = [argv[i] for i in split_router(argv).server]  # the router's own flags are not ServerArgs'
    if server.entrypoint in ("dynamo.sglang", "dynamo.vllm"):
        from argtrace.frameworks.dynamo import split_dynamo

        argv = [argv[i] for i in split_dynamo(server.entrypoint, argv, server.image).engine]  # Dynamo's
    if (server.entrypoint or "").startswith("vllm bench "):
        return (
            None,
            "vllm bench's own flags (--input-len, --num-prompts...) are not those of `vllm serve`, whose "
            "parser the resolver runs",
        )
    if server.entrypoint == "huggingfaceserver":
        # KServe's parser (its options and vLLM's) calls parse_known_args; the resolver runs vLLM's own
        return None, "KServe's huggingfaceserver parses vLLM's options with its own parser (parse_known_args)"
    if server.entrypoint == "trl vllm-serve":
        from argtrace.frameworks.trl_vllm_serve import resolver_argv

        return resolver_argv(argv, _trl_config(argv, server))
    if server.entrypoint == "sglang serve":
        if "--model-type" in argv:
            i = argv.index("--model-type")
            del argv[i : i + 2]
        argv = [a for a in argv if not a.startswith("--model-type=")]
        if argv and not argv[0].startswith("-"):
            argv = ["--model-path", argv[0], *argv[1:]]
    return argv, None


def _trl_config(argv: Sequence[str], server: ServerCommand) -> Any:
    """The ``--config`` YAML ``trl vllm-serve`` reads (TrlParser), as loaded; ``None`` when absent here."""
    if "--config" not in argv or argv.index("--config") + 1 >= len(argv):
        return None
    import yaml

    from argtrace.frameworks.config_files import config_file

    path = config_file(argv[argv.index("--config") + 1], server)
    if path is None:
        return None
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None


def model_value(argv: Sequence[str], framework: str) -> tuple[str | None, int | None]:
    """The model path word and its index in argv."""
    if framework == "vllm" and argv and not argv[0].startswith("-"):
        return argv[0], 0
    for i, word in enumerate(argv):
        for flag in MODEL_FLAGS[framework]:
            if word == flag and i + 1 < len(argv):
                return argv[i + 1], i + 1
            if word.startswith(flag + "="):
                return word.split("=", 1)[1], i
    return None, None


def positional_model(
    server: ServerCommand, parser_result: LayerResult | None
) -> tuple[str | None, int | None]:
    """vLLM's positional model (``model_tag``) where the parser found it among the server's words: argparse
    takes it wherever it stands between the options (``vllm serve --tensor_parallel_size 2 /models/x``,
    vllm#13061), which :func:`model_value` cannot tell from an option's value without the schema."""
    entry = parser_result.observations.get("model_tag") if parser_result is not None else None
    if not entry or not entry[1]:
        return None, None
    seen = entry[1][-1]
    if not isinstance(seen.value, str):
        return None, None
    for i, word in enumerate(server.server_args):
        if word.text == seen.value and word.origin.at == seen.at:
            return seen.value, i
    return None, None


def node_gpus(parsed: Mapping[str, Any], framework: str | None = None) -> tuple[int, str]:
    """The GPUs one node of the launch needs and how they follow from the sizes.

    The rule is the node-start and process layers' (SGLang's DP attention runs inside the TP group and adds
    no GPUs; ``--nnodes`` divides): sglang#9896's ``--tp-size 8 --dp-size 8 --enable-dp-attention`` needs
    8, not 64. The plain product of the sizes only when one is unknown."""
    from argtrace.layers.nodescope import gpus_needed

    if framework is None:
        framework = "sglang" if any(k in parsed for k in ("tp_size", "dp_size", "pp_size")) else "vllm"
    values = dict(parsed)
    if framework == "sglang":
        # SGLang releases up to 0.4.x name the dests tensor_parallel_size/data_parallel_size/...
        for long, short in (("tensor", "tp"), ("data", "dp"), ("pipeline", "pp")):
            if f"{long}_parallel_size" in values:
                values.setdefault(f"{short}_size", values[f"{long}_parallel_size"])
    # the parser layer observes only the sizes the launch writes; both frameworks default them to 1
    for name in (
        ("tp_size", "pp_size")
        if framework == "sglang"
        else ("tensor_parallel_size", "pipeline_parallel_size")
    ):
        values.setdefault(name, 1)
    counted = gpus_needed(framework, values)
    if counted is not None:
        return counted
    need = 1
    for dests in PARALLEL_DESTS.values():
        for dest in dests:
            value = parsed.get(dest)
            if isinstance(value, int) and value > 0:
                need *= value
                break
    return need, "tp x dp x pp"


def gpu_selection(
    spec: str | None, parsed: Mapping[str, Any], framework: str | None = None
) -> tuple[Any, bool, int]:
    """(GpuSelection, assumed, needed GPUs): ``--gpu`` or h100 x as many as one node needs (node_gpus)."""
    from argtrace.gpus import GpuSelection, count_given, parse_gpu_spec

    need, _how = node_gpus(parsed, framework)
    if spec:
        selection = parse_gpu_spec(spec)
        if not count_given(spec):
            selection = GpuSelection(selection.profile, max(need, selection.count))
        return selection, False, need
    return parse_gpu_spec(f"h100x{need}" if need > 1 else "h100"), True, need


# ``--device`` values whose platform the fake GPU does not reproduce (SGLang's ``--device``, server_args.py
# help: 'cuda', 'xpu', 'hpu', 'npu', 'cpu'; its module-level ``is_npu()``/``is_xpu()``/``is_cpu()`` flags come
# from torch and the installed device packages, not from the flag). vLLM 0.33 has no ``--device`` flag.
FAKED_DEVICES = ("cuda",)


def unresolvable_device(framework: str, parsed: Mapping[str, Any]) -> str | None:
    """The ``--device`` value that cannot be resolved on the fake GPU, or None."""
    value = parsed.get("device") if framework == "sglang" else None
    if not isinstance(value, str) or not value:
        return None
    base = value.split(":", 1)[0].strip().lower()
    return None if base in FAKED_DEVICES else value


def parsed_values(parser_result: LayerResult | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if parser_result is None:
        return out
    for name, (_flag, obs) in parser_result.observations.items():
        for o in reversed(obs):
            if o.layer == "parser":
                out[name] = o.value
                break
    return out


def run_recorder(
    target: ResolverTarget,
    request: Mapping[str, Any],
    env: Mapping[str, str],
    timeout: float | None = None,
) -> tuple[str, dict[str, Any] | None, str]:
    """Run the recorder; (status, recording or None, output tail). Status: ok|timeout|crashed."""
    timeout = default_timeout() if timeout is None else timeout
    import tempfile  # only a run of the recorder needs it (with `random`, ~5 ms of every check's start-up)

    with tempfile.TemporaryDirectory(prefix="argtrace-resolve-") as tmp:
        req = Path(tmp) / "request.json"
        out = Path(tmp) / "out.json"
        req.write_text(json.dumps(request))
        from argtrace.resolver import hosts

        try:
            # argtrace's own environments run on a host that imported the framework once (resolver/hosts.py);
            # a --python interpreter is the user's: always a fresh process
            proc = hosts.run(
                target.python,
                RECORDER,
                [str(req), str(out)],
                prep=[str(request["framework"])] if target.env_path is not None else None,
                env=env,
                cwd=tmp,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as exc:
            tail = _tail(
                (exc.stderr or b"")
                if isinstance(exc.stderr, str)
                else (exc.stderr or b"").decode("utf-8", "replace")
            )
            return "timeout", None, tail
        except OSError as exc:
            return "crashed", None, f"{type(exc).__name__}: {exc}"
        tail = _tail(proc.stderr + proc.stdout)
        try:
            data = json.loads(out.read_text())
        except (OSError, ValueError):
            return "crashed", None, tail or f"exit status {proc.returncode}, no result"
        if not isinstance(data, dict) or "status" not in data:
            return "crashed", None, tail
        return "ok", data, tail


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def resolve_server(
    server: ServerCommand,
    framework: str,
    version: str | None,
    *,
    parser_result: LayerResult | None = None,
    flag_for_dest: Mapping[str, str] | None = None,
    python: str | None = None,
    gpu: str | None = None,
    model_config: str | os.PathLike[str] | None = None,
    timeout: float | None = None,
    record: bool = True,
    before_run: Callable[[], object] | None = None,
) -> LayerResult:
    """The resolution layer for one server start. ``before_run`` is called when the framework's code is
    about to run (no cached answer): work that can go on beside that run starts there (check.py starts
    the memory layer's sizing host)."""
    from argtrace.rules import resolution as rules

    result = LayerResult()
    section: dict[str, Any] = {"status": "skipped", "exception": None, "at": None, "reason": None}
    result.sections["resolution"] = section
    parser_section = (parser_result.sections.get("parser") or {}) if parser_result else {}
    if parser_section.get("exit_status"):
        # argparse exits before the framework's own code runs: there is nothing to resolve, and the words
        # it refused (a flag taken as --model-path's value) are no model to look up
        stop = parser_section.get("error") or f"exit {parser_section['exit_status']}"
        section["reason"] = f"the command line is refused first ({stop})"
        if UNKNOWN_PREFIX in stop:
            # what argparse stopped on is a word not known statically (a Python launch's words added under a
            # test known only when it runs): the refusal is the placeholder's, not the launch's
            section["reason"] = "an argv word cannot be known statically"
        result.findings.append(
            rules.RS004.finding(
                f"resolution skipped: {section['reason']}, so the server never resolves its settings",
                fix="fix what the parser refuses; resolution runs after it",
            )
        )
        return result
    parsed = parsed_values(parser_result)
    try:
        selection, assumed, need = gpu_selection(gpu, parsed, framework)
    except ValueError as exc:
        section["reason"] = str(exc)
        result.findings.append(rules.RS004.finding(f"resolution skipped: {exc}"))
        return result
    section["gpu"] = {
        "spec": selection.spec,
        "count": selection.count,
        "needed": need,
        "assumed": assumed,
        "product": selection.profile.label,
    }
    if selection.count < need:
        how = node_gpus(parsed, framework)[1]
        # the flags are argparse's spelling of the dests the count named (--tp-size, --tensor-parallel-size)
        flags = [f"--{d.replace('_', '-')}" for d in re.findall(r"\b([a-z]+(?:_[a-z]+)*_size)\b", how)]
        result.findings.append(
            rules.RS005.finding(
                f"the parallel sizes need {need} GPUs ({how}) but --gpu {gpu} gives {selection.count}",
                setting="tp_size" if "tp_size" in parsed else "tensor_parallel_size",
                fix=(
                    f"lower {' / '.join(dict.fromkeys(flags))}, or run on a node with enough GPUs"
                    if flags
                    else None
                ),
            )
        )
    device = unresolvable_device(framework, parsed)
    if device is not None:
        section["reason"] = (
            f"--device {device}: the resolver fakes CUDA (NVIDIA) or ROCm GPUs only; SGLang decides its "
            f"platform flags from torch at import time, so resolving a {device} launch on a fake CUDA GPU "
            "would report a CUDA server's values"
        )
        section["steps"] = [{"name": "resolution", "status": "skipped", "reason": section["reason"]}]
        result.findings.append(
            rules.RS004.finding(f"resolution skipped: {section['reason']}", setting="device")
        )
        return result
    target = find_target(framework, version, python, server.interpreter)
    if target is None:
        section["reason"] = f"no resolver environment for {framework}=={version}"
        result.findings.append(
            rules.RS004.finding(
                f"resolution skipped: no resolver environment for {framework}=={version}; effective "
                "values are the parser's",
                fix=f"argtrace resolver add {framework}=={version}",
            )
        )
        return result
    section["interpreter"] = target.label
    argv, reason = server_argv(server, framework)
    from argtrace.frameworks.sglang_diffusion import DIFFUSION_NOTE

    notes = (parser_result.sections.get("parser") or {}).get("notes", []) if parser_result else []
    if server.entrypoint == "sglang serve" and any(str(n).startswith(DIFFUSION_NOTE) for n in notes):
        argv, reason = None, "the diffusion server's settings (sglang/multimodal_gen) are not resolved"
    if argv is None:
        section["reason"] = reason
        result.findings.append(rules.RS004.finding(f"resolution skipped: {reason}"))
        return result
    model_word, model_index = model_value(argv, framework)
    if model_index is None and framework == "vllm" and len(argv) == len(server.server_args):
        model_word, model_index = positional_model(server, parser_result)
    local = local_model_dir(model_config, model_word)
    if local is None:
        from argtrace.layers.hf_cache import REPO_ID

        section["reason"] = (
            "no model config: pass --model-config DIR (a directory with the model's config.json)"
        )
        result.findings.append(
            rules.RS004.finding(
                (
                    f"resolution skipped: no local config.json for model {model_word!r}"
                    if model_word is not None
                    else "resolution skipped: argtrace found no model word in the launch"
                )
                + "; model-dependent defaults cannot be resolved",
                fix="pass --model-config DIR|config.json (only config.json is read, never weights)"
                + (
                    ", or --fetch-config to download that file alone from the Hugging Face Hub"
                    if model_word is not None and REPO_ID.fullmatch(model_word) and ".." not in model_word
                    else ""
                ),
            )
        )
        return result
    local = local.resolve()
    section["model_config"] = str(local)
    from argtrace.layers.remote_code import remote_code_reason

    reason = remote_code_reason(argv, local)
    if reason is not None:
        section["reason"] = reason
        result.findings.append(rules.RS004.finding(f"resolution skipped: {reason}"))
        return result
    if model_index is not None and model_word is not None:
        word = argv[model_index]
        argv[model_index] = word.replace(model_word, str(local)) if "=" in word else str(local)
    node_config = _node_config_copy(argv, server)
    from argtrace.resolver import environments
    from argtrace.resolver.fake_gpu import fake_gpu_env

    launch_env = {k: v.value for k, v in server.env.items() if v.value is not None}
    if target.env_path is not None:  # argtrace's own environment: nothing of the launch's may run in it
        base_env = environments.launch_env_for_resolver(launch_env)
    else:  # --python: the user's interpreter, run with the launch's environment as its server would be
        base_env = dict(launch_env)
        base_env.setdefault("HOME", os.environ.get("HOME", "/root"))
        base_env.setdefault("PATH", os.environ.get("PATH", "/usr/bin:/bin"))
    env = environments.runtime_env_for(base_env, {"ARGTRACE_FAKE_GPU": fake_gpu_env(selection)})
    started = time.monotonic()
    request = {"framework": framework, "argv": argv, "record": record}
    # resolver/cache.py: the same inputs (code, environment, argv and the files it names, env) answer
    # from the cache; only argtrace's own environments (a --python interpreter has no manifest to key on)
    from argtrace.resolver import cache, cache_write

    entry = cache_write.key("resolution", target.env_path, request, env) if target.env_path else None
    hit = cache.load(entry) if entry else None
    if hit is not None and not isinstance(hit.get("data"), dict):
        hit = None  # not an answer of ours: ignored, replaced below
    if hit is not None:
        status, data, tail = "ok", hit.get("data"), str(hit.get("tail") or "")
    else:
        timeout = default_timeout() if timeout is None else timeout
        if before_run is not None:
            before_run()
        status, data, tail = run_recorder(target, request, env, timeout)
        if entry and status == "ok" and data is not None:
            cache_write.store(entry, {"data": data, "tail": tail})
    section["cache"] = "hit" if hit is not None else ("miss" if entry and cache.enabled() else "off")
    section["seconds"] = round(time.monotonic() - started, 2)
    if data is None:
        section["status"] = "timeout" if status == "timeout" else "crashed"
        section["reason"] = f"resolver {status}" + (f" after {timeout:.0f} s" if status == "timeout" else "")
        result.findings.append(
            rules.RS003.finding(
                f"the resolver {'timed out' if status == 'timeout' else 'crashed'} ({target.label}); "
                "effective values are the parser's",
                evidence=[Evidence("resolution", None, tail[-2000:])] if tail else (),
            )
        )
        return result
    back: dict[str, str | None] = {str(local): model_word} if model_word else {}
    back.update(node_config)
    _fold(result, data, parsed, parser_result, flag_for_dest or {}, back, framework, version, rules, tail)
    return result


def _node_config_copy(argv: list[str], server: ServerCommand) -> dict[str, str | None]:
    """The framework's own parser reads ``--config FILE`` again in the resolver, which runs in a temporary
    directory: hand it the file the parser layer read (``frameworks/config_files.config_file``): a relative
    path made absolute against the server's directory, and with ``argtrace --host`` the private copy of the
    node's file. Rewrites ``argv`` in place; returns {path given: path as written} to map values back."""
    if "--config" not in argv[:-1]:
        return {}
    from argtrace.frameworks.config_files import config_file

    index = argv.index("--config") + 1
    path = config_file(argv[index], server)
    if path is None or str(path) == argv[index]:
        return {}
    written, argv[index] = argv[index], str(path)
    return {str(path): written}


def _unmap(value: Any, back: Mapping[str, str | None]) -> Any:
    if isinstance(value, str):
        for local, original in back.items():
            if original is not None and local in value:
                return value.replace(local, original)
    return value


def _fold(
    result: LayerResult,
    data: Mapping[str, Any],
    parsed: Mapping[str, Any],
    parser_result: LayerResult | None,
    flags: Mapping[str, str],
    back: Mapping[str, str | None],
    framework: str,
    version: str | None,
    rules: Any,
    tail: str,
) -> None:
    section = result.sections["resolution"]
    section["status"] = data.get("status")
    section["framework"] = {"name": framework, "version": data.get("version")}
    section["mode"] = data.get("mode")
    section["timings"] = {k: round(v, 3) for k, v in (data.get("timings") or {}).items()}
    writes = data.get("writes") or []
    decls = data.get("declarations") or []
    logs = data.get("logs") or []
    section["writes"] = len(writes)
    section["declarations"] = len(decls)
    section["env_writes"] = [
        {k: w.get(k) for k in ("name", "old", "new", "at", "by", "step")}
        for w in data.get("env_writes") or []
        if w.get("old") != w.get("new")
    ]
    section["logs"] = [f"{entry['level']} {entry['at']}: {entry['message']}" for entry in logs[:200]]
    section["steps"] = startup_steps_section(data.get("steps"), back)
    history: dict[str, list[Observation]] = {}
    final = data.get("final") or {}
    parsed_by_recorder = data.get("parsed") or {}

    def log_near(index: int) -> str | None:
        for entry in logs:
            if entry.get("after_write", 0) == index + 1:
                return str(entry["message"])[:500]
        return None

    given = set(parser_result.intended) if parser_result is not None else set()
    for w in writes:
        name = w["field"]
        if w.get("owner") not in (None, "ServerArgs", "EngineArgs") and name not in parsed_by_recorder:
            name = _config_key(framework, version, str(w["owner"]), name, given) or f"{w['owner']}.{name}"
        detail: dict[str, Any] = {"old": _unmap(w.get("old"), back)}
        if w.get("noop"):
            detail["noop"] = True
        if w.get("owner") not in (None, "ServerArgs", "EngineArgs"):
            detail["owner"] = w["owner"]
        if w.get("chain"):
            detail["chain"] = w["chain"]
        if w.get("condition") is not None:
            detail["condition"] = w["condition"]
            detail["condition_fields"] = w.get("condition_fields") or []
            detail["condition_matches_value"] = bool(w.get("condition_matches_value"))
        message = log_near(w.get("seq", 0))
        if message:
            detail["log"] = message
        history.setdefault(name, []).append(
            Observation(
                "resolution", _unmap(w.get("new"), back), at=w.get("at"), by=w.get("by"), detail=detail
            )
        )
    for d in decls:
        for name, value in (d.get("fields") or {}).items():
            detail = {"source": d.get("source"), "caller": d.get("by")}
            if d.get("chain"):
                detail["chain"] = d["chain"]
            history.setdefault(name, []).append(
                Observation(
                    "resolution", _unmap(value, back), at=d.get("at"), by=str(d.get("source")), detail=detail
                )
            )
    for fb in data.get("fallbacks") or []:
        history.setdefault(fb["field"], []).append(
            Observation(
                "resolution", _unmap(fb.get("new"), back), by="fallback", detail={"old": fb.get("old")}
            )
        )
    # the effective value: the framework's own read of the result (pipeline projection, config objects)
    for name, value in final.items():
        value = _unmap(value, back)
        obs = history.get(name)
        start = _unmap(parsed_by_recorder.get(name), back)
        if obs:
            if obs[-1].value != value and data.get("status") == "ok":
                obs.append(Observation("resolution", value, by="resolved", detail={"old": obs[-1].value}))
        elif name in parsed_by_recorder and start != value and data.get("status") == "ok":
            history[name] = [Observation("resolution", value, by="resolved", detail={"old": start})]
    seen_by_parser = set(parser_result.observations) if parser_result is not None else set()
    for name, obs in history.items():
        if name not in seen_by_parser and name in parsed_by_recorder:
            # the value the real parser produced (its default): the start of this setting's history
            obs.insert(
                0,
                Observation(
                    "parser",
                    _unmap(parsed_by_recorder[name], back),
                    by="default",
                    detail={"default": True, "via": "resolver"},
                ),
            )
        result.observations[name] = (flags.get(name), obs)
    _findings(result, data, history, parsed, parser_result, framework, version, rules, back, flags)


def _keeps_given_keys(given: Any, resolved: Any) -> bool:
    """True when a JSON flag's object comes out of resolution with every key the user gave at the value
    given, the framework having added only keys of its own (vLLM 0.33.0's speculative_config gains
    target_model_config and the draft's settings): no value the user wrote changed. A key the
    configuration rewrote is reported on its own (``_config_key``)."""
    if not isinstance(given, Mapping) or not isinstance(resolved, Mapping) or not given:
        return False
    return all(key in resolved and resolved[key] == value for key, value in given.items())


def _config_key(framework: str, version: str | None, owner: str, field: str, given: set[str]) -> str | None:
    """A write to a vLLM configuration object's field, as the key of the JSON flag the user gave it through
    (``CompilationConfig.cudagraph_mode`` is ``compilation_config.cudagraph_mode``, the parser's name for
    ``--compilation-config '{"cudagraph_mode": ...}'``), so that the value the user wrote and the one the
    configuration set are one setting's history (RS002: vLLM 0.33.0 turns FULL_AND_PIECEWISE into
    FULL_DECODE_ONLY under mode 0, vllm PR#41219); None for a field the user did not give."""
    if framework != "vllm":
        return None
    from argtrace.frameworks.vllm_config_fields import config_attribute

    attr = config_attribute(version, owner)
    key = f"{attr}.{field}" if attr else None
    return key if key in given else None


def _findings(
    result: LayerResult,
    data: Mapping[str, Any],
    history: Mapping[str, list[Observation]],
    parsed: Mapping[str, Any],
    parser_result: LayerResult | None,
    framework: str,
    version: str | None,
    rules: Any,
    back: Mapping[str, str | None],
    flags: Mapping[str, str],
) -> None:
    section = result.sections["resolution"]
    exc = data.get("exception")
    if data.get("status") in ("raised", "crashed") and exc:
        message = _unmap(str(exc.get("message") or ""), back)
        section["exception"] = {"type": exc.get("type"), "message": message}
        section["at"] = exc.get("at")
        section["function"] = exc.get("function")
        if data.get("status") == "crashed":
            section["reason"] = f"{exc.get('type')}: {message}"[:500]
            result.findings.append(
                rules.RS003.finding(
                    f"the resolver crashed: {exc.get('type')}: {message}"[:600],
                    at=exc.get("at"),
                    evidence=[Evidence("resolution", exc.get("at"), "\n".join(exc.get("traceback") or []))],
                )
            )
            return
        site = raise_site(framework, data.get("version") or version, exc.get("at"))
        if (site is None or not site.get("fields")) and exc.get("condition_fields"):
            # not in the bundled index (a step beyond __post_init__, another file): the condition the
            # recorder read from the installed source at the raise line (the bundled index names no fields
            # where the condition reads another object than ``self``, e.g. 0.5.23's ``cfg``)
            site = {
                **(site or {}),
                "fields": exc["condition_fields"],
                "conditions": (site or {}).get("conditions") or exc.get("conditions") or [],
            }
        fields = list(site.get("fields") or []) if site else []
        fix = fix_hint(str(exc.get("function")), message) or rules.RS001.fix
        evidence = [Evidence("resolution", exc.get("at"), f"{exc.get('type')}: {message}")]
        if site and site.get("conditions"):
            evidence.append(
                Evidence("resolution", exc.get("at"), "when: " + " and ".join(site["conditions"]))
            )
        settings: list[str | None] = deciding_settings(
            framework, data.get("version") or version, str(exc.get("function") or ""), fields, flags
        )
        # flags the message names ("when using --mamba-scheduler-strategy no_buffer") are read too
        dest_for_flag = {flag: dest for dest, flag in flags.items()}
        # pydantic appends ``[type=value_error, input_value=ArgsKwargs((), {every field: ...})]``: the
        # field names in that dump are the whole config, not what the message is about
        said = re.split(r"\[type=[a-z_]+, input_value=", message, maxsplit=1)[0]
        for flag in re.findall(r"--[a-z][a-z0-9-]+", said):
            dest = dest_for_flag.get(flag)
            if dest and dest not in settings:
                settings.insert(0, dest)
        # and settings it names by their field name ("User-specified max_model_len (10000000) ...")
        for word in re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", said):
            if word in flags and word not in settings:
                settings.insert(0, word)
        settings = settings or [None]
        section["condition_fields"] = fields
        for name in settings:
            if name is None:
                result.findings.append(
                    rules.RS001.finding(
                        f"{exc.get('type')} at {exc.get('at')}: {message}",
                        at=exc.get("at"),
                        evidence=evidence,
                        fix=fix,
                    )
                )
                continue
            value, origin = value_and_origin(name, history, parsed, parser_result, data.get("parsed") or {})
            result.findings.append(
                rules.RS001.finding(
                    f"{exc.get('type')} in {exc.get('function')} ({exc.get('at')}) reads {name} = {value!r} "
                    f"({origin}): {message}"[:1200],
                    at=exc.get("at"),
                    setting=name,
                    evidence=evidence,
                    fix=fix,
                )
            )
        return
    for step in section.get("steps") or []:
        if step.get("status") == "crashed" and data.get("status") == "ok":
            result.findings.append(
                rules.RS003.finding(
                    f"start-up step {step['name']} could not run in the resolver: {step.get('reason')}; "
                    "the checks it makes were not made"[:600],
                    at=step.get("at"),
                )
            )
    # RS002: a value the user wrote, changed by resolution
    intended = parser_result.intended if parser_result is not None else {}
    for name, obs in history.items():
        if name not in intended:
            continue
        changed = [o for o in obs if not o.detail.get("noop")]
        if not changed:
            continue
        last = changed[-1]
        if last.value == parsed.get(name, intended[name]) or _keeps_given_keys(
            parsed.get(name, intended[name]), last.value
        ):
            continue
        # A rewrite that maps given values of the setting itself (``if self.x == "NEXTN": self.x = "EAGLE"``)
        # is the framework normalising an alias, whatever else is configured: worth knowing, not a warning.
        normalised = list(last.detail.get("condition_fields") or []) == [name] and bool(
            last.detail.get("condition_matches_value")
        )
        result.findings.append(
            rules.RS002.finding(
                f"{name}: the user set {parsed.get(name, intended[name])!r}; {last.by} ({last.at}) "
                f"changed it to {last.value!r}"
                + (
                    f" (a normalisation: it depends only on this value, `{last.detail['condition']}`)"
                    if normalised
                    else ""
                ),
                at=last.at,
                setting=name,
                severity="info" if normalised else None,
            )
        )
    for w in data.get("env_writes") or []:
        name = str(w.get("name", ""))
        if w.get("old") == w.get("new"):
            continue
        replaced = w.get("old") is not None  # a value the launch gave the server, replaced
        if not replaced and not name.startswith(("SGLANG_", "SGL_", "VLLM_")):
            continue  # a fresh variable of another program (NCCL, CUDA): the server's own business
        step = f" in the start-up step {w['step']}" if w.get("step") else ""
        result.findings.append(
            rules.RS006.finding(
                f"{w['name']}: {w.get('old')!r} -> {w.get('new')!r} by {w.get('by')} ({w.get('at')}){step}"
                + ("; the value the launch set does not reach the server's children" if replaced else ""),
                at=w.get("at"),
                setting=name if replaced else None,
            )
        )


def startup_steps_section(steps: Any, back: Mapping[str, str | None]) -> list[dict[str, Any]]:
    """``resolution.steps``: each start-up step the recorder planned, whether it ran, was skipped (and why)
    or was never reached, with where the real launcher calls it."""
    out: list[dict[str, Any]] = []
    for step in steps if isinstance(steps, list) else []:
        if not isinstance(step, dict) or not isinstance(step.get("name"), str):
            continue
        entry: dict[str, Any] = {
            "name": step["name"],
            "status": str(step.get("status")),
            "reason": _unmap(step.get("reason"), back),
            "called_at": step.get("called_at"),
        }
        for key in ("at", "seconds", "detail"):
            if step.get(key) is not None:
                entry[key] = step[key]
        out.append(entry)
    return out


def value_and_origin(
    name: str,
    history: Mapping[str, list[Observation]],
    parsed: Mapping[str, Any],
    parser_result: LayerResult | None,
    recorder_parsed: Mapping[str, Any],
) -> tuple[Any, str]:
    obs = [o for o in history.get(name, []) if not o.detail.get("noop")]
    if obs:
        last = obs[-1]
        return last.value, f"set by {last.by} at {last.at}, was {last.detail.get('old')!r}"
    intended = parser_result.intended if parser_result is not None else {}
    if name in intended:
        return parsed.get(name, intended[name]), "from the command line"
    if name in parsed:
        return parsed[name], "the parser's default"
    if name in recorder_parsed:
        return recorder_parsed[name], "the parser's default"
    return None, "not on the command line"


def deciding_settings(
    framework: str, version: str | None, function: str, fields: Sequence[str], flags: Mapping[str, str]
) -> list[str | None]:
    """The settings an RS001 names for a raise whose condition reads ``fields``: each field of the object
    itself, and for a vLLM configuration field no flag of its name sets (``world_size``,
    ``parallel_config.use_ubatching``) the dests of the flags that make it instead
    (frameworks/vllm_config_fields.py, generated from the releases' source)."""
    out: list[str | None] = []
    dest_for_flag = {flag: dest for dest, flag in flags.items()}
    for field in fields:
        found = None
        if framework == "vllm" and field.rsplit(".", 1)[-1] not in flags:
            from argtrace.frameworks.vllm_config_fields import derived_field

            found = derived_field(version, f"self.{field}", function)
        dests = [dest_for_flag[f] for f in found.flags if f in dest_for_flag] if found else []
        if dests:
            out.extend(d for d in dests if d not in out)
        elif "." not in field and field not in out and (field in flags or framework != "vllm"):
            # a vLLM config's own field no flag sets or makes (`model_arch_config`, read through a local of
            # the check: resolver/local_defs.py) is no setting of the launch to name
            out.append(field)
    return out


def raise_site(framework: str, version: str | None, at: str | None) -> dict[str, Any] | None:
    """The bundled raise-site entry at ``file:line`` (None when the version is not bundled)."""
    if not at or not version:
        return None
    from argtrace.resolver.raise_index import load_index

    index = load_index(framework, version)
    if index is None:
        return None
    file, _, line = at.rpartition(":")
    for site in index.get("sites", []):
        if site.get("file") == file and str(site.get("line")) == line:
            return dict(site)
    return None


def render_resolution_section(section: Mapping[str, Any]) -> str:
    """Text view of the ``resolution`` section (the per-setting history is in the settings table)."""
    status = section.get("status")
    lines = [f"resolution: {status}"]
    interp = section.get("interpreter")
    fw = section.get("framework") or {}
    if interp:
        lines[0] += f" ({interp}"
        if fw.get("version"):
            lines[0] += f", {fw.get('name')} {fw.get('version')}"
        lines[0] += ")"
    gpu = section.get("gpu") or {}
    if gpu:
        assumed = " (assumed: pass --gpu NAME[xCOUNT] for the target node)" if gpu.get("assumed") else ""
        lines.append(f"  gpu: {gpu.get('spec')} = {gpu.get('product')}{assumed}")
    if section.get("model_config"):
        lines.append(f"  model config: {section['model_config']}")
    if section.get("exception"):
        exc = section["exception"]
        lines.append(f"  raised {exc.get('type')} at {section.get('at')} ({section.get('function')}):")
        lines.append(f"    {exc.get('message')}")
    if section.get("reason"):
        lines.append(f"  reason: {section['reason']}")
    for step in section.get("steps") or []:
        why = f" ({step['reason']})" if step.get("reason") and step.get("status") != "ran" else ""
        lines.append(f"  step {step.get('name')}: {step.get('status')}{why}")
    if status in ("ok", "raised"):
        lines.append(
            f"  {section.get('writes', 0)} writes, {section.get('declarations', 0)} declarations recorded"
            + (f" in {section['seconds']} s" if section.get("seconds") is not None else "")
        )
    for w in section.get("env_writes") or []:
        lines.append(
            f"  env {w.get('name')}: {w.get('old')!r} -> {w.get('new')!r} by {w.get('by')} ({w.get('at')})"
        )
    return "\n".join(lines)
