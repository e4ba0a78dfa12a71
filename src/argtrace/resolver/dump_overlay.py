"""Dump the parser of a framework release that has no resolver environment of its own. Runs *inside* another
release's resolver environment (its dependencies), by path, with the release's unpacked wheel first on
``PYTHONPATH`` (after the stubs):

    <env>/bin/python dump_overlay.py sglang|vllm --out FILE

The unpacked release shadows the environment's own copy of the framework. A third-party module the release
imports but the environment lacks (``xgrammar`` for SGLang 0.5.19 over the 0.5.23 environment) is served as
a placeholder module (the stubs' "anything" module: attributes resolve, calls raise), and the list of those
modules goes into the dump (``stubbed_modules``) so the schema says what was faked. Stdlib only.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STUBBED: list[str] = []
# Never faked: the framework itself (a missing submodule of the release is a real error) and the stdlib.
# Nor the modules whose mere presence tells vLLM which accelerator it runs on (its platform plugins probe
# them): a placeholder would make it see a TPU next to the fake CUDA GPU and refuse to start.
NEVER = frozenset(
    {
        "sglang",
        "vllm",
        "torch",
        "libtpu",
        "tpu_info",
        "torch_xla",
        "jax",
        "amdsmi",
        "intel_extension_for_pytorch",
        "oneccl_bindings_for_pytorch",
        "transformers_neuronx",
        "neuronx_distributed",
        "neuronx_distributed_inference",  # vLLM 0.9 probes it for its Neuron platform
        "torch_neuronx",
        "habana_frameworks",
        "vllm_hpu_extension",
        "torch_npu",
        "vllm_ascend",
        "tpu_inference",
        "vllm_tpu",
        "zentorch",
    }
)


class _Placeholder(type):
    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Placeholder(
            f"{cls.__qualname__}.{name}", (), {"__qualname__": name, "__module__": cls.__module__}
        )

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"{cls.__module__}.{cls.__qualname__} is an argtrace overlay placeholder")

    def __getitem__(cls, item: Any) -> Any:
        return cls

    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        # a placeholder used as a pydantic field type (xgrammar.StructuralTag in a protocol model)
        from pydantic_core import core_schema

        return core_schema.any_schema()

    def __or__(cls, other: Any) -> Any:
        return cls

    __ror__ = __or__


class _MissingLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        name = module.__name__
        root = name.split(".")[0]
        if root not in STUBBED:  # recorded when imported, not when merely probed (see _probe_find_spec)
            STUBBED.append(root)
        module.__path__ = []
        module.__dict__["ARGTRACE_OVERLAY_PLACEHOLDER"] = True

        def __getattr__(attr: str) -> Any:
            if attr.startswith("__"):
                raise AttributeError(attr)
            return _Placeholder(attr, (), {"__qualname__": attr, "__module__": name})

        setattr(module, "__getattr__", __getattr__)  # noqa: B010 (a module-level __getattr__, PEP 562)


def _imported_by_release() -> bool:
    """True when the import statement being run is in the release's own files (the overlay directory)."""
    return _called_from_release(2)


RELEASE_DIRS: list[str] = []
_THIS_FILE = __file__


def _called_from_release(depth: int) -> bool:
    """True when the code ``depth`` frames up (past importlib's own frames) is in the release's files."""
    frame = sys._getframe(depth + 1)
    while frame is not None:
        filename = frame.f_code.co_filename
        # importlib's frames and this file's own import wrapper (placeholder_missing_names) are skipped
        if not filename.startswith("<frozen") and "importlib" not in filename and filename != _THIS_FILE:
            return any(filename.startswith(p) for p in RELEASE_DIRS)
        frame = frame.f_back  # type: ignore[assignment]
    return False


def hide_placeholders_from_probes() -> None:
    """``importlib.util.find_spec`` answers "not installed" for a placeholder unless the release asks.

    Why: once the release has imported a missing module (``torchcodec`` for SGLang 0.5.14-0.5.18), the
    placeholder sits in ``sys.modules`` and a dependency's availability probe finds it. transformers 5.x
    then reads ``importlib.metadata.version("torchcodec")`` at import of ``audio_utils`` and fails, which
    surfaces as "Could not import module 'AutoProcessor'" in the release's ``configs/deepseekvl2.py``. The
    module is in fact not installed, which is what the probe now hears (as the MissingFinder already
    answers a dependency's import of a module the release never imported)."""
    import importlib.util

    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> importlib.machinery.ModuleSpec | None:
        if name.split(".")[0] in STUBBED and not _called_from_release(1):
            return None
        return real_find_spec(name, package)

    importlib.util.find_spec = find_spec


