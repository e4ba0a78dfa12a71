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
    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith("<frozen") and "importlib" not in filename:
            return any(filename.startswith(p) for p in RELEASE_DIRS)
        frame = frame.f_back  # type: ignore[assignment]
    return False


RELEASE_DIRS: list[str] = []


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


def _let_the_release_register_its_configs() -> None:
    """vLLM 0.9 registers configuration classes under names (``AutoConfig.register("aimv2", ...)``) that
    the environment's newer transformers already ships, which raises at import ("'aimv2' is already used by
    a Transformers config"). Over that environment the release's own registration stands, as it did with
    the transformers it was built for (``exist_ok=True``). Only the registration is changed, nothing the
    parser reads."""
    try:
        from transformers.models.auto import configuration_auto
    except Exception:  # no transformers, or one without this class: nothing to adapt
        return
    mapping = getattr(configuration_auto, "_LazyConfigMapping", None)
    real = getattr(mapping, "register", None)
    if mapping is None or real is None:
        return

    def register(self: Any, key: str, value: Any, exist_ok: bool = False) -> None:
        real(self, key, value, exist_ok=True)

    mapping.register = register


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import dump_parser  # the same dumper a full environment runs

    RELEASE_DIRS.extend(
        os.path.join(p, "") for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)[1:2] if p
    )  # the unpacked release: the entry right after the stubs
    sys.meta_path.append(MissingFinder())
    importlib.util.find_spec = _probe_find_spec
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
        data["stubbed_modules"] = sorted(STUBBED)
        with open(out, "w") as fh:
            fh.write(json.dumps(data))
        real_exit(code)

    os._exit = finish  # type: ignore[assignment]
    if framework == "vllm":
        _let_the_release_register_its_configs()
    return dump_parser.main([framework, "--out", out])


if __name__ == "__main__":
    sys.exit(main())
