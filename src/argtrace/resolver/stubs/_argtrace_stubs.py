# mypy: ignore-errors
"""Import hooks and the fake GPU for resolver environments (stdlib at module top; torch imported lazily).

``ARGTRACE_FAKE_GPU`` holds a JSON GPU profile::

    {"name": "h100", "product": "NVIDIA H100 80GB HBM3", "vendor": "nvidia", "count": 4,
     "memory": 85520809984, "free": 84900000000, "capability": [9, 0], "sm_count": 132,
     "flashinfer": true, "cuda": "12.8", "driver": "570.124.06"}

What is faked is what the frameworks read to decide defaults: ``torch.cuda`` availability, device count,
capability, name, properties, free/total memory, ``torch.version.cuda``; never ``torch.cuda._is_compiled``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import types

# CUDA extension modules inside the frameworks' own packages: replaced by empty modules.
EMPTY_MODULES = (
    "vllm._C",
    "vllm._C_stable_libtorch",
    "vllm._moe_C",
    "vllm._moe_C_stable_libtorch",
    "vllm._qutlass_C",
    "vllm._flashmla_C",
    "vllm._flashmla_extension_C",
    "vllm.cumem_allocator",
    "vllm._rocm_C",
)
# Stub packages that exist only when the GPU profile says the node has them (served from ``_optional/``,
# which is not on sys.path, so a hidden one is simply absent).
OPTIONAL_PACKAGES = ("flashinfer",)
# ROCm kernel libraries, present (as placeholders) only for an AMD profile.
AMD_PACKAGES = ("aiter",)
# NVML bindings answered by the fake NVML when a fake NVIDIA GPU is installed.
FAKE_NVML_NAMES = ("vllm.third_party.pynvml", "pynvml")
# Stub packages (real files in this directory) whose every submodule imports and whose every attribute is a
# placeholder: ``from flashinfer.fp4_quantization import fp4_quantize`` works, calling it raises.
ANYTHING_PACKAGES = ("torchvision", "sgl_kernel", "flashinfer")
# Packages replaced by a module whose every attribute is a function that raises when called.
CALL_STUB_PACKAGES = ("vllm.vllm_flash_attn",)


def profile(raw: str | None = None) -> dict | None:
    """The GPU profile ``raw`` holds (by default ``ARGTRACE_FAKE_GPU``), or None."""
    raw = os.environ.get("ARGTRACE_FAKE_GPU") if raw is None else raw
    if not raw:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


# The profile every fake answer reads, at the moment it is asked (never copied at install): a resolver host
# (resolver/host_main.py) imports the framework with one profile, and each forked child may switch to its
# own run's profile (``switch_profile``). ``reads`` is, while a host imports, the set of the profile's fields
# any fake answer gave out: the host reports them, and serves another profile only when it has the same
# value for every one of them (what the import computed from the GPU is then what a fresh start computes).
# Fields read when the stubs install, which decide which modules exist and torch's version attributes,
# are the STRUCTURAL ones: a host never changes them (resolver/hosts.py keys hosts on them).
STRUCTURAL = ("vendor", "flashinfer", "cuda", "hip")
_STATE: dict = {"profile": None, "reads": None}


def field(name: str, default=None):
    """``name`` of the current profile (``default`` when absent), noted while a host's import records."""
    prof = _STATE["profile"]
    if prof is None:
        prof = profile() or {}
    reads = _STATE["reads"]
    if reads is not None:
        reads.add(name)
    return prof.get(name, default)


def has_profile() -> bool:
    return bool(_STATE["profile"] if _STATE["profile"] is not None else profile())


def record_reads() -> None:
    """Start noting which profile fields the fake answers give out (a host, before its import step)."""
    _STATE["reads"] = set()


def recorded_reads() -> list[str]:
    """The fields noted since ``record_reads`` (and stop noting)."""
    reads, _STATE["reads"] = _STATE["reads"] or set(), None
    return sorted(reads)


