"""``argtrace --host NODE check``: the model's ``config.json`` is the node's.

The resolution layer runs the framework's own argument code here, on a copy of the node's ``config.json``
(never weights; the memory layer also gets ``model.safetensors.index.json`` when the node's model directory
has one, for the checkpoint's total size): ``--model-config DIR|config.json`` or the ``--model-path``
directory on the node, else the node's Hugging Face cache snapshot of a repo id (``HF_HUB_CACHE`` /
``HF_HOME`` of the node's session environment, default ``~/.cache/huggingface/hub``). The copy lives in a
private temporary directory removed when argtrace exits.

A framework's own ``--config FILE.yaml`` is the node's file too: :func:`node_file_copy` gives the parser
layer (which reads it) and the resolution layer (whose resolver reads it again, here) the same private copy.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from pathlib import Path

from argtrace.remote.host import Host, HostError

MAX_CONFIG_BYTES = 4 * 1024 * 1024
MAX_INDEX_BYTES = 32 * 1024 * 1024
INDEX = "model.safetensors.index.json"
_COPIES: dict[tuple[str, str], Path] = {}
_FILE_COPIES: dict[tuple[str, str], Path | None] = {}
_ROOT: list[str] = []


def node_model_dir(host: Host, model_config: str | None, model_value: str | None) -> Path | None:
    """A local directory holding a copy of the node's ``config.json`` for this model, or None."""
    if model_config:
        st = _stat(host, model_config)
        if st == "file":
            return _copy(host, model_config)
        if st == "dir":
            return _copy(host, _join(model_config, "config.json"))
        return None
    if not model_value:
        return None
    if _stat(host, _join(model_value, "config.json")) == "file":
        return _copy(host, _join(model_value, "config.json"))
    snapshot = _hf_snapshot(host, model_value)
    return _copy(host, _join(snapshot, "config.json")) if snapshot else None


def _join(directory: str, name: str) -> str:
    return f"{directory.rstrip('/') or '/'}/{name}" if directory != "/" else f"/{name}"


def _stat(host: Host, path: str) -> str | None:
    try:
        st = host.stat(path)
    except HostError as exc:
        if exc.kind in ("not_found", "permission", "not_a_directory", "internal", "os_error"):
            return None
        raise
    return st.type if st.exists else None


def _hf_snapshot(host: Host, repo_id: str) -> str | None:
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo_id):
        return None
    info = host.info()
    env = info.env
    home = env.get("HF_HOME") or _join(info.home or env.get("HOME") or "/root", ".cache/huggingface")
    hub = env.get("HF_HUB_CACHE") or _join(home, "hub")
    repo = _join(hub, "models--" + repo_id.replace("/", "--"))
    try:
        ref = host.read_bytes(_join(repo, "refs/main"), limit=256).decode("utf-8", "replace").strip()
    except HostError:
        ref = ""
    if ref and "/" not in ref and _stat(host, _join(repo, f"snapshots/{ref}/config.json")) == "file":
        return _join(repo, f"snapshots/{ref}")
    try:
        snapshots = sorted(host.listdir(_join(repo, "snapshots")))
    except HostError:
        return None
    for name in reversed(snapshots):
        if _stat(host, _join(repo, f"snapshots/{name}/config.json")) == "file":
            return _join(repo, f"snapshots/{name}")
    return None


# HostError kinds that mean "this file cannot be copied": the caller goes on without it.
_UNREADABLE = ("not_found", "permission", "is_directory", "not_regular", "internal", "os_error")


def _copy(host: Host, config_path: str) -> Path | None:
    key = (host.label, config_path)
    if key in _COPIES:
        return _COPIES[key]
    try:
        data = host.read_bytes(config_path, limit=MAX_CONFIG_BYTES)
    except HostError as exc:
        if exc.kind in _UNREADABLE:
            return None
        raise
    directory = _private_dir()
    (directory / "config.json").write_bytes(data)
    index = _join(config_path.rsplit("/", 1)[0] or "/", INDEX)
    if _stat(host, index) == "file":
        try:
            (directory / INDEX).write_bytes(host.read_bytes(index, limit=MAX_INDEX_BYTES))
        except HostError:
            pass
    _COPIES[key] = directory
    return directory


def node_file_copy(host: Host, path: str, *, limit: int) -> Path | None:
    """A private local copy of the node's file ``path`` (a path on the node, as the server would open it),
    under its own name (frameworks check the suffix); ``None`` when it is not a regular file there or cannot
    be read. One copy per path and host for the whole run."""
    key = (host.label, path)
    if key in _FILE_COPIES:
        return _FILE_COPIES[key]
    copy: Path | None = None
    if _stat(host, path) == "file":
        name = path.rstrip("/").rsplit("/", 1)[-1]
        try:
            data = host.read_bytes(path, limit=limit)
        except HostError as exc:
            if exc.kind not in _UNREADABLE:
                raise
        else:
            if name not in ("", ".", ".."):
                copy = _private_dir() / name
                copy.write_bytes(data)
    _FILE_COPIES[key] = copy
    return copy


def _private_dir() -> Path:
    """A new directory (mode 0700) inside the run's private temporary root."""
    if not _ROOT:
        _ROOT.append(tempfile.mkdtemp(prefix="argtrace-node-models-"))
        atexit.register(shutil.rmtree, _ROOT[0], True)
    directory = Path(tempfile.mkdtemp(dir=_ROOT[0]))
    os.chmod(directory, 0o700)
    return directory
