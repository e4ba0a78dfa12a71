"""The recorder: parse and resolve a server's argv with the framework's own code, recording every decision.

Runs *inside* the target interpreter (a resolver environment or ``--python``), by path, with the stubs dir
on ``PYTHONPATH`` and ``ARGTRACE_FAKE_GPU`` set::

    python record.py REQUEST.json OUT.json

Stdlib only at module top. REQUEST: ``{"framework": "sglang"|"vllm", "argv": [...], "record": true}``
(``argv`` is what the framework's parser receives; ``record: false`` runs the same resolution bare, for the
overhead benchmark). OUT: ``{"status": "ok"|"raised"|"crashed", "framework", "version", "mode", "parsed":
{field: value}, "final": {field: value}, "writes": [...], "declarations": [...], "fallbacks": [...],
"env_writes": [...], "logs": [...], "exception": {...}, "timings": {...}, "steps": [...]}`` (``steps``:
the start-up steps, see ``startup_steps.py``; ``"startup": false`` in REQUEST runs resolution alone).

Version-specific knowledge lives in the small per-version profiles below (``PROFILES``): which entry point
parses, which call resolves, and what to record.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SITE_MARKERS = ("site-packages/", "dist-packages/")
# the frames of a host's run (host_main.py forks, runpy runs this file as __main__): never the framework's
HOST_FILES = frozenset({"host_main.py", "runpy.py", "<frozen runpy>"})
MAX_REPR = 2000


def rel(path: str) -> str:
    for marker in SITE_MARKERS:
        idx = path.rfind(marker)
        if idx >= 0:
            return path[idx + len(marker) :]
    return path


def jsonable(value: Any, depth: int = 0) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return {"repr": repr(value)}
        return value
    if depth > 4:
        return {"repr": repr(value)[:MAX_REPR]}
    import enum

    if isinstance(value, enum.Enum):
        return jsonable(value.value, depth + 1) if isinstance(value.value, (str, int)) else value.name
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        if isinstance(value, (set, frozenset)):
            items = sorted(items, key=repr)
        return [jsonable(v, depth + 1) for v in items]
    if isinstance(value, dict):
        return {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        try:
            return {
                f.name: jsonable(getattr(value, f.name, None), depth + 1) for f in dataclasses.fields(value)
            }
        except Exception:
            pass
    return {"repr": repr(value)[:MAX_REPR]}


def same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:
        return a is b


# The frameworks' env-var helpers: the write is attributed to their caller.
ENV_HELPERS = ("sglang/srt/environ.py", "vllm/envs.py", "sglang/srt/utils/common.py")
DECLARING_FUNCS = ("declare", "_declare", "record_foreign_defaults", "_record", "append_override")


def caller(
    skip_files: tuple[str, ...] = (), depth: int = 6, skip_funcs: tuple[str, ...] = ()
) -> tuple[str | None, str | None, list[str]]:
    """(file:line, function, chain) of the first frame outside this recorder (and ``skip_files``, and
    functions whose name starts with one of ``skip_funcs``: the framework's own declaring helpers)."""
    frame = sys._getframe(2)
    here = os.path.abspath(__file__)
    chain: list[str] = []
    at = fn = None
    while frame is not None:
        path = frame.f_code.co_filename
        name = frame.f_code.co_name
        if os.path.basename(path) in HOST_FILES:
            break  # below here: the host that ran this file (resolver/host_main.py), not the framework
        if (
            os.path.abspath(path) != here
            and not any(s in path for s in skip_files)
            and not (at is None and skip_funcs and name.startswith(skip_funcs))
        ):
            label = f"{rel(path)}:{frame.f_lineno}"
            if at is None:
                at, fn = label, _qualname(frame)
            chain.append(f"{_qualname(frame)} ({label})")
            if len(chain) >= depth:
                break
        frame = frame.f_back  # type: ignore[assignment]
    return at, fn, chain


def _qualname(frame: Any) -> str:
    code = frame.f_code
    return getattr(code, "co_qualname", code.co_name)


class Recorder:
    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.active = False
        self.step: str | None = None  # the start-up step running now (startup_steps.run_step sets it)
        self.writes: list[dict[str, Any]] = []
        self.declarations: list[dict[str, Any]] = []
        self.env_writes: list[dict[str, Any]] = []
        self.logs: list[dict[str, Any]] = []

    # -- field writes
    def write(self, owner: str, name: str, old: Any, new: Any, skip: tuple[str, ...] = ()) -> None:
        if not (self.enabled and self.active) or name.startswith("_"):
            return
        at, fn, chain = caller(skip)
        self.writes.append(
            {
                "seq": len(self.writes) + len(self.declarations),
                "owner": owner,
                "field": name,
                "old": jsonable(old),
                "new": jsonable(new),
                "noop": same(old, new),
                "at": at,
                "by": fn,
                "chain": chain,
                "log_index": len(self.logs),
            }
        )

    def declare(self, source: Any, fields: dict[str, Any]) -> None:
        if not (self.enabled and self.active):
            return
        at, fn, chain = caller(skip_funcs=DECLARING_FUNCS)
        self.declarations.append(
            {
                "seq": len(self.writes) + len(self.declarations),
                "source": str(source),
                "fields": {k: jsonable(v) for k, v in dict(fields).items()},
                "at": at,
                "by": fn,
                "chain": chain,
                "log_index": len(self.logs),
            }
        )


def patch_logging(recorder: Recorder) -> None:
    """See every log record the framework emits while resolving, whatever handlers it installs
    (SGLang >= 0.5.15 calls ``logging.basicConfig(force=True)``, which drops foreign root handlers)."""
    orig = logging.Logger.handle

    def handle(self: logging.Logger, record: logging.LogRecord) -> None:
        if recorder.active:
            record_log(recorder, record)
        orig(self, record)

    logging.Logger.handle = handle  # type: ignore[method-assign]


def record_log(recorder: Recorder, record: logging.LogRecord) -> None:
    if recorder.enabled:
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        recorder.logs.append(
            {
                "level": record.levelname,
                "logger": record.name,
                "message": message[:MAX_REPR],
                "at": f"{rel(record.pathname)}:{record.lineno}",
                "function": record.funcName,
                "after_write": len(recorder.writes) + len(recorder.declarations),
            }
        )


def patch_environ(recorder: Recorder) -> None:
    cls = type(os.environ)
    orig_set, orig_del = cls.__setitem__, cls.__delitem__

    def __setitem__(self: Any, key: str, value: str) -> None:
        if recorder.active and recorder.enabled:
            at, fn, _ = caller(skip_files=ENV_HELPERS)
            recorder.env_writes.append(
                {"name": key, "old": self.get(key), "new": value, "at": at, "by": fn, "step": recorder.step}
            )
        orig_set(self, key, value)

    def __delitem__(self: Any, key: str) -> None:
        if recorder.active and recorder.enabled:
            at, fn, _ = caller(skip_files=ENV_HELPERS)
            recorder.env_writes.append(
                {"name": key, "old": self.get(key), "new": None, "at": at, "by": fn, "step": recorder.step}
            )
        orig_del(self, key)

    cls.__setitem__ = __setitem__  # type: ignore[method-assign]
    cls.__delitem__ = __delitem__  # type: ignore[method-assign]


def wrap_setattr(cls: type, recorder: Recorder, owner: str | None = None) -> None:
    """Record writes to instances of ``cls`` (after construction) while the recorder is active."""
    orig: Any = cls.__setattr__
    if getattr(orig, "_argtrace_recording", False):
        return  # inherited from a class already wrapped: one record per write
    label = owner or cls.__name__

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if recorder.active and recorder.enabled and not name.startswith("_"):
            sentinel = object()
            old = self.__dict__.get(name, sentinel) if hasattr(self, "__dict__") else sentinel
            if old is not sentinel:
                recorder.write(label, name, old, value)
        orig(self, name, value)

    __setattr__._argtrace_recording = True  # type: ignore[attr-defined]
    setattr(cls, "__setattr__", __setattr__)  # noqa: B010


class RecordingList(list["Any"]):
    """SGLang's ``_resolved_overrides``: every declaration appended is recorded with its caller."""

    recorder: Recorder | None = None

    def append(self, item: Any) -> None:
        if self.recorder is not None and isinstance(item, tuple) and len(item) == 2:
            self.recorder.declare(item[0], item[1])
        super().append(item)

    def extend(self, items: Any) -> None:
        items = list(items)
        for item in items:
            if self.recorder is not None and isinstance(item, tuple) and len(item) == 2:
                self.recorder.declare(item[0], item[1])
        super().extend(items)

    def __reduce__(self) -> Any:
        return (list, (list(self),))


# ------------------------------------------------------------------------------------------- profiles


def sglang_fields(obj: Any) -> dict[str, Any]:
    """Every configuration field: dataclass fields (<= 0.5.19) or the record's fields (0.5.23)."""
    import dataclasses

    if dataclasses.is_dataclass(obj):
        names = [f.name for f in dataclasses.fields(obj)]
    else:
        from sglang.srt.arg_groups.arg_utils import record_fields

        names = [f.name for f in record_fields(type(obj))]
    return {name: getattr(obj, name, None) for name in names}


def run_sglang(argv: list[str], recorder: Recorder, out: dict[str, Any]) -> None:
    t0 = time.perf_counter()
    import sglang.srt.server_args as sa

    out["timings"]["import"] = time.perf_counter() - t0
    cls = sa.ServerArgs
    pipeline = hasattr(cls, "resolve_once")
    out["mode"] = "pipeline" if pipeline else "post_init"
    orig_setattr = cls.__setattr__

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if name == "_resolved_overrides" and recorder.enabled and not isinstance(value, RecordingList):
            wrapped = RecordingList(value or ())
            wrapped.recorder = recorder
            if recorder.active:
                for item in wrapped:
                    if isinstance(item, tuple) and len(item) == 2:
                        recorder.declare(item[0], item[1])
            value = wrapped
        elif recorder.active and recorder.enabled and not name.startswith("_"):
            sentinel = object()
            old = self.__dict__.get(name, sentinel)
            if old is not sentinel:
                recorder.write("ServerArgs", name, old, value)
        orig_setattr(self, name, value)

    if recorder.enabled:
        setattr(cls, "__setattr__", __setattr__)  # noqa: B010
    parsed: dict[str, Any] = {}
    if not pipeline:
        orig_post_init = cls.__post_init__

        def __post_init__(self: Any, *a: Any, **k: Any) -> Any:
            parsed.update({n: jsonable(v) for n, v in sglang_fields(self).items()})
            recorder.active = True
            try:
                return orig_post_init(self, *a, **k)
            finally:
                recorder.active = False

        setattr(cls, "__post_init__", __post_init__)  # noqa: B010
    holder: dict[str, Any] = {}
    out["parsed"] = parsed
    if out.get("startup"):
        steps = startup_steps()
        steps.plan(out, steps.SGLANG_STEPS["pipeline" if pipeline else "post_init"])
    t1, c1 = time.perf_counter(), time.process_time()
    try:
        if pipeline:
            server_args = sa.prepare_server_args(argv)
            holder["args"] = server_args
            parsed.update({n: jsonable(v) for n, v in sglang_fields(server_args).items()})
            recorder.active = True
            try:
                server_args.resolve_once()
            finally:
                recorder.active = False
        else:
            server_args = sa.prepare_server_args(argv)
            holder["args"] = server_args
        step_done(out, "resolve_once" if pipeline else "post_init")

        def args_line() -> None:
            # what the launcher logs as ``server_args=...`` for the same argv (the cross-check's reference);
            # it logs it after check_server_args (0.5.10.post1 srt/entrypoints/engine.py:648, 0.5.23 :1185)
            out["args_line"] = repr(server_args.resolved_dict()) if pipeline else repr(server_args)

        if out.get("startup"):
            startup_steps().sglang_startup(server_args, recorder, out, pipeline, args_line)
        else:
            args_line()
    finally:
        out["timings"]["resolve"] = time.perf_counter() - t1
        out["timings"]["resolve_cpu"] = time.process_time() - c1
        args = holder.get("args")
        if args is not None:
            out["final"] = sglang_final(args, pipeline)
            if pipeline:
                out["fallbacks"] = sglang_fallbacks(args, out["final"])


def sglang_final(args: Any, pipeline: bool) -> dict[str, Any]:
    if pipeline and getattr(args, "_resolution_finished", False):
        try:
            return {k: jsonable(v) for k, v in args.resolved_dict().items()}
        except Exception:
            pass
    if pipeline:
        try:
            from sglang.srt.arg_groups.overrides import resolution_result

            return {n: jsonable(resolution_result(args, n)) for n in sglang_fields(args)}
        except Exception:
            pass
    return {n: jsonable(v) for n, v in sglang_fields(args).items()}


def sglang_fallbacks(args: Any, final: dict[str, Any]) -> list[dict[str, Any]]:
    """Fields whose effective value comes from a declared ``Arg(fallback=...)``: no declaration names them
    and the raw input differs from the result."""
    raw = getattr(args, "_raw_input", None) or {}
    declared = {f for _s, d in (getattr(args, "_resolved_overrides", None) or ()) for f in d}
    out = []
    for name, value in final.items():
        if name in declared or name not in raw:
            continue
        before = jsonable(raw[name])
        if before != value:
            out.append({"field": name, "old": before, "new": value, "by": "fallback"})
    return out


def vllm_imports() -> tuple[Any, ...]:
    """What ``run_vllm`` imports before anything else (``host_imports`` takes the same step)."""
    import vllm.config as vc
    from vllm.engine.arg_utils import AsyncEngineArgs, EngineArgs

    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    try:
        from vllm.entrypoints.common.cli_args import make_arg_parser
    except ImportError:
        from vllm.entrypoints.openai.cli_args import make_arg_parser
    from vllm.usage.usage_lib import UsageContext

    return vc, AsyncEngineArgs, EngineArgs, FlexibleArgumentParser, make_arg_parser, UsageContext


def run_vllm(argv: list[str], recorder: Recorder, out: dict[str, Any]) -> None:
    t0 = time.perf_counter()
    import dataclasses

    vc, AsyncEngineArgs, EngineArgs, FlexibleArgumentParser, make_arg_parser, UsageContext = vllm_imports()
    out["timings"]["import"] = time.perf_counter() - t0
    out["mode"] = "vllm"
    if recorder.enabled:
        seen: set[type] = set()
        for name in dir(vc):
            obj = getattr(vc, name, None)
            if isinstance(obj, type) and name.endswith("Config") and obj not in seen:
                seen.add(obj)
                wrap_setattr(obj, recorder)
        wrap_setattr(EngineArgs, recorder, "EngineArgs")  # AsyncEngineArgs inherits it
    if out.get("startup"):
        steps = startup_steps()
        steps.plan(out, steps.VLLM_STEPS)
    t1, c1 = time.perf_counter(), time.process_time()
    try:
        parser = make_arg_parser(FlexibleArgumentParser(prog="vllm serve"))
        ns = parser.parse_args(argv)
        if getattr(ns, "model_tag", None) is not None:
            ns.model = ns.model_tag
        engine_args = AsyncEngineArgs.from_cli_args(ns)
        out["parsed"] = {
            f.name: jsonable(getattr(engine_args, f.name, None)) for f in dataclasses.fields(engine_args)
        }
        step_done(out, "parse")
        if out.get("startup"):
            startup_steps().vllm_serve_checks(ns, recorder, out)
        recorder.active = True
        try:
            config = engine_args.create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER)
        finally:
            recorder.active = False
        step_done(out, "create_engine_config", vllm_config_summary(config))
        out["final"] = vllm_final(engine_args, config)
    finally:
        out["timings"]["resolve"] = time.perf_counter() - t1
        out["timings"]["resolve_cpu"] = time.process_time() - c1


