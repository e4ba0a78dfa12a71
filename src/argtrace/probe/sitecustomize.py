# mypy: ignore-errors
# ruff: noqa: UP031
"""argtrace run probe: record an SGLang/vLLM server start, then exit before the server imports anything.

Copied by ``argtrace run`` into a temporary directory that is put first on ``PYTHONPATH``; active only when
``ARGTRACE_PROBE_DIR`` is set. Every Python process of the launch imports it at start-up (``site``). When
the process is a server start (``python -m sglang.launch_server``, ``sglang serve``, ``vllm serve``,
``python -m vllm.entrypoints.openai.api_server``, ``python -m sglang_router.launch_server`` (SGLang servers
behind the router), vLLM's demo ``python -m vllm.entrypoints.api_server``, ``torchrun ... -m
sglang.launch_server``) it writes one
JSON capture (argv as the kernel has it, environment, cwd, interpreter, Python version, the framework
version installed for this interpreter, read from its metadata without importing it) and ends the process
with ``os._exit``: the framework's own code never runs. Any other Python process continues normally, with
the next ``sitecustomize`` on ``sys.path`` imported as it would have been.

Standard library only, and valid for Python 3.6+: the launch's interpreter is not argtrace's.
"""

import os
import sys

# module -> (framework, entrypoint), as frameworks/detect.py names them; the router's launcher runs SGLang
# servers, so its release is SGLang's
_SERVER_MODULES = {
    "sglang.launch_server": ("sglang", "sglang.launch_server"),
    "sglang_router.launch_server": ("sglang", "sglang_router.launch_server"),
    "vllm.entrypoints.openai.api_server": ("vllm", "vllm.entrypoints.openai.api_server"),
    "vllm.entrypoints.api_server": ("vllm", "vllm.entrypoints.api_server"),
}
_SERVER_SCRIPTS = {
    "sglang/launch_server.py": "sglang.launch_server",
    "sglang_router/launch_server.py": "sglang_router.launch_server",
    "vllm/entrypoints/openai/api_server.py": "vllm.entrypoints.openai.api_server",
    "vllm/entrypoints/api_server.py": "vllm.entrypoints.api_server",
}
_CLI_MODULES = {"sglang.cli.main": "sglang", "vllm.entrypoints.cli.main": "vllm"}
_VALUE_OPTIONS = ("-W", "-X", "--check-hash-based-pycs")


def _cmdline():
    try:
        with open("/proc/self/cmdline", "rb") as fh:
            raw = fh.read()
        words = [w.decode("utf-8", "surrogateescape") for w in raw.split(b"\0")]
        if words and words[-1] == "":
            words.pop()
        if words:
            return words
    except OSError:
        pass
    orig = getattr(sys, "orig_argv", None)
    if orig:
        return list(orig)
    return [sys.executable, *list(sys.argv)]


def _module_or_script(argv):
    """(module, script, index of the first argument after it) for a python argv."""
    i = 1
    while i < len(argv):
        w = argv[i]
        if w == "-m":
            return (argv[i + 1] if i + 1 < len(argv) else None), None, i + 2
        if w.startswith("-m") and not w.startswith("--"):
            return w[2:], None, i + 1
        if w in _VALUE_OPTIONS:
            i += 2
            continue
        if w == "-c" or w == "-":
            return None, None, len(argv)
        if w.startswith("-") and len(w) > 1:
            body = w[1:]
            if w.startswith("--") or body[0] in "WX":
                i += 1
                continue
            if "c" in body:
                return None, None, len(argv)
            if "m" in body:
                rest = body[body.index("m") + 1 :]
                if rest:
                    return rest, None, i + 1
                return (argv[i + 1] if i + 1 < len(argv) else None), None, i + 2
            i += 1
            continue
        return None, w, i + 1
    return None, None, len(argv)


def _server(argv):
    """(framework, entrypoint) when this argv starts a server, else None."""
    module, script, start = _module_or_script(argv)
    rest = argv[start:]
    if module in _SERVER_MODULES:
        return _SERVER_MODULES[module]
    if module in _CLI_MODULES and rest[:1] == ["serve"]:
        return _CLI_MODULES[module], _CLI_MODULES[module] + " serve"
    if module == "torch.distributed.run" or (script and os.path.basename(script) == "torchrun"):
        for k, w in enumerate(rest):
            if w in ("-m", "--module") and k + 1 < len(rest) and rest[k + 1] in _SERVER_MODULES:
                return _SERVER_MODULES[rest[k + 1]]
        return None
    if script:
        base = os.path.basename(script)
        if base in ("sglang", "vllm") and rest[:1] == ["serve"]:
            return base, base + " serve"
        norm = "/" + script.replace(os.sep, "/")
        for tail, module in _SERVER_SCRIPTS.items():
            if norm.endswith("/" + tail):
                return _SERVER_MODULES[module]
    return None


def _framework(name):
    version = location = None
    try:
        from importlib import metadata

        version = metadata.version(name)
    except Exception:
        version = None
    try:
        import importlib.util

        spec = importlib.util.find_spec(name)  # top-level: locates the package without executing it
        if spec is not None:
            location = spec.origin or (list(spec.submodule_search_locations or []) or [None])[0]
    except Exception:
        location = None
    return version, location


def _record(directory, argv, found):
    import json
    import time

    framework, entrypoint = found
    version, location = _framework(framework)
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = None
    record = {
        "via": "sitecustomize",
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "time": time.time(),
        "argv": argv,
        "framework": framework,
        "entrypoint": entrypoint,
        "cwd": cwd,
        "executable": sys.executable,
        "executable_realpath": os.path.realpath(sys.executable) if sys.executable else None,
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "python_version": "%d.%d.%d" % sys.version_info[:3],
        "framework_version": version,
        "framework_location": location,
        "env": dict(os.environ),
        "heavy_modules_loaded": sorted(
            m for m in ("torch", "sglang", "vllm", "transformers") if m in sys.modules
        ),
    }
    captures = os.path.join(directory, "captures")
    try:
        os.makedirs(captures, exist_ok=True)
    except OSError:
        pass
    name = "%d-%d.json" % (int(time.time() * 1e9), os.getpid())
    tmp = os.path.join(captures, "." + name)
    with open(tmp, "w") as fh:
        json.dump(record, fh)
    os.rename(tmp, os.path.join(captures, name))


def _chain():
    """Import the ``sitecustomize`` that this one shadows, as the interpreter would have."""
    here = os.path.dirname(os.path.abspath(__file__))
    saved_path = list(sys.path)
    me = sys.modules.pop("sitecustomize", None)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
        import importlib

        importlib.import_module("sitecustomize")
    except ImportError:
        if me is not None:
            sys.modules["sitecustomize"] = me
    except Exception:
        # A broken sitecustomize elsewhere would have printed its error at start-up: keep going as site does.
        if me is not None:
            sys.modules["sitecustomize"] = me
    finally:
        sys.path[:] = saved_path


def _main():
    directory = os.environ.get("ARGTRACE_PROBE_DIR")
    if directory:
        argv = _cmdline()
        found = _server(argv)
        if found is not None:
            try:
                _record(directory, argv, found)
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                except Exception:
                    pass
                os._exit(0)
    _chain()


_main()