def switch_profile(raw: str) -> bool:
    """Answer from the profile ``raw`` from now on (a host's forked child, for its run's ``--gpu``): the
    environment variable (the fake nvidia-smi and any subprocess read it), every fake answer, and the caches
    argtrace's own replacements keep. Only a profile with the same STRUCTURAL fields may be switched to
    (resolver/hosts.py never asks otherwise); False, and nothing changed, when it differs there."""
    new = profile(raw)
    old = _STATE["profile"]
    if new is None or old is None or any(new.get(k) != old.get(k) for k in STRUCTURAL):
        return False
    os.environ["ARGTRACE_FAKE_GPU"] = raw
    _STATE["profile"] = new
    for cached in _OWN_CACHES:
        cached.cache_clear()
    return True


_OWN_CACHES: list = []  # lru_cache'd functions of argtrace's own that answer from the profile


class _StubLoader(importlib.abc.Loader):
    def __init__(self, kind: str) -> None:
        self.kind = kind

    def create_module(self, spec):
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        module.ARGTRACE_STUB = True  # type: ignore[attr-defined]
        if self.kind == "package":
            module.__path__ = []  # type: ignore[attr-defined]

            def __getattr__(name: str):
                if name.startswith("__"):
                    raise AttributeError(name)

                def _unavailable(*_a, **_k):
                    raise RuntimeError(f"{module.__name__}.{name} is an argtrace import stub")

                return _unavailable

            module.__getattr__ = __getattr__  # type: ignore[attr-defined]


class _AnythingMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return anything(f"{cls.__qualname__}.{name}", cls.__module__)

    def __call__(cls, *args, **kwargs):
        raise RuntimeError(f"{cls.__module__}.{cls.__qualname__} is an argtrace import stub")

    def __getitem__(cls, item):
        return cls

    def __or__(cls, other):
        return cls

    __ror__ = __or__


def anything(name: str, module: str):
    """A placeholder usable as attribute, base class, dict key or annotation; raises when called."""
    return _AnythingMeta(name, (), {"__qualname__": name, "__module__": module})


def module_getattr(module_name: str):
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return anything(name, module_name)

    return __getattr__


class _AnythingLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        module.__path__ = []
        module.ARGTRACE_STUB = True
        module.__getattr__ = module_getattr(module.__name__)


class _AliasLoader(importlib.abc.Loader):
    """Loads another module's code under the requested name (so ``pynvml`` is the fake NVML)."""

    def __init__(self, source: str) -> None:
        self.source = source

    def create_module(self, spec):
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        import importlib

        src = importlib.import_module(self.source)
        module.__dict__.update({k: v for k, v in vars(src).items() if not k.startswith("__")})
        if getattr(src, "__file__", None):  # vLLM 0.6 reads pynvml.__file__ (the deprecated-package check)
            module.__file__ = src.__file__
        module.ARGTRACE_STUB = True  # type: ignore[attr-defined]


class StubFinder(importlib.abc.MetaPathFinder):
    """Serves empty modules for the frameworks' CUDA extensions; hides flashinfer when the profile says
    the target node has none."""

    def __init__(self, hide: tuple[str, ...], fake_nvml: bool = False, amd: bool = False) -> None:
        self.hide = hide
        self.fake_nvml = fake_nvml
        self.amd_packages = AMD_PACKAGES if amd else ()

    def find_spec(self, fullname, path=None, target=None):
        root = fullname.split(".")[0]
        if root in self.hide:
            return None  # not installed on the target node: find_spec() is None, import fails as usual
        if fullname in OPTIONAL_PACKAGES:
            here = os.path.dirname(os.path.abspath(__file__))
            init = os.path.join(here, "_optional", fullname, "__init__.py")
            return importlib.util.spec_from_file_location(
                fullname, init, submodule_search_locations=[os.path.dirname(init)]
            )
        if self.fake_nvml and fullname in FAKE_NVML_NAMES:
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader("_argtrace_fake_nvml"))
        if fullname in EMPTY_MODULES:
            return importlib.machinery.ModuleSpec(fullname, _StubLoader("module"))
        if root in self.amd_packages:
            return importlib.machinery.ModuleSpec(fullname, _AnythingLoader(), is_package=True)
        if root in ANYTHING_PACKAGES and "." in fullname:
            return importlib.machinery.ModuleSpec(fullname, _AnythingLoader(), is_package=True)
        for pkg in CALL_STUB_PACKAGES:
            if fullname == pkg or fullname.startswith(pkg + "."):
                return importlib.machinery.ModuleSpec(fullname, _StubLoader("package"), is_package=True)
        return None