def vllm_final(engine_args: Any, config: Any) -> dict[str, Any]:
    """Effective values by EngineArgs dest: the engine config's field of the same name where one exists
    (``scheduler_config.max_num_seqs`` for ``max_num_seqs``), else the EngineArgs value."""
    import dataclasses

    located: dict[str, Any] = {}
    for f in dataclasses.fields(config):
        sub = getattr(config, f.name, None)
        if sub is None or not dataclasses.is_dataclass(sub):
            continue
        for g in dataclasses.fields(sub):
            located.setdefault(g.name, getattr(sub, g.name, None))
    final = {}
    for f in dataclasses.fields(engine_args):
        value = located[f.name] if f.name in located else getattr(engine_args, f.name, None)
        final[f.name] = jsonable(value)
    return final


def vllm_config_summary(config: Any) -> dict[str, Any]:
    """What create_engine_config derived from the model's config.json and the fake GPU."""
    model = getattr(config, "model_config", None)
    parallel = getattr(config, "parallel_config", None)
    summary: dict[str, Any] = {}
    if model is not None:
        summary["max_model_len"] = jsonable(getattr(model, "max_model_len", None))
        summary["architectures"] = jsonable(list(getattr(model, "architectures", None) or []))
        try:  # vLLM's own default sampling parameters (the model's generation_config.json): RS023
            summary["sampling_defaults"] = jsonable(model.get_diff_sampling_param())
        except Exception:
            pass
    if parallel is not None:
        summary["world_size"] = jsonable(getattr(parallel, "world_size", None))
        summary["distributed_executor_backend"] = jsonable(
            getattr(parallel, "distributed_executor_backend", None)
        )
    return summary


