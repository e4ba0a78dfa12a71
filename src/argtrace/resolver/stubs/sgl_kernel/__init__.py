# mypy: ignore-errors
"""argtrace stub: sgl_kernel (SGLang's CUDA kernels) cannot load without a GPU.

Every submodule imports (see ``_argtrace_stubs.ANYTHING_PACKAGES``); every attribute is a placeholder that
raises when called."""

from _argtrace_stubs import module_getattr

__version__ = "0.3.21"
ARGTRACE_STUB = True
__getattr__ = module_getattr(__name__)