def install() -> None:
    prof = profile()
    hide: tuple[str, ...] = ()
    if prof is not None and not prof.get("flashinfer", True):
        hide = ("flashinfer",)
    fake_nvml = prof is not None and prof.get("vendor", "nvidia") == "nvidia"
    if not any(isinstance(f, StubFinder) for f in sys.meta_path):
        amd = prof is not None and prof.get("vendor") == "amd"
        sys.meta_path.insert(0, StubFinder(hide, fake_nvml, amd))
    if prof is not None:
        import importlib.util

        if importlib.util.find_spec("torch") is not None:  # not in helper interpreters (nvidia-smi)
            install_fake_gpu(prof)
            no_op_compile()


def no_op_compile() -> None:
    """``torch.compile`` as the identity: resolution never runs a compiled function, but SGLang's
    quantization modules call it at import (``moe_runner/deep_gemm.py``), which imports and sets up
    dynamo: about 4-5 s of every resolution. The function it is given is returned as it is (the decorator
    form ``torch.compile(dynamic=True)`` returns the identity decorator), which is what the function
    computes anyway. The cross-check tests (tests/test_resolution.py, ``frameworks``) prove the resolved
    values still equal the launcher's ``server_args=`` line. ``ARGTRACE_STUB_COMPILE=0`` keeps the real one
    (bench/resolver_overhead.py measures both)."""
    if os.environ.get("ARGTRACE_STUB_COMPILE", "1") == "0":
        return
    import torch

    def compile(model=None, **_options):  # torch's own name, on purpose
        if model is None:
            return lambda fn: fn
        return model

    compile.argtrace_stub = True
    torch.compile = compile


def _capability() -> tuple[int, ...]:
    return tuple(int(x) for x in (field("capability") or [9, 0]))


def _device_name() -> str:
    return field("product") or field("name") or "NVIDIA H100 80GB HBM3"