def startup_steps() -> Any:
    """``startup_steps.py`` next to this file, loaded by path: this script runs by path in the resolver
    interpreter (and the memory layer loads it by path too), never as part of the argtrace package."""
    name = "argtrace_startup_steps"
    if name not in sys.modules:
        import importlib.util

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "startup_steps.py")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def step_done(out: dict[str, Any], name: str, detail: dict[str, Any] | None = None) -> None:
    for step in out.get("steps") or []:
        if step["name"] == name and step["status"] == "pending":
            step["status"] = "ran"
            if detail:
                step["detail"] = detail


PROFILES = {"sglang": run_sglang, "vllm": run_vllm}


def raise_frame(exc: BaseException, framework: str) -> Any:
    """The frame of the framework's own code that raised: the deepest ``<framework>/`` frame of the
    exception or, for wrappers such as pydantic's ValidationError, of the exception it wraps (its
    ``__cause__``/``__context__``, or the one pydantic-core keeps in the error's ``ctx``)."""
    seen: set[int] = set()
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append(current)
        current = current.__cause__ or current.__context__
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            for err in errors():
                inner = (err.get("ctx") or {}).get("error")
                if isinstance(inner, BaseException):
                    chain.insert(0, inner)
        except Exception:
            pass
    marker = f"/{framework}/"
    for candidate in chain:
        frames = [f for f in traceback.extract_tb(candidate.__traceback__) if marker in f.filename]
        if frames:
            return frames[-1]
    return None


