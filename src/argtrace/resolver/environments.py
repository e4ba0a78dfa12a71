"""Resolver environments: throwaway CPU-only virtual environments holding one framework version.

Layout (under :func:`cache_dir`, default the platformdirs user cache dir ``argtrace/resolvers``,
overridable with ``ARGTRACE_CACHE_DIR``)::

    base-py3.11-torch2.13.0/      a venv with CPU torch 2.13.0 and triton (--no-deps), shared by all
        argtrace-env.json
    sglang-0.5.10.post1-py3.11/   a venv per framework version, layered on the base by a .pth file
        lib/python3.11/site-packages/_argtrace_base.pth   -> the base's site-packages
        argtrace-env.json         the manifest (framework, version, python, created, size, wheel sha256)
    constraints.txt               torch pinned, torchvision/torchaudio/torchcodec forbidden

The framework wheel is installed with ``--no-deps``, plus the ``transformers``/``tokenizers`` pins its
METADATA states and the pure-Python packages its argument/config modules import. GPU-only imports are
satisfied by the stubs shipped in ``argtrace/resolver/stubs`` (put on ``PYTHONPATH`` at run time, see
:func:`runtime_env`), never installed.

Importable without heavy imports: stdlib only (platformdirs where :func:`user_cache_dir` needs it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

# defined here before cache_dirs.py existed: callers still import it from here
from argtrace.cache_dirs import user_cache_dir as user_cache_dir

MANIFEST = "argtrace-env.json"
BASE_PTH = "_argtrace_base.pth"
TORCH_VERSION = "2.13.0"
# torch's CPU wheel does not require triton, but the frameworks import it at module level.
TRITON_VERSION = "3.7.1"  # what torch 2.13 pairs with (torch 2.14 requires triton~=3.8.0)
FRAMEWORKS = ("sglang", "vllm")
# Packages that must never be installed: torchvision alone drags in a multi-GB CUDA torch.
FORBIDDEN = ("torchvision", "torchaudio", "torchcodec")

ProgressCallback = Callable[[str], None]

# Pure-Python imports the argument and config modules need (found by iterating on this machine; see
# /work/shared/notes/framework-facts.md). The version spec comes from the framework's METADATA when it
# names the package (see ``install_requirements``).
COMMON_PACKAGES: tuple[str, ...] = (
    "numpy",
    "tqdm",
    "pybase64",
    "requests",
    "ipython",
    "pydantic",
    "aiohttp",
    "safetensors",
    "orjson",
    "packaging",
    "pillow",
    "starlette",
    "openai",
    "partial_json_parser",
    "huggingface_hub",
    "httpx",
    "compressed-tensors",
    "gguf",
    "pyzmq",
    "dill",
    "sentencepiece",
    "pyyaml",
    "psutil",
    "msgspec",
)
SGLANG_NEW_PACKAGES: tuple[str, ...] = ("apache-tvm-ffi", "pynvml", "einops")
# srt/entrypoints/engine.py imports these at module level, and the launcher's _set_envs_and_config (a
# start-up step, resolver/startup_steps.py) lives there
SGLANG_LAUNCHER_PACKAGES: tuple[str, ...] = ("uvloop", "uvicorn", "fastapi", "setproctitle", "einops")
VLLM_PACKAGES: tuple[str, ...] = (
    "regex",
    "cachetools",
    "blake3",
    "py-cpuinfo",
    "protobuf",
    "fastapi",
    "prometheus_client",
    "prometheus-fastapi-instrumentator",
    "tiktoken",
    "typing_extensions",
    "filelock",
    "jsonschema",
    "mistral_common",
    "einops",
    "cloudpickle",
    "watchfiles",
    "python-json-logger",
    "cbor2",
    "ijson",
    "setproctitle",
    "pynvml",
    "uvicorn",
    "cloudpickle",
    "depyf",
    "lark",
    "python-multipart",
    "anthropic",
    "openai-harmony",
    "llguidance",
    "outlines_core",
    "xgrammar",
    "numba",
    "uvloop",
    "diskcache",
)

# Measured sizes (bytes on disk) used to state the cost before a build starts; see docs/frameworks.md.
EXPECTED_BASE_BYTES = 1_900_000_000
EXPECTED_FRAMEWORK_BYTES: Mapping[str, int] = {"sglang": 650_000_000, "vllm": 1_300_000_000}


class EnvironmentError_(RuntimeError):
    """A resolver environment could not be built or used."""


@dataclass
class Manifest:
    """What ``argtrace-env.json`` records about one environment."""

    kind: str  # "base" or "framework"
    framework: str | None
    version: str | None
    python: str  # "3.11.7"
    created: str  # ISO 8601 UTC
    size: int  # bytes on disk of this directory (the base is counted separately)
    path: str = ""
    base: str | None = None  # the base directory a framework env layers on
    wheel: str | None = None  # file name of the framework wheel
    wheel_sha256: str | None = None
    packages: dict[str, str] = field(default_factory=dict)  # name -> version installed in this layer
    build_seconds: float | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Manifest:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)  # type: ignore[arg-type]


def cache_dir() -> Path:
    """Where resolver environments live: ``$ARGTRACE_CACHE_DIR`` or the user cache dir."""
    from argtrace.cache_dirs import resolver_cache_dir

    return Path(resolver_cache_dir())


def stubs_dir() -> Path:
    """The import stubs shipped with argtrace (put first on ``PYTHONPATH`` inside an environment)."""
    return Path(__file__).resolve().parent / "stubs"


def python_tag(python: str | None = None) -> str:
    """``3.11`` for the given ``X.Y[.Z]`` (default: this interpreter)."""
    if python is None:
        return f"{sys.version_info.major}.{sys.version_info.minor}"
    return ".".join(python.split(".")[:2])


def base_name(python: str | None = None) -> str:
    return f"base-py{python_tag(python)}-torch{TORCH_VERSION}"


def env_name(framework: str, version: str, python: str | None = None) -> str:
    return f"{framework}-{version}-py{python_tag(python)}"


def parse_spec(spec: str) -> tuple[str, str]:
    """``sglang==0.5.10.post1`` -> ("sglang", "0.5.10.post1"); also ``sglang 0.5.10`` / ``vllm@0.33.0``."""
    m = re.fullmatch(r"\s*([A-Za-z][A-Za-z0-9_.-]*)\s*(?:==|=|@|\s)\s*([0-9][A-Za-z0-9_.+-]*)\s*", spec)
    if not m:
        raise ValueError(f"expected FRAMEWORK==VERSION (e.g. sglang==0.5.10.post1), got {spec!r}")
    framework = m.group(1).lower()
    if framework not in FRAMEWORKS:
        raise ValueError(f"unknown framework {framework!r}: expected one of {', '.join(FRAMEWORKS)}")
    return framework, m.group(2)


def constraints_text() -> str:
    """The pip constraints applied to every install: CPU torch pinned, the GPU media packages forbidden.

    A constraint naming a version that does not exist makes pip fail instead of installing the package,
    which is the only way a constraints file can forbid one.
    """
    lines = [
        "# argtrace resolver environments: never reinstall torch, never pull the CUDA media stack",
        f"torch=={TORCH_VERSION}",
    ]
    lines += [f"{name}==0.0.0.post999+forbidden.by.argtrace" for name in FORBIDDEN]
    return "\n".join(lines) + "\n"


def site_packages(env_dir: Path, python: str | None = None) -> Path:
    return env_dir / "lib" / f"python{python_tag(python)}" / "site-packages"


def env_python(env_dir: Path) -> Path:
    return env_dir / "bin" / "python"


def dir_size(path: Path) -> int:
    """Bytes on disk under ``path`` (hard links counted once, symlinks not followed)."""
    total = 0
    seen: set[tuple[int, int]] = set()
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            key = (st.st_dev, st.st_ino)
            if key in seen:
                continue
            seen.add(key)
            total += st.st_blocks * 512
    return total


def read_manifest(env_dir: Path) -> Manifest | None:
    try:
        data = json.loads((env_dir / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    manifest = Manifest.from_dict(data)
    manifest.path = str(env_dir)
    return manifest


def write_manifest(env_dir: Path, manifest: Manifest) -> None:
    manifest.path = str(env_dir)
    tmp = env_dir / (MANIFEST + ".tmp")
    tmp.write_text(manifest.to_json() + "\n")
    tmp.replace(env_dir / MANIFEST)


def list_environments(root: Path | None = None) -> list[Manifest]:
    """Every complete environment (one with a manifest) in the cache, bases included, sorted by name."""
    root = root or cache_dir()
    if not root.is_dir():
        return []
    out = []
    for child in sorted(root.iterdir()):
        if child.is_dir():
            manifest = read_manifest(child)
            if manifest is not None:
                out.append(manifest)
    return out


def find_environment(
    framework: str, version: str | None = None, python: str | None = None, root: Path | None = None
) -> Manifest | None:
    """The ready environment for ``framework==version`` (for this Python), or None. Without a version:
    the newest ready environment of that framework."""
    root = root or cache_dir()
    if version is None:
        ready = [
            m
            for m in framework_environments(framework, root)
            if m.version and find_environment(framework, m.version, python, root) is not None
        ]
        return max(ready, key=lambda m: _version_tuple(m.version or ""), default=None)
    env_dir = root / env_name(framework, version, python)
    manifest = read_manifest(env_dir)
    if manifest is None or manifest.kind != "framework":
        return None
    if not env_python(env_dir).exists():
        return None
    if manifest.base and not Path(manifest.base).is_dir():
        return None
    return manifest


def framework_environments(framework: str | None = None, root: Path | None = None) -> list[Manifest]:
    return [
        m
        for m in list_environments(root)
        if m.kind == "framework" and (framework is None or m.framework == framework)
    ]


def remove_environment(
    framework: str,
    version: str,
    python: str | None = None,
    root: Path | None = None,
    remove_base_if_unused: bool = True,
) -> list[Path]:
    """Delete one framework environment (and the base when nothing uses it anymore). Returns what went."""
    root = root or cache_dir()
    removed: list[Path] = []
    env_dir = root / env_name(framework, version, python)
    if env_dir.exists():
        shutil.rmtree(env_dir)
        removed.append(env_dir)
    if remove_base_if_unused:
        base_dir = root / base_name(python)
        users = [m for m in framework_environments(root=root) if m.base == str(base_dir)]
        if base_dir.exists() and not users:
            shutil.rmtree(base_dir)
            removed.append(base_dir)
    return removed


def runtime_env(
    manifest: Manifest | None,
    extra: Mapping[str, str] | None = None,
    base_env: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment for a subprocess running inside a resolver environment (see
    :func:`runtime_env_for`); ``base_env`` defaults to this process's environment."""
    return runtime_env_for(dict(os.environ if base_env is None else base_env), extra)