class FakeDeviceProperties:
    def __init__(self, index: int) -> None:
        cap = _capability()
        self.name = _device_name()
        self.total_memory = int(field("memory", 80 * 2**30))
        self.major = int(cap[0])
        self.minor = int(cap[1])
        self.multi_processor_count = int(field("sm_count", 132))
        self.is_integrated = False
        self.is_multi_gpu_board = False
        self.uuid = f"GPU-argtrace-fake-{index:04d}"
        self.L2_cache_size = int(field("l2_cache", 50 * 2**20))
        self.warp_size = 64 if field("vendor") == "amd" else 32
        self.gcnArchName = field("gcn_arch", "gfx942") if field("vendor") == "amd" else "NVIDIA"
        self.max_threads_per_multi_processor = 2048
        self.regs_per_multiprocessor = 65536
        self.shared_memory_per_block_optin = 232448

    def __repr__(self) -> str:
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // 2**20}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def install_fake_gpu(prof: dict) -> None:
    """The fake ``torch.cuda``: every answer reads the current profile when asked (``field``), so a host's
    child that switched profile answers for its own GPU."""
    import torch

    _STATE["profile"] = prof

    def count() -> int:
        return int(field("count", 1))

    def mem_get_info(device=None) -> tuple[int, int]:
        total = int(field("memory", 80 * 2**30))
        return int(field("free", total)), total

    state = {"device": 0}
    cuda = torch.cuda

    def _index(device=None) -> int:
        if device is None:
            return state["device"]
        if isinstance(device, int):
            return device
        idx = getattr(device, "index", None)
        if isinstance(device, str) and ":" in device:
            return int(device.split(":")[1])
        return idx or 0

    cuda.is_available = lambda: True
    # NVML's raw answers, so torch's own ``_device_count_nvml`` applies CUDA_VISIBLE_DEVICES (ordinals,
    # UUIDs, a trailing invalid entry) exactly as on the node; ``device_count`` goes through it as a CUDA
    # build of torch does when NVML works.
    cuda._raw_device_count_nvml = count
    cuda._raw_device_uuid_nvml = lambda: [f"GPU-argtrace-fake-{i:04d}" for i in range(count())]

    def device_count() -> int:
        visible = cuda._device_count_nvml() if hasattr(cuda, "_device_count_nvml") else count()
        return count() if visible < 0 else visible

    cuda.device_count = device_count
    cuda.get_device_capability = lambda device=None: _capability()
    cuda.get_device_name = lambda device=None: _device_name()
    cuda.get_device_properties = lambda device=None: FakeDeviceProperties(_index(device))
    cuda.mem_get_info = mem_get_info
    cuda.current_device = lambda: state["device"]
    cuda.set_device = lambda device: state.__setitem__("device", _index(device))
    cuda.is_initialized = lambda: True
    cuda.init = lambda: None
    cuda.synchronize = lambda device=None: None
    cuda.empty_cache = lambda: None
    cuda.memory_allocated = lambda device=None: 0
    cuda.max_memory_allocated = lambda device=None: 0
    cuda.memory_reserved = lambda device=None: 0
    cuda.is_bf16_supported = lambda including_emulation=True: _capability() >= (8, 0)
    cuda.get_arch_list = lambda: ["sm_{}{}".format(*_capability())]
    if prof.get("vendor") == "amd":
        torch.version.hip = prof.get("hip", "6.3.42131")  # type: ignore[attr-defined]
        torch.version.cuda = None  # type: ignore[assignment]
    else:
        torch.version.cuda = prof.get("cuda", "12.8")  # type: ignore[assignment]
    import importlib.util

    if importlib.util.find_spec("vllm") is not None:
        for namespace in VLLM_OP_NAMESPACES:
            setattr(torch.ops, namespace, _DummyOpNamespace(namespace))
        _tolerant_register_fake(torch, VLLM_OP_NAMESPACES)
        _fake_triton_driver()
        if prof.get("vendor", "nvidia") == "nvidia":
            after_import("vllm.platforms.cuda", _vllm_device_count)
    if importlib.util.find_spec("sglang") is not None:
        # SGLang registers fake kernels for the stubbed sgl_kernel ops at import on CUDA (0.5.10.post1
        # srt/layers/moe/topk.py:1118, reached by the launcher's srt/entrypoints/engine.py)
        _tolerant_register_fake(torch, SGLANG_OP_NAMESPACES)
    os.environ.setdefault("ARGTRACE_FAKE_GPU_INSTALLED", "1")


def _vllm_device_count(module: types.ModuleType) -> None:
    """vLLM counts GPUs with ``_cuda_device_count_stateless`` (vllm/platforms/cuda.py:58), which returns 0
    when ``torch.cuda._is_compiled()`` is false (a CPU build of torch) and otherwise
    ``torch.cuda._device_count_nvml()``. ``_is_compiled`` is never faked (other code would then call into
    CUDA), so this one function is replaced by its CUDA-build branch: the count torch derives from the
    fake NVML and CUDA_VISIBLE_DEVICES. Without it every TP > 1 launch fails with "World size (N) is larger
    than the number of available GPUs (0)" (vllm/config/parallel.py)."""
    import functools

    import torch

    original = getattr(module, "_cuda_device_count_stateless", None)
    if original is None:
        return

    @functools.lru_cache(maxsize=8)
    def _cuda_device_count_stateless(cuda_visible_devices=None) -> int:
        raw = torch.cuda._device_count_nvml()
        return raw if raw >= 0 else 0

    _cuda_device_count_stateless.argtrace_replaces = original
    module._cuda_device_count_stateless = _cuda_device_count_stateless
    _OWN_CACHES.append(_cuda_device_count_stateless)  # a host's child that switches profile clears it


_AFTER_IMPORT: dict = {}


