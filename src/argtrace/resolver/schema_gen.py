"""Generate one release's parser schema: the real parser dumped inside a resolver environment, plus the
environment-variable names and JSON-parsed fields read from the release's source by AST.

Two ways to run the real parser:

- **own environment** (``dump_in_env``): the release's own resolver environment (``resolver add``), as
  ``scripts/gen_schemas.py`` has always done for the CI-built releases;
- **overlay** (``dump_overlay``): the release's wheel unpacked (python files only) and put first on
  ``PYTHONPATH`` over *another* release's environment of the same framework, which supplies the
  dependencies. Modules the release imports that the environment lacks are placeholders, listed in the
  schema (``generated_with.stubbed_modules``). Checked against the own-environment dump of SGLang 0.5.19:
  502 of 504 options identical, the two others differ only in the order of a set-built choices list.

Used by ``scripts/gen_schemas.py`` (the bundled schemas) and ``argtrace resolver add`` (a release that is
not bundled: its schema goes to the user cache, :func:`user_schema_dir`, where ``frameworks.schema`` finds
it).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from argtrace.resolver import ast_index, environments
from argtrace.resolver.fake_gpu import fake_gpu_env

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GENERATOR = "scripts/gen_schemas.py"
FORMAT = 1
HERE = Path(__file__).resolve().parent
DUMPER = HERE / "dump_parser.py"
OVERLAY = HERE / "dump_overlay.py"
SCHEMA_GPU = "h100"
# What an unpacked wheel keeps: the python sources and package data the parser modules read at import.
_KEEP_SUFFIXES = (".py", ".json", ".yaml", ".yml", ".txt", ".jinja")
WHEEL_NOTE = "argtrace-wheel.json"


class GenerationError(Exception):
    """The real parser could not be dumped."""


def user_schema_dir() -> Path:
    """Where ``resolver add`` writes the schema of a release that is not bundled."""
    return environments.cache_dir() / "schemas"


def _run_dumper(
    python: Path, script: Path, framework: str, env: dict[str, str], label: str
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "dump.json"
        proc = subprocess.run(
            [str(python), str(script), framework, "--out", str(out)],
            env=env,
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if proc.returncode != 0 or not out.exists():
            tail = "\n".join(proc.stderr.splitlines()[-25:])
            raise GenerationError(f"dumper failed ({proc.returncode}) for {label}:\n{tail}")
        data: dict[str, Any] = json.loads(out.read_text())
        return data


def dump_in_env(manifest: environments.Manifest, framework: str) -> dict[str, Any]:
    """The release's real parser, in its own environment."""
    env = environments.runtime_env(manifest, {"ARGTRACE_FAKE_GPU": fake_gpu_env(SCHEMA_GPU)})
    return _run_dumper(
        environments.env_python(Path(manifest.path)),
        DUMPER,
        framework,
        env,
        f"{framework}=={manifest.version}",
    )