# Variables of a launch that would make argtrace's own resolver interpreter (or the programs it starts) run
# code the launch chose: module search paths, start-up hooks, warning categories (``PYTHONWARNINGS`` imports
# the module a category names), the dynamic loader's preloads and audit libraries, bash's start-up files.
# The framework's own variables (SGLANG_*, VLLM_*, HF_*, CUDA_VISIBLE_DEVICES...) are kept: they decide what
# the resolver computes. ``PATH`` is argtrace's caller's, never the launch's.
_LAUNCH_ENV_NEVER_PASSED = frozenset(
    {
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONSTARTUP",
        "PYTHONUSERBASE",
        "PYTHONEXECUTABLE",
        "PYTHONWARNINGS",
        "PYTHONBREAKPOINT",
        "PYTHONINSPECT",
        "PYTHONPLATLIBDIR",
        "BASH_ENV",
        "ENV",
        "PATH",
        # files Python or the C library load from a directory the launch names: compiled modules
        # (`__pycache__` under the prefix, run in place of the sources) and iconv's shared objects
        "PYTHONPYCACHEPREFIX",
        "GCONV_PATH",
    }
)


def launch_env_for_resolver(launch_env: Mapping[str, str]) -> dict[str, str]:
    """A launch's environment as argtrace's resolver may run with it: ``_LAUNCH_ENV_NEVER_PASSED`` and the
    loader's ``LD_*``/``DYLD_*`` variables dropped, ``PATH`` and ``HOME`` from argtrace's own caller."""
    env = {
        k: v
        for k, v in launch_env.items()
        if k not in _LAUNCH_ENV_NEVER_PASSED and not k.startswith(("LD_", "DYLD_"))
    }
    env["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
    env.setdefault("HOME", os.environ.get("HOME", "/root"))
    return env


def runtime_env_for(base_env: Mapping[str, str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base_env`` (e.g. the server's predicted environment, through :func:`launch_env_for_resolver`) plus
    what the framework needs to run here: the stubs first on ``PYTHONPATH`` (their ``sitecustomize``
    installs the fake GPU when ``ARGTRACE_FAKE_GPU`` is set) and the fake ``nvidia-smi`` first on ``PATH``,
    offline Hugging Face, no user site."""
    env = dict(base_env)
    env.pop("PYTHONHOME", None)
    stubs = str(stubs_dir())
    env["PYTHONPATH"] = stubs + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONNOUSERSITE"] = "1"
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    env.setdefault("VLLM_NO_USAGE_STATS", "1")
    env.setdefault("DO_NOT_TRACK", "1")
    smi = stubs_dir() / "bin" / "nvidia-smi"
    if smi.exists() and not os.access(smi, os.X_OK):  # a wheel install may drop the executable bit
        try:
            smi.chmod(0o755)
        except OSError:
            pass
    env["PATH"] = str(stubs_dir() / "bin") + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    if extra:
        env.update(extra)
    return env


# --------------------------------------------------------------------------------------------- metadata


@dataclass(frozen=True)
class Requirement:
    """A dependency a framework's wheel metadata declares: its normalised name, the requirement as pip
    takes it, and its environment marker."""

    name: str  # normalised (lowercase, dashes)
    spec: str  # the requirement string as pip takes it, e.g. "transformers==5.3.0"
    marker: str | None


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_requirements(wheel: Path) -> list[Requirement]:
    """The unconditional ``Requires-Dist`` lines of a wheel's METADATA (``extra ==`` ones skipped)."""
    import zipfile  # here: `check` imports this module to find an environment, never to read a wheel

    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        text = zf.read(meta_name).decode("utf-8", "replace")
    return parse_requires_dist(text)


def parse_requires_dist(metadata: str) -> list[Requirement]:
    import email.parser

    headers = email.parser.HeaderParser().parsestr(metadata)
    out = []
    for body in headers.get_all("Requires-Dist") or []:
        req, _, marker_text = str(body).partition(";")
        marker = marker_text.strip() or None
        if marker and "extra" in marker:
            continue
        m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)", req.strip())
        if not m:
            continue
        name = m.group(1)
        version = m.group(3).strip().strip("()")
        out.append(Requirement(normalise(name), f"{name}{version}", marker))
    return out


def marker_true(marker: str | None) -> bool:
    if not marker:
        return True
    import importlib

    try:
        Marker = importlib.import_module("packaging.markers").Marker
    except ImportError:  # pragma: no cover - pip always vendors it
        try:
            Marker = importlib.import_module("pip._vendor.packaging.markers").Marker
        except ImportError:
            return True
    try:
        return bool(Marker(marker).evaluate())
    except Exception:
        return True


def install_requirements(framework: str, version: str, requirements: Sequence[Requirement]) -> list[str]:
    """What to install beside a ``--no-deps`` framework wheel: the transformers/tokenizers pins and the
    minimal pure-Python imports, each with the version spec the framework's METADATA states for it."""
    wanted = ["transformers", "tokenizers", *COMMON_PACKAGES]
    if framework == "sglang":
        wanted += SGLANG_LAUNCHER_PACKAGES
    if framework == "sglang" and _version_tuple(version) >= (0, 5, 15):
        wanted += SGLANG_NEW_PACKAGES
    if framework == "sglang" and (0, 5, 19) <= _version_tuple(version) < (0, 5, 23):
        wanted += ["xgrammar"]  # 0.5.19's server_args imports it at module level
    if framework == "vllm":
        wanted += VLLM_PACKAGES
    by_name = {r.name: r for r in requirements if marker_true(r.marker)}
    specs: list[str] = []
    seen: set[str] = set()
    for name in wanted:
        key = normalise(name)
        if key in seen or key in FORBIDDEN or key == "torch":
            continue
        seen.add(key)
        req = by_name.get(key)
        if key == "tokenizers" and req is None:
            continue  # the transformers pin brings the tokenizers it needs
        spec = req.spec if req is not None else name
        if key in ("transformers", "tokenizers"):
            spec = cap_major(spec)
        specs.append(spec)
    return specs


def cap_major(spec: str) -> str:
    """``transformers>=4.56.0`` -> ``transformers>=4.56.0,<5``: a bare lower bound on a library that breaks
    its API across majors is capped at the next major, as the release was tested then."""
    if any(op in spec for op in ("==", "<", "~=")):
        return spec
    m = re.search(r">=?\s*(\d+)", spec)
    if not m:
        return spec
    return f"{spec},<{int(m.group(1)) + 1}"


def _version_tuple(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split("."):
        m = re.match(r"\d+", piece)
        if not m:
            break
        parts.append(int(m.group(0)))
    return tuple(parts)


def sha256_file(path: Path) -> str:
    import hashlib  # here, not at the top: a ``check`` that resolves nothing hashes nothing (start-up)

    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ------------------------------------------------------------------------------------------------ build


def _run(cmd: Sequence[str], progress: ProgressCallback | None, log: Path) -> None:
    if progress:
        progress("$ " + " ".join(cmd))
    with log.open("a") as fh:
        fh.write("$ " + " ".join(cmd) + "\n")
        fh.flush()
        proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, env=_pip_env())
    if proc.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-30:]
        raise EnvironmentError_(f"command failed ({proc.returncode}): {' '.join(cmd)}\n" + "\n".join(tail))


def _pip_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return env


def _pip(python: Path, *args: str) -> list[str]:
    # The host's pip drives the target interpreter (``pip --python``), so environments need no pip.
    return [sys.executable, "-m", "pip", "--python", str(python), *args]


def _pip_freeze(python: Path, site: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for dist in site.glob("*.dist-info"):
        m = re.match(r"(.+?)-([^-]+)\.dist-info$", dist.name)
        if m:
            out[normalise(m.group(1))] = m.group(2)
    return out


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def expected_size(framework: str, root: Path | None = None, python: str | None = None) -> int:
    """Bytes a build of ``framework`` will add to the cache (the base counted when it is not there yet)."""
    root = root or cache_dir()
    size = EXPECTED_FRAMEWORK_BYTES.get(framework, 1_000_000_000)
    if read_manifest(root / base_name(python)) is None:
        size += EXPECTED_BASE_BYTES
    return size


def ensure_base(root: Path | None = None, progress: ProgressCallback | None = None) -> Manifest:
    """The shared base venv (CPU torch + triton), built when missing."""
    root = root or cache_dir()
    base_dir = root / base_name()
    manifest = read_manifest(base_dir)
    if manifest is not None and manifest.kind == "base" and env_python(base_dir).exists():
        return manifest
    if base_dir.exists():
        shutil.rmtree(base_dir)
    root.mkdir(parents=True, exist_ok=True)
    constraints = _write_constraints(root)
    log = root / f"{base_dir.name}.log"
    log.write_text("")
    started = time.monotonic()
    try:
        if progress:
            progress(f"building the shared base {base_dir.name} (CPU torch {TORCH_VERSION} + triton)")
        _run([sys.executable, "-m", "venv", "--without-pip", str(base_dir)], progress, log)
        py = env_python(base_dir)
        _run(_pip(py, "install", "-q", "-c", str(constraints), f"torch=={TORCH_VERSION}"), progress, log)
        _run(_pip(py, "install", "-q", "--no-deps", f"triton=={TRITON_VERSION}"), progress, log)
    except BaseException:
        shutil.rmtree(base_dir, ignore_errors=True)
        raise
    manifest = Manifest(
        kind="base",
        framework=None,
        version=None,
        python=".".join(map(str, sys.version_info[:3])),
        created=_now(),
        size=dir_size(base_dir),
        packages=_pip_freeze(env_python(base_dir), site_packages(base_dir)),
        build_seconds=round(time.monotonic() - started, 1),
    )
    write_manifest(base_dir, manifest)
    return manifest


def _write_constraints(root: Path) -> Path:
    path = root / "constraints.txt"
    text = constraints_text()
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


def download_wheel(
    framework: str, version: str, dest: Path, progress: ProgressCallback | None = None
) -> Path:
    """The framework's wheel for this platform, downloaded from the package index (pip's cache reused)."""
    dest.mkdir(parents=True, exist_ok=True)
    found = find_wheel(dest, framework, version)
    if found:
        return found
    log = dest / "download.log"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--only-binary",
            ":all:",
            "-d",
            str(dest),
            f"{framework}=={version}",
        ],
        progress,
        log,
    )
    found = find_wheel(dest, framework, version)
    if not found:
        raise EnvironmentError_(f"pip downloaded no wheel for {framework}=={version}")
    return found


def find_wheel(dest: Path, package: str, version: str) -> Path | None:
    """A wheel of ``package`` ``version`` in ``dest``: its file name spells the project with ``_`` for
    ``-`` (the wheel format's escaping: ``vllm_omni-0.14.0-py3-none-any.whl``)."""
    for wheel in sorted(dest.glob(f"{package.replace('-', '_')}-{version}-*.whl")):
        return wheel
    return None


def build_environment(
    framework: str,
    version: str,
    progress: ProgressCallback | None = None,
    root: Path | None = None,
    keep_wheel: bool = True,
) -> Manifest:
    """Build (or return the existing) resolver environment for ``framework==version``.

    Steps: the shared base (CPU torch + triton) when missing; a venv with a ``.pth`` pointing at the
    base's site-packages; the framework wheel with ``--no-deps``; its transformers/tokenizers pins and
    the minimal pure-Python imports, under constraints that pin torch and forbid torchvision & co.
    """
    if framework not in FRAMEWORKS:
        raise ValueError(f"unknown framework {framework!r}")
    root = root or cache_dir()
    existing = find_environment(framework, version, root=root)
    if existing is not None:
        return existing
    if progress:
        progress(f"expected size: about {expected_size(framework, root) / 1e9:.1f} GB in {root}")
    base = ensure_base(root, progress)
    started = time.monotonic()
    env_dir = root / env_name(framework, version)
    if env_dir.exists():
        shutil.rmtree(env_dir)
    log = root / f"{env_dir.name}.log"
    log.write_text("")
    constraints = _write_constraints(root)
    wheel_dir = root / "wheels"
    try:
        wheel = download_wheel(framework, version, wheel_dir, progress)
        digest = sha256_file(wheel)
        _run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], progress, log)
        py = env_python(env_dir)
        site = site_packages(env_dir)
        (site / BASE_PTH).write_text(str(site_packages(Path(base.path))) + "\n")
        specs = install_requirements(framework, version, wheel_requirements(wheel))
        _run(_pip(py, "install", "-q", "--no-deps", str(wheel)), progress, log)
        _run(_pip(py, "install", "-q", "-c", str(constraints), *specs), progress, log)
        _check_forbidden(site, base)
    except BaseException:
        shutil.rmtree(env_dir, ignore_errors=True)
        raise
    if not keep_wheel:
        wheel.unlink(missing_ok=True)
    manifest = Manifest(
        kind="framework",
        framework=framework,
        version=version,
        python=".".join(map(str, sys.version_info[:3])),
        created=_now(),
        size=dir_size(env_dir),
        base=base.path,
        wheel=wheel.name,
        wheel_sha256=digest,
        packages=_pip_freeze(py, site),
        build_seconds=round(time.monotonic() - started, 1),
    )
    write_manifest(env_dir, manifest)
    if progress:
        progress(f"built {env_dir.name}: {manifest.size / 1e9:.2f} GB in {manifest.build_seconds:.0f} s")
    return manifest