def after_import(name: str, hook) -> None:
    """Run ``hook(module)`` right after the real module ``name`` is executed (or now, if it already is)."""
    if name in sys.modules:
        hook(sys.modules[name])
        return
    _AFTER_IMPORT.setdefault(name, []).append(hook)
    if not any(isinstance(f, _AfterImportFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImportFinder())


class _AfterImportFinder(importlib.abc.MetaPathFinder):
    """Finds the real module with the other finders and wraps its loader's ``exec_module``."""

    def find_spec(self, fullname, path=None, target=None):
        hooks = _AFTER_IMPORT.get(fullname)
        if not hooks:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                break
        else:
            return None
        loader = spec.loader
        real_exec = loader.exec_module

        class _Wrapped(importlib.abc.Loader):
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                real_exec(module)
                for hook in _AFTER_IMPORT.pop(fullname, ()):
                    hook(module)

        spec.loader = _Wrapped()
        return spec


# vLLM's custom-op namespaces (registered by its CUDA extensions, which are stubbed): every op exists and
# returns False when called, which is what the capability queries vLLM makes at import time need.
SGLANG_OP_NAMESPACES = ("sgl_kernel",)
VLLM_OP_NAMESPACES = (
    "_C",
    "_moe_C",
    "_C_cache_ops",
    "_C_custom_ar",
    "_vllm_fa2_C",
    "_vllm_fa3_C",
    "_flashmla_C",
    "_flashmla_extension_C",
    "_qutlass_C",
    "_rocm_C",
)


def _fake_triton_driver() -> None:
    """triton's active driver answers for the fake GPU (vLLM's FLA kernels ask it for the platform at
    import time; the real NVIDIA driver needs libcuda)."""
    try:
        import triton.runtime.driver  # noqa: F401  (the package attribute is the DriverConfig)
        from triton.backends.compiler import GPUTarget
    except Exception:
        return
    trd = sys.modules["triton.runtime.driver"]

    def amd() -> bool:
        return field("vendor") == "amd"

    def props(device=0) -> dict:
        return {
            "max_shared_mem": 232448,
            "multiprocessor_count": int(field("sm_count", 132)),
            "max_num_regs": 65536,
            "warpSize": 64 if amd() else 32,
            "sm_clock_rate": 1980000,
            "mem_clock_rate": 2619000,
            "mem_bus_width": 5120,
        }

    class FakeTritonDriver:
        def __init__(self) -> None:
            self.utils = types.SimpleNamespace(get_device_properties=props)

        def get_current_target(self):
            if amd():
                return GPUTarget("hip", field("gcn_arch", "gfx942"), 64)
            cap = _capability()
            return GPUTarget("cuda", int(cap[0]) * 10 + int(cap[1]), 32)

        def get_current_device(self):
            return 0

        def set_current_device(self, device):
            return None

        def get_current_stream(self, device=None):
            return 0

        def get_active_torch_device(self):
            import torch

            return torch.device("cuda", 0)

        def get_device_interface(self):
            import torch

            return torch.cuda

        def is_active(self):
            return True

    fake = FakeTritonDriver()
    driver = trd.driver
    driver._default = fake
    driver._active = fake


def _tolerant_register_fake(torch, namespaces: tuple) -> None:
    """``register_fake("_C::op")`` for a stubbed op namespace registers nothing (the op does not exist in
    the dispatcher); every other registration goes through."""
    import torch.library as tl

    orig = tl.register_fake

    def register_fake(op, *args, **kwargs):
        name = op if isinstance(op, str) else ""
        if name.split("::", 1)[0] in namespaces:
            if args and callable(args[0]):
                return args[0]
            return lambda fn: fn
        return orig(op, *args, **kwargs)

    tl.register_fake = register_fake
    if hasattr(tl, "impl_abstract"):
        tl.impl_abstract = register_fake


class _DummyOpNamespace:
    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, op: str):
        if op.startswith("__"):
            raise AttributeError(op)

        return _DummyOp(f"{self._name}::{op}")


class _DummyOp:
    """An op packet: callable (returns False) and every overload (``.default``, ``.out``, ...) is itself
    (vLLM's fusion passes read ``torch.ops._C.scaled_fp4_quant.out`` once TP > 1 reaches them)."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __call__(self, *_args, **_kwargs):
        return False

    def __getattr__(self, overload: str):
        if overload.startswith("__"):
            raise AttributeError(overload)
        return self