def dump_overlay(deps: environments.Manifest, framework: str, unpacked: Path, version: str) -> dict[str, Any]:
    """The real parser of the release unpacked at ``unpacked``, over the environment ``deps``."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    base["PYTHONPATH"] = str(unpacked)  # runtime_env_for puts the stubs before it
    env = environments.runtime_env_for(base, {"ARGTRACE_FAKE_GPU": fake_gpu_env(SCHEMA_GPU)})
    return _run_dumper(
        environments.env_python(Path(deps.path)),
        OVERLAY,
        framework,
        env,
        f"{framework}=={version} over {deps.framework}=={deps.version}",
    )


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def unpack_wheel(wheel: Path, dest: Path) -> dict[str, str]:
    """The wheel's python files and metadata into ``dest`` (not its compiled extensions: they are what
    makes vLLM wheels 300+ MB, and the stubs stand in for them); returns ``{"wheel", "wheel_sha256"}``."""
    note = {"wheel": wheel.name, "wheel_sha256": sha256_file(wheel)}
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            top = info.filename.split("/", 1)[0]
            if top.endswith(".data"):
                continue
            if info.filename.endswith(_KEEP_SUFFIXES) or ".dist-info/" in info.filename:
                zf.extract(info, dest)
    (dest / WHEEL_NOTE).write_text(json.dumps(note))
    return note


def fetch_unpacked(framework: str, version: str, root: Path, progress: Callable[[str], None]) -> Path:
    """``root/<fw>-<ver>`` holding the unpacked wheel: reused when present, else the wheel from the resolver
    wheel cache or ``pip download --no-deps`` (deleted after unpacking)."""
    dest = root / f"{framework}-{version}"
    if (dest / WHEEL_NOTE).is_file():
        return dest
    cached = sorted((environments.cache_dir() / "wheels").glob(f"{framework}-{version}-*.whl"))
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        if cached:
            wheel = cached[0]
        else:
            progress(f"downloading the {framework}=={version} wheel")
            try:
                wheel = environments.download_wheel(framework, version, Path(tmp))
            except environments.EnvironmentError_ as exc:
                raise GenerationError(str(exc)) from None
        unpack_wheel(wheel, dest)
    return dest


def finish_schema(
    framework: str,
    version: str,
    dumped: dict[str, Any],
    site: Path,
    *,
    source: str,
    wheel: str,
    wheel_sha256: str,
    generated_with: dict[str, Any],
) -> dict[str, Any]:
    """The schema dict from a dump and the release's source under ``site`` (env vars, JSON fields)."""
    pkg = site / framework
    env_vars = (ast_index.sglang_env_vars if framework == "sglang" else ast_index.vllm_env_vars)(site)
    json_reasons: dict[str, str] = {}
    for opt in dumped["options"]:
        reason = opt.get("json")
        if reason and reason.startswith("type "):
            json_reasons[opt["dest"]] = reason
    by_dest = {o["dest"]: o for o in dumped["options"]}
    for fld, how in sorted(ast_index.json_loaded_fields(ast_index.python_files(pkg)).items()):
        opt = by_dest.get(fld)
        if opt is None:
            continue
        looks_json = (
            "json" in (opt.get("help") or "").lower()
            or opt.get("default") in ("{}", "[]")
            or isinstance(opt.get("default"), dict)
        )
        if how == "attribute" or looks_json:
            json_reasons.setdefault(fld, f"json.loads of the field in the framework's code ({how})")
    for opt in dumped["options"]:
        if opt["dest"] in json_reasons:
            opt["json"] = json_reasons[opt["dest"]]
        else:
            opt.pop("json", None)
    return {
        "format": FORMAT,
        "framework": framework,
        "version": version,
        "generated_by": GENERATOR,
        "source": source,
        "wheel": wheel,
        "wheel_sha256": wheel_sha256,
        "generated_with": generated_with,
        "parser": dumped["parser"],
        "options": dumped["options"],
        "positionals": dumped["positionals"],
        "env_vars": env_vars,
        "json_flags": sorted(json_reasons),
    }


def schema_in_env(manifest: environments.Manifest) -> dict[str, Any]:
    """The schema of the release whose own environment ``manifest`` is (what the CI-built ones use)."""
    framework, version = str(manifest.framework), str(manifest.version)
    wheel, wheel_sha256 = str(manifest.wheel), str(manifest.wheel_sha256)
    dumped = dump_in_env(manifest, framework)
    if dumped.get("version") != version:
        raise GenerationError(f"environment holds {framework} {dumped.get('version')}, expected {version}")
    return finish_schema(
        framework,
        version,
        dumped,
        environments.site_packages(Path(manifest.path)),
        source=f"{framework}=={version} wheel from PyPI ({wheel}, sha256 {wheel_sha256})",
        wheel=wheel,
        wheel_sha256=wheel_sha256,
        generated_with={
            "python": dumped.get("python"),
            "torch": environments.TORCH_VERSION + " (CPU)",
            "fake_gpu": SCHEMA_GPU,
            "transformers": manifest.packages.get("transformers"),
        },
    )


def schema_overlay(
    framework: str, version: str, unpacked: Path, deps: environments.Manifest
) -> dict[str, Any]:
    """The schema of a release from its unpacked wheel run over ``deps`` (another release's environment)."""
    note = json.loads((unpacked / WHEEL_NOTE).read_text())
    dumped = dump_overlay(deps, framework, unpacked, version)
    if dumped.get("version") != version:
        raise GenerationError(f"overlay imported {framework} {dumped.get('version')}, expected {version}")
    return finish_schema(
        framework,
        version,
        dumped,
        unpacked,
        source=f"{framework}=={version} wheel from PyPI ({note['wheel']}, sha256 {note['wheel_sha256']})",
        wheel=note["wheel"],
        wheel_sha256=note["wheel_sha256"],
        generated_with={
            "method": "overlay",
            "dependencies_from": f"{deps.framework}=={deps.version} resolver environment",
            "python": dumped.get("python"),
            "torch": environments.TORCH_VERSION + " (CPU)",
            "fake_gpu": SCHEMA_GPU,
            "transformers": deps.packages.get("transformers"),
            "stubbed_modules": dumped.get("stubbed_modules", []),
        },
    )


def write_user_schema(schema: dict[str, Any]) -> Path:
    """Store a generated schema where ``frameworks.schema`` looks for releases that are not bundled."""
    path = user_schema_dir() / f"{schema['framework']}-{schema['version']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(schema, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path