def _source_file(relative: str) -> str | None:
    for entry in sys.path:
        candidate = os.path.join(entry, relative)
        if entry and os.path.isfile(candidate):
            return candidate
    return None


def _guards(tree: Any, line: int) -> list[Any]:
    """The ``if`` tests enclosing ``line``, outermost first (``not (...)`` for an ``else`` branch)."""
    import ast

    found: list[Any] = []
    node = tree
    while True:
        inner = None
        for child in ast.iter_child_nodes(node):
            start, end = getattr(child, "lineno", None), getattr(child, "end_lineno", None)
            if start is None or end is None or not start <= line <= end:
                continue
            if isinstance(child, ast.If):
                in_else = any(
                    getattr(n, "lineno", 0) <= line <= getattr(n, "end_lineno", 0) for n in child.orelse
                )
                found.append(ast.UnaryOp(ast.Not(), child.test) if in_else else child.test)
            inner = child
            break
        if inner is None:
            return found
        node = inner


def annotate_conditions(writes: list[dict[str, Any]]) -> None:
    """Add the condition guarding each write and the fields it reads (after the run: no cost while
    recording). A rewrite guarded only by the field's own value is a normalisation (``NEXTN`` ->
    ``EAGLE``); one guarded by other settings is a decision that depends on them."""
    import ast

    trees: dict[str, Any] = {}
    for w in writes:
        at = w.get("at") or ""
        relative, _, line_text = at.rpartition(":")
        if not line_text.isdigit():
            continue
        if relative not in trees:
            path = _source_file(relative)
            try:
                trees[relative] = ast.parse(open(path).read()) if path else None
            except (OSError, SyntaxError, ValueError):
                trees[relative] = None
        tree = trees[relative]
        if tree is None:
            continue
        guards = _guards(tree, int(line_text))
        if not guards:
            w["condition"] = None
            w["condition_fields"] = []
            continue
        guard = guards[-1]
        w["condition"] = ast.unparse(guard)[:500]
        # ``self.x == "NEXTN"`` / ``self.x in ("a", "b")``: the write maps given values to another (an
        # alias), unlike a clamp (``self.x > 4096``) that overrides whatever the user wrote above a bound.
        w["condition_matches_value"] = (
            isinstance(guard, ast.Compare)
            and all(isinstance(op, (ast.Eq, ast.In)) for op in guard.ops)
            and all(isinstance(c, (ast.Constant, ast.Tuple, ast.List, ast.Set)) for c in guard.comparators)
        )
        w["condition_fields"] = sorted(
            {
                n.attr
                for n in ast.walk(guards[-1])
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
            }
        )