def tolerate_reregistered_model_types() -> None:
    """Let the release register a transformers Auto* name the environment's newer transformers already has.

    Why: the environment's transformers (5.19 in the SGLang 0.5.23 environment) ships configs that older
    releases registered themselves (``AutoConfig.register("qwen3_asr", ...)`` in SGLang 0.5.14-0.5.18), and
    ``register`` raises "'qwen3_asr' is already used by a Transformers config". Under the release's own pin
    the name was free, so the release's class wins here as it would there (``exist_ok=True``). Only the
    two base mappings are patched: every ``Auto*.register`` ends in one of them."""
    try:
        from transformers.models.auto import auto_factory, configuration_auto
    except Exception:  # no transformers, or one that will not import: nothing to tolerate
        return
    for cls in (
        getattr(configuration_auto, "_LazyConfigMapping", None),
        getattr(auto_factory, "_LazyAutoMapping", None),
    ):
        real = getattr(cls, "register", None)
        if real is None:
            continue

        def register(self: Any, key: Any, value: Any, exist_ok: bool = False, _real: Any = real) -> None:
            _real(self, key, value, exist_ok=True)

        setattr(cls, "register", register)  # noqa: B010 (cls may be None to mypy; checked above)
    # SGLang 0.4.x calls AutoImageProcessor.register(config, None, processor, None, exist_ok=True), the
    # signature of its pinned transformers; the environment's takes fewer positional arguments and raises
    # TypeError at import. A processor registration is never used by the parser: such a call is skipped,
    # and listed in stubbed_modules as the function it faked.
    try:
        import transformers
    except Exception:
        return
    for auto in ("AutoImageProcessor", "AutoProcessor", "AutoTokenizer", "AutoFeatureExtractor"):
        try:
            owner = getattr(transformers, auto)
        except Exception:
            continue
        real_register = owner.__dict__.get("register")
        if not isinstance(real_register, staticmethod):
            continue

        def safe_register(
            *args: Any, _real: Any = real_register.__func__, _name: str = auto, **kw: Any
        ) -> Any:
            try:
                return _real(*args, **kw)
            except TypeError:
                STUBBED_NAMES.append(f"transformers.{_name}.register")
                return None

        setattr(owner, "register", staticmethod(safe_register))  # noqa: B010


STUBBED_NAMES: list[str] = []  # "module.name": names the release imports that the module no longer has


def placeholder_missing_names() -> None:
    """``from M import name`` in the release's own files, where the dependency ``M`` exists but no longer
    has ``name``, binds a placeholder (listed in ``stubbed_modules`` as ``M.name``).

    Why: SGLang 0.4.0-0.4.8 import ``default_cache_dir`` from ``triton.runtime.cache``, which the
    environment's newer triton dropped, and the whole server-args module fails to import over it. Only
    imports made by the release, from modules outside it, and names the module (or its submodules) cannot
    give are faked; the release's own modules never are."""
    import builtins

    real_import = builtins.__import__

    def import_(
        name: str,
        globals: dict[str, Any] | None = None,
        locals: Any = None,
        fromlist: Any = (),
        level: int = 0,
    ) -> Any:
        module = real_import(name, globals, locals, fromlist, level)
        if not fromlist or level or not globals:
            return module
        importer = str(globals.get("__file__") or "")
        if not any(importer.startswith(p) for p in RELEASE_DIRS):
            return module
        mod_name = getattr(module, "__name__", name)
        if mod_name.split(".")[0] in NEVER or getattr(module, "ARGTRACE_OVERLAY_PLACEHOLDER", False):
            return module
        for attr in fromlist:
            if attr == "*" or hasattr(module, attr):
                continue
            try:
                real_import(f"{mod_name}.{attr}")  # a submodule: `from pkg import sub`
                continue
            except ImportError:
                pass
            setattr(module, attr, _Placeholder(attr, (), {"__qualname__": attr, "__module__": mod_name}))
            STUBBED_NAMES.append(f"{mod_name}.{attr}")
        return module

    builtins.__import__ = import_  # type: ignore[assignment]


class MissingFinder(importlib.abc.MetaPathFinder):
    """Last on ``sys.meta_path``: only names no other finder found reach it."""

    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        root = fullname.split(".")[0]
        if root in NEVER or root in sys.stdlib_module_names or root.startswith("_"):
            return None
        if not _imported_by_release():
            return None  # a dependency probing for an optional module (requests -> chardet) gets ImportError
        return importlib.machinery.ModuleSpec(fullname, _MissingLoader(), is_package=True)


_REAL_FIND_SPEC = importlib.util.find_spec


def _probe_find_spec(name: str, package: str | None = None) -> importlib.machinery.ModuleSpec | None:
    """``importlib.util.find_spec`` that reports a placeholder as absent, as it really is here. Code asks it
    "is the optional package installed?" and then uses the package for real: vLLM 0.15-0.19's
    ``has_triton_kernels`` reads ``triton_kernels.__file__``, and mistral_common (under vLLM 0.26-0.28)
    calls ``soundfile.available_formats()`` once the release has imported the ``soundfile`` placeholder.
    A plain ``import`` by the release still gets the placeholder."""
    spec = _REAL_FIND_SPEC(name, package)
    if spec is not None and isinstance(spec.loader, _MissingLoader):
        return None
    return spec


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import dump_parser  # the same dumper a full environment runs

    RELEASE_DIRS.extend(
        os.path.join(p, "") for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)[1:2] if p
    )  # the unpacked release: the entry right after the stubs
    sys.meta_path.append(MissingFinder())
    if sys.argv[1] == "vllm":
        # vLLM's own availability probes then use the package (0.15-0.19 has_triton_kernels reads
        # __file__): a placeholder is absent to every probe
        importlib.util.find_spec = _probe_find_spec
    else:
        hide_placeholders_from_probes()  # SGLang's own probes still find what it imported
    placeholder_missing_names()
    tolerate_reregistered_model_types()
    site_rel = dump_parser.rel

    def rel(path: str) -> str:  # the release's files are named as in site-packages: sglang/srt/...
        for prefix in RELEASE_DIRS:
            if path.startswith(prefix):
                return path[len(prefix) :]
        return site_rel(path)

    dump_parser.rel = rel
    out = sys.argv[sys.argv.index("--out") + 1]
    framework = sys.argv[1]
    real_exit = os._exit

    def finish(code: int) -> None:  # dump_parser ends with os._exit: add the placeholders first
        data = json.loads(open(out).read())
        data["stubbed_modules"] = sorted(STUBBED) + sorted(set(STUBBED_NAMES))
        with open(out, "w") as fh:
            fh.write(json.dumps(data))
        real_exit(code)

    os._exit = finish  # type: ignore[assignment]
    return dump_parser.main([framework, "--out", out])


if __name__ == "__main__":
    sys.exit(main())