def _check_forbidden(site: Path, base: Manifest) -> None:
    bad = [d.name for d in site.glob("*.dist-info") if normalise(d.name.split("-")[0]) in FORBIDDEN]
    if (site / "torch").exists():
        bad.append("torch (reinstalled into the framework layer)")
    if bad:
        raise EnvironmentError_(f"forbidden packages ended up in the environment: {', '.join(bad)}")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m argtrace.resolver.environments build sglang==0.5.10.post1`` (CI and scripts)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m argtrace.resolver.environments")
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("specs", nargs="+")
    sub.add_parser("list")
    r = sub.add_parser("remove")
    r.add_argument("specs", nargs="+")
    args = parser.parse_args(argv)
    if args.cmd == "build":
        for spec in args.specs:
            fw, ver = parse_spec(spec)
            m = build_environment(fw, ver, progress=lambda s: print(s, file=sys.stderr, flush=True))
            print(f"{m.framework}=={m.version} {m.path} {m.size / 1e9:.2f} GB")
    elif args.cmd == "list":
        for m in list_environments():
            print(
                f"{m.kind:9} {m.framework or '-'}=={m.version or '-'} py{m.python} "
                f"{m.size / 1e9:.2f} GB {m.path}"
            )
    else:
        for spec in args.specs:
            fw, ver = parse_spec(spec)
            for p in remove_environment(fw, ver):
                print(f"removed {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
