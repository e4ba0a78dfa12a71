# mypy: ignore-errors
"""argtrace stub: torchvision is never installed in a resolver environment (it drags in a CUDA torch).

Every ``torchvision.*`` submodule imports, and every attribute is a placeholder that can be looked up,
subscripted and used as a dict key or base class, but raises when called. Enough for the frameworks'
argument/config modules and for transformers' import-time checks; never for running a model.
"""

import importlib.abc
import importlib.machinery
import sys

ARGTRACE_STUB = True
# transformers compares this version at import time; a real release number keeps its checks on the
# common path. Nothing of torchvision is usable: every attribute raises when called.
__version__ = "0.29.0"


class _AnythingMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _make(f"{cls.__qualname__}.{name}")

    def __call__(cls, *args, **kwargs):
        raise RuntimeError(f"torchvision {cls.__qualname__} is an argtrace import stub")

    def __getitem__(cls, item):
        return cls

    def __or__(cls, other):
        return cls

    __ror__ = __or__


def _make(name):
    return _AnythingMeta(name, (), {"__qualname__": name, "__module__": "torchvision"})


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _make(name)


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__path__ = []
        module.ARGTRACE_STUB = True
        module.__getattr__ = __getattr__


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith("torchvision."):
            return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)
        return None


if not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.insert(0, _Finder())
