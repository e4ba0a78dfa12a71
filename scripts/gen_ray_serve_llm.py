#!/usr/bin/env python3
"""Generate ``src/argtrace/data/ray_serve_llm.json``: how Ray Serve LLM turns a serve config's ``llm_configs``
entry into vLLM's engine, read from Ray's wheel and from vLLM's own classes.

From the ``ray`` wheel on PyPI (``pip download ray==RAY --no-deps``; read as text with ``ast``, never
imported):

- the keys an ``llm_configs`` entry may have: the fields of ``LLMConfig`` and ``ModelLoadingConfig``
  (``ray/llm/_internal/serve/core/configs/llm_config.py``); both are ``BaseModelExtended`` with
  ``extra="forbid"`` (``ray/llm/_internal/common/base_pydantic.py``), so any other key is refused;
- the keys of the application's ``args`` (``LLMServingArgs`` in ``core/ingress/builder.py``);
- where Ray splits ``engine_kwargs`` into vLLM's ``FrontendArgs`` and ``AsyncEngineArgs`` fields and refuses
  the rest (``VLLMEngineConfig.from_llm_config``: ``Unknown engine argument: KEY``), refuses ``model`` /
  ``served_model_name`` and a ``distributed_executor_backend`` other than ``ray``
  (``get_initialization_kwargs``),
  each as ``path:line`` of the wheel.

From PyPI's metadata of each Ray release (``pip install --dry-run --no-deps --report``, no download of the
wheel): the vLLM requirement of its ``llm`` extra (``vllm[audio]==0.29.0`` for 2.60.0).

From vLLM's real classes, in each resolver environment that exists (``argtrace resolver add vllm==V``): the
field
names of ``FrontendArgs`` and ``AsyncEngineArgs`` (``dataclasses.fields``, what Ray compares against), and how
they differ from the dests of ``vllm serve``'s parser (fields with no flag; flags that are no field).

Usage: ``python scripts/gen_ray_serve_llm.py [--wheel PATH] [--check]``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

OUT = ROOT / "src" / "argtrace" / "data" / "ray_serve_llm.json"
GENERATOR = "scripts/gen_ray_serve_llm.py"
RAY = "2.60.0"
# Ray releases that have `ray.serve.llm` (first in 2.43.0)
RAY_RELEASES = (
    "2.43.0 2.44.0 2.44.1 2.45.0 2.46.0 2.47.0 2.47.1 2.48.0 2.49.0 2.49.1 2.49.2 2.50.0 2.50.1 2.51.0 "
    "2.51.1 2.51.2 2.52.0 2.52.1 2.53.0 2.54.0 2.54.1 2.55.0 2.55.1 2.56.0 2.56.1 2.57.0 2.57.1 2.58.0 "
    "2.58.1 2.59.0 2.60.0"
).split()

_LLM_CONFIG = "ray/llm/_internal/serve/core/configs/llm_config.py"
_BUILDER = "ray/llm/_internal/serve/core/ingress/builder.py"
_MODELS = "ray/llm/_internal/serve/engines/vllm/vllm_models.py"
_BASE = "ray/llm/_internal/common/base_pydantic.py"

# Inside the environment: stdlib + vLLM only.
PROBE = r"""
import dataclasses, json
from vllm.engine.arg_utils import AsyncEngineArgs
try:
    from vllm.utils.argparse_utils import FlexibleArgumentParser
except ImportError:
    from vllm.utils import FlexibleArgumentParser
try:
    from vllm.entrypoints.common import cli_args
except ImportError:
    from vllm.entrypoints.openai import cli_args
frontend = sorted(f.name for f in dataclasses.fields(cli_args.FrontendArgs))
engine = sorted(f.name for f in dataclasses.fields(AsyncEngineArgs))
parser = cli_args.make_arg_parser(FlexibleArgumentParser(prog="vllm serve"))
dests = {a.dest for a in parser._actions}
fields = set(frontend) | set(engine)
print(json.dumps({
    "frontend": frontend,
    "engine": engine,
    "without_flag": sorted(fields - dests),
    "flags_not_fields": sorted(dests - fields - {"help"}),
}))
"""


def class_fields(source: str, name: str) -> list[str]:
    """The pydantic fields of class ``name``: annotated names in its body, not private, not ``ClassVar``."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == name:
            out = []
            for item in node.body:
                if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
                    continue
                field = item.target.id
                if field.startswith("_") or "ClassVar" in ast.unparse(item.annotation):
                    continue
                value = ast.unparse(item.value) if item.value is not None else ""
                if value.startswith("PrivateAttr"):
                    continue
                out.append(field)
            return out
    raise SystemExit(f"class {name} not found")


