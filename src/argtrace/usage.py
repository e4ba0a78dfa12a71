"""Options every command shares, checked before any work: one clear line and exit 2 for a bad one.

``--gpu`` must name a known profile (the message lists them), ``--framework-version`` must be a version
(PEP 440 shape, as release tags are written), ``--model-config`` must hold a model's ``config.json``.
"""

from __future__ import annotations

from pathlib import Path

from argtrace.model import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: `log`'s plain words are read without argparse (quick_argv.py)
    import argparse


def check_common_options(args: argparse.Namespace, *, remote: bool) -> None:
    """Raise ``UsageError`` for the first bad shared option in ``args`` (those it does not have are skipped).
    Under ``--host`` the model config is the node's, read later by the command itself."""
    gpu = getattr(args, "gpu", None)
    if isinstance(gpu, str):
        from argtrace.gpus import parse_gpu_spec

        try:
            parse_gpu_spec(gpu)
        except ValueError as exc:
            raise UsageError(f"--gpu: {exc}") from None
    version = getattr(args, "framework_version", None)
    if isinstance(version, str):
        from argtrace.frameworks.schema import is_version

        if not is_version(version):
            raise UsageError(
                f"--framework-version {version!r} is not a release version (e.g. 0.5.10.post1, 0.11.0)"
            )
    model_config = getattr(args, "model_config", None)
    if isinstance(model_config, str) and not remote:
        model_config_file(model_config)


def model_config_file(text: str) -> dict[str, object]:
    """The JSON object of the ``config.json`` that ``--model-config DIR|config.json`` names, checked to hold
    a model config (read as the memory layer reads it: never a FIFO, a device or an endless file)."""
    from argtrace.layers.memory.config import ConfigError, load_config

    try:
        data = load_config(Path(text))
    except ConfigError as exc:
        raise UsageError(f"--model-config {exc}") from None
    if not any(k in data for k in ("architectures", "model_type", "text_config")):
        raise UsageError(f"--model-config {text}: holds no model config (no `architectures` or `model_type`)")
    return data
