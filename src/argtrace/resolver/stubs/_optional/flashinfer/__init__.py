# mypy: ignore-errors
"""argtrace stub: flashinfer. Present when the GPU profile says flashinfer is installed on the target node
(``"flashinfer": true``); the import hook in ``_argtrace_stubs`` hides it otherwise, because the frameworks
choose backends by whether it imports. Every submodule imports; every attribute raises when called."""

from _argtrace_stubs import module_getattr

__version__ = "0.6.0"
ARGTRACE_STUB = True
__getattr__ = module_getattr(__name__)