def line_of(source: str, path: str, needle: str) -> str:
    for number, line in enumerate(source.splitlines(), 1):
        if needle in line:
            return f"{path}:{number}"
    raise SystemExit(f"{needle!r} not found in {path}")


def ray_wheel(given: str | None, tmp: Path) -> Path:
    if given:
        return Path(given)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            f"ray=={RAY}",
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            "3.12",
            "--platform",
            "manylinux2014_x86_64",
            "-d",
            str(tmp),
        ],
        check=True,
    )
    return next(tmp.glob(f"ray-{RAY}-*.whl"))


def vllm_requirement(release: str, tmp: Path) -> str | None:
    report = tmp / f"report-{release}.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--no-deps",
            "--ignore-installed",
            "-q",
            "--only-binary=:all:",
            "--python-version",
            "3.11",
            "--platform",
            "manylinux2014_x86_64",
            "--target",
            str(tmp / "target"),
            "--report",
            str(report),
            f"ray=={release}",
        ],
        check=True,
    )
    metadata = json.loads(report.read_text())["install"][0]["metadata"]
    for req in metadata.get("requires_dist") or []:
        if req.startswith("vllm") and 'extra == "llm"' in req:
            return req.split(";")[0].strip()
    return None


def vllm_fields() -> dict[str, object]:
    from argtrace.frameworks.schema import bundled_versions
    from argtrace.resolver import environments
    from argtrace.resolver.fake_gpu import fake_gpu_env

    out: dict[str, object] = {}
    for version in bundled_versions("vllm", include_user=False):
        manifest = environments.find_environment("vllm", version)
        if manifest is None:
            continue
        proc = subprocess.run(
            [str(environments.env_python(Path(manifest.path))), "-c", PROBE],
            capture_output=True,
            text=True,
            timeout=600,
            env=environments.runtime_env(manifest, {"ARGTRACE_FAKE_GPU": fake_gpu_env("h100")}),
        )
        if proc.returncode != 0:
            raise SystemExit(f"probe failed for vllm=={version}:\n{proc.stderr[-3000:]}")
        out[version] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def generate(wheel_path: str | None) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="gen-ray-serve-llm-") as tmp_name:
        tmp = Path(tmp_name)
        wheel = ray_wheel(wheel_path, tmp)
        with zipfile.ZipFile(wheel) as z:
            read = {p: z.read(p).decode() for p in (_LLM_CONFIG, _BUILDER, _MODELS, _BASE)}
            metadata = z.read(f"ray-{RAY}.dist-info/METADATA").decode()
        if 'extra="forbid"' not in read[_BASE]:
            raise SystemExit("BaseModelExtended no longer forbids extra keys: the key check must change")
        requirement = {r: vllm_requirement(r, tmp) for r in RAY_RELEASES}
        pinned = [line for line in metadata.splitlines() if "vllm" in line and 'extra == "llm"' in line]
        return {
            "format": 1,
            "generated_by": GENERATOR,
            "ray": {
                "release": RAY,
                "wheel": wheel.name,
                "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
                "vllm": pinned[0].split(":", 1)[1].split(";")[0].strip() if pinned else None,
            },
            "llm_config_keys": class_fields(read[_LLM_CONFIG], "LLMConfig"),
            "model_loading_config_keys": class_fields(read[_LLM_CONFIG], "ModelLoadingConfig"),
            "serving_args_keys": class_fields(read[_BUILDER], "LLMServingArgs"),
            "extra_forbidden": _BASE,
            "sources": {
                "unknown_engine_argument": line_of(
                    read[_MODELS], _MODELS, 'f"Unknown engine argument: {key}"'
                ),
                "model_in_engine_kwargs": line_of(read[_MODELS], _MODELS, '"model" in engine_kwargs'),
                "executor_backend": line_of(
                    read[_MODELS], _MODELS, "distributed_executor_backend != 'ray' is not allowed"
                ),
                "served_model_name": line_of(read[_MODELS], _MODELS, 'engine_kwargs["served_model_name"]'),
                "llm_configs_paths": line_of(read[_BUILDER], _BUILDER, "LLMConfig.from_file(config)"),
            },
            "vllm_requirement": requirement,
            "vllm_fields": vllm_fields(),
        }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", help="a downloaded ray wheel (default: pip download it into a temp dir)")
    parser.add_argument("--check", action="store_true", help="only check that the file parses and is current")
    args = parser.parse_args(argv)
    if args.check:
        data = json.loads(OUT.read_text())
        if data.get("generated_by") != GENERATOR or data["ray"]["release"] != RAY:
            print(f"{OUT.relative_to(ROOT)} is stale: run {GENERATOR}", file=sys.stderr)
            return 1
        return 0
    data = generate(args.wheel)
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