def finish_steps(out: dict[str, Any]) -> None:
    """The first step still pending is the one that raised (or crashed); the ones after it never ran."""
    failed = False
    for step in out.get("steps") or []:
        if step["status"] != "pending":
            continue
        if not failed and out["status"] in ("raised", "crashed"):
            step["status"] = out["status"]
            step["reason"] = (out.get("exception") or {}).get("type")
            failed = True
        else:
            step["status"] = "not_reached"
            step["reason"] = f"an earlier step {out['status']}"


# the names the frameworks' checks give the arguments object (``self`` in ServerArgs methods, ``cfg`` in
# SGLang 0.5.23's arg_groups/validation_hook.py, ``server_args`` in module-level helpers)
ARGS_NAMES = ("self", "server_args", "cfg", "args")


def raise_condition(relative: str, line: int) -> dict[str, Any]:
    """The test of an ``assert`` at ``line`` (or the ``if`` guarding a ``raise``) and the ``self.`` fields it
    reads, from the framework's source: the settings a raise outside the bundled index depends on."""
    import ast

    path = _source_file(relative)
    try:
        tree = ast.parse(open(path).read()) if path else None
    except (OSError, SyntaxError, ValueError):
        tree = None
    if tree is None:
        return {}
    tests: list[Any] = list(_guards(tree, line))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and node.lineno <= line <= (node.end_lineno or node.lineno):
            tests.append(node.test)
    if not tests:
        return {}
    fields = sorted(
        {
            n.attr
            for t in tests
            for n in ast.walk(t)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ARGS_NAMES
        }
    )
    return {"conditions": [ast.unparse(t)[:500] for t in tests], "condition_fields": fields}


def _launcher_log_level() -> None:
    root = logging.getLogger()
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)  # the launchers run at --log-level info


def host_imports(framework: str) -> None:
    """The import step every run of this file takes first (``resolver/host_main.py`` takes it once for many
    runs): the framework's argument modules, as ``run_sglang`` / ``run_vllm`` import them, at the log level
    ``main`` sets before it imports."""
    _launcher_log_level()
    if framework == "sglang":
        import sglang.srt.server_args  # noqa: F401
    elif framework == "vllm":
        vllm_imports()


def main() -> int:
    request_path, out_path = sys.argv[1], sys.argv[2]
    with open(request_path) as fh:
        request = json.load(fh)
    recorder = Recorder(enabled=bool(request.get("record", True)))
    out: dict[str, Any] = {"status": "crashed", "framework": request["framework"], "timings": {}}
    # the start-up steps after resolution (check_server_args, the model config): on unless the request
    # says ``"startup": false``; callers that load this file as a module (the memory layer) never set it
    out["startup"] = bool(request.get("startup", True))
    _launcher_log_level()
    if recorder.enabled:
        patch_environ(recorder)
        patch_logging(recorder)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    started = time.perf_counter()
    try:
        PROFILES[request["framework"]](list(request["argv"]), recorder, out)
        out["status"] = "ok"
    except SystemExit as exc:
        out["status"] = "raised"
        out["exception"] = {"type": "SystemExit", "message": str(exc.code), "at": None, "traceback": []}
    except BaseException as exc:  # the framework's validation errors are the point
        tb = traceback.extract_tb(exc.__traceback__)
        frames = [f"{rel(f.filename)}:{f.lineno} {f.name}" for f in tb]
        last = tb[-1] if tb else None
        site = raise_frame(exc, request["framework"]) or last
        validation = (
            isinstance(exc, (ValueError, AssertionError))
            or type(exc).__name__ == "ValidationError"
            or bool(out.get("refused"))  # a start-up step's own kind of refusal (startup_steps.run_step)
        )
        out["status"] = "raised" if validation else "crashed"
        out["exception"] = {
            "type": type(exc).__name__,
            "module": type(exc).__module__,
            "message": str(exc)[:8000],
            "at": f"{rel(site.filename)}:{site.lineno}" if site else None,
            "function": site.name if site else None,
            "traceback": frames[-12:],
        }
        if site is not None and site.lineno is not None:
            out["exception"].update(raise_condition(rel(site.filename), site.lineno))
    finally:
        recorder.active = False
        sys.stdout = real_stdout
    finish_steps(out)
    out["timings"]["total"] = time.perf_counter() - started
    annotate_conditions(recorder.writes)
    out["writes"] = recorder.writes
    out["declarations"] = recorder.declarations
    out["env_writes"] = recorder.env_writes
    out["logs"] = recorder.logs
    try:
        import importlib.metadata as md

        out["version"] = md.version(request["framework"])
    except Exception:
        out["version"] = None
    text = json.dumps(out, default=lambda o: {"repr": repr(o)[:MAX_REPR]})
    with open(out_path, "w") as fh:
        fh.write(text)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
