#!/usr/bin/env python3
"""Generate src/argtrace/data/device_variables.json: the environment variables that select accelerator
devices, per vendor, read from the sources of the programs that read them (never typed by hand).

Sources (each a real package or repository snapshot, named on the command line):

- Ray's accelerator managers (``ray/_private/accelerators/*.py`` of a Ray wheel): each vendor's
  ``get_visible_accelerator_ids_env_var()`` (the variable the vendor's runtime reads in the process, which
  Ray sets per worker), its ``RAY_EXPERIMENTAL_NOSET_*`` switches, the device files it globs to find the
  vendor's devices (``/dev/davinci[0-9]*``, ``/dev/accel*``), and ``get_resource_name()``.
- ROCm's HIP runtime (ROCm/clr ``rocclr/utils/flags.hpp``): the ``*_VISIBLE_DEVICES`` flags HIP reads
  (HIP_VISIBLE_DEVICES, and CUDA_VISIBLE_DEVICES when it is empty: ``rocdevice.cpp``).
- ROCm's HSA runtime (ROCm/ROCR-Runtime ``runtime/hsa-runtime/core/util/flag.h``): ROCR_VISIBLE_DEVICES,
  applied before HIP's own; ``libhsakmt/src/openclose.c``: the device file it opens (``/dev/kfd``).
- The container runtimes that read a variable when they create a container, not in the process:
  Ascend/ascend-docker-runtime ``runtime/main.go`` (ASCEND_VISIBLE_DEVICES) and
  NVIDIA/nvidia-container-toolkit ``internal/config/image/envvars.go`` (NVIDIA_VISIBLE_DEVICES).

  pip download ray --no-deps --only-binary=:all: -d /tmp/w
  python scripts/gen_device_variables.py --ray /tmp/w/ray-*.whl --clr CLR_GIT --rocr ROCR_GIT \
      --ascend-docker-runtime ADR_GIT --nvidia-container-toolkit NCT_GIT

A ``*_GIT`` argument is a repository (a work tree or a bare git directory); its ``HEAD`` is read.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/data/device_variables.json"
ACCEL = "ray/_private/accelerators/"

# PyTorch's device type for the vendors whose PyTorch backend has a name of its own (SGLang's and older
# vLLM's ``--device`` take these words). "cuda" is both NVIDIA's and ROCm's, so it names no vendor.
TORCH_DEVICE = {"npu": "npu", "hpu": "hpu", "tpu": "tpu", "intel_gpu": "xpu"}


def _git_show(repo: str, path: str) -> tuple[str, str]:
    """The text of ``path`` at ``repo``'s HEAD and that commit."""
    text = subprocess.run(
        ["git", "-C", repo, "show", f"HEAD:{path}"], check=True, capture_output=True, text=True
    ).stdout
    commit = subprocess.run(
        ["git", "-C", repo, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return text, commit


def _constants(tree: ast.Module) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            out[node.targets[0].id] = node.value.value
    return out


def _returned(tree: ast.Module, function: str, constants: dict[str, str]) -> str | None:
    """The string a method named ``function`` returns last (a literal or a module constant)."""
    found: str | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Return) and sub.value is not None:
                    if isinstance(sub.value, ast.Constant) and isinstance(sub.value.value, str):
                        found = sub.value.value
                    elif isinstance(sub.value, ast.Name) and sub.value.id in constants:
                        found = constants[sub.value.id]
    return found


def _globs(tree: ast.Module, constants: dict[str, str]) -> list[str]:
    """The ``/dev/...`` patterns the manager globs for its devices."""
    out: list[str] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "glob"
            and node.args
        ):
            arg = node.args[0]
            value = (
                arg.value
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                else constants.get(arg.id)
                if isinstance(arg, ast.Name)
                else None
            )
            if value and value.startswith("/dev/") and value not in out:
                out.append(value)
    return out


def ray_vendors(wheel: str) -> tuple[dict[str, dict[str, object]], str]:
    z = zipfile.ZipFile(wheel)
    version = re.search(r"ray-([^-]+)-", Path(wheel).name)
    vendors: dict[str, dict[str, object]] = {}
    for name in sorted(z.namelist()):
        if not (name.startswith(ACCEL) and name.endswith(".py")) or name.count("/") != 3:
            continue
        tree = ast.parse(z.read(name).decode())
        constants = _constants(tree)
        visible = _returned(tree, "get_visible_accelerator_ids_env_var", constants)
        if visible is None:
            continue
        stem = Path(name).stem
        label = next(
            (
                (ast.get_docstring(c) or "").split("\n")[0].split(" (")[0].rstrip(".")
                for c in tree.body
                if isinstance(c, ast.ClassDef) and c.name.endswith("AcceleratorManager")
            ),
            stem,
        )
        # other selection variables the manager reads beside the one it sets (Intel: ONEAPI_DEVICE_SELECTOR)
        also = [
            v
            for k, v in constants.items()
            if k.endswith("_ENV_VAR")
            and not v.startswith("RAY_")
            and re.search(r"VISIBLE|SELECTOR|MASK", v)
            and v != visible
        ]
        vendors[stem] = {
            "label": label,
            "source": f"ray {version.group(1) if version else '?'} {name}",
            "resource": _returned(tree, "get_resource_name", constants),
            "process": [visible, *sorted(also)],
            "container": [],
            "ray_noset": sorted(v for v in constants.values() if v.startswith("RAY_EXPERIMENTAL_NOSET_")),
            "device_files": _globs(tree, constants),
            **({"torch_device": TORCH_DEVICE[stem]} if stem in TORCH_DEVICE else {}),
        }
    return vendors, version.group(1) if version else "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ray", required=True)
    ap.add_argument("--clr", required=True)
    ap.add_argument("--rocr", required=True)
    ap.add_argument("--ascend-docker-runtime", required=True)
    ap.add_argument("--nvidia-container-toolkit", required=True)
    args = ap.parse_args()
    vendors, ray_version = ray_vendors(args.ray)
    sources = {"ray": ray_version}

    # HIP: every cstring *_VISIBLE_DEVICES flag, in the order flags.hpp declares them (HIP's own first)
    flags, commit = _git_show(args.clr, "rocclr/utils/flags.hpp")
    hip = re.findall(r"release\(cstring,\s*([A-Z_]+_VISIBLE_DEVICES)\s*,", flags)
    sources["ROCm/clr"] = commit
    rocr_flags, commit = _git_show(args.rocr, "runtime/hsa-runtime/core/util/flag.h")
    rocr = re.findall(r'GetEnvVar\("([A-Z_]+_VISIBLE_DEVICES)"\)', rocr_flags)
    kfd_text, _ = _git_show(args.rocr, "libhsakmt/src/openclose.c")
    kfd = re.findall(r'kfd_device_name\[\]\s*=\s*"([^"]+)"', kfd_text)
    sources["ROCm/ROCR-Runtime"] = commit
    amd = vendors["amd_gpu"]
    first = list(amd["process"])  # type: ignore[call-overload]
    amd["process"] = list(dict.fromkeys([*first, *hip, *rocr]))
    amd["device_files"] = kfd
    amd["source"] = f"{amd['source']}; ROCm/clr rocclr/utils/flags.hpp; ROCm/ROCR-Runtime flag.h, openclose.c"
    # ROCR_VISIBLE_DEVICES is applied by the HSA runtime first; HIP's list then indexes what it left
    amd["applied_first"] = rocr

    text, commit = _git_show(args.ascend_docker_runtime, "runtime/main.go")
    ascend = re.findall(r'ascendVisibleDevices\s*=\s*"([A-Z_]+)"', text)
    sources["Ascend/ascend-docker-runtime"] = commit
    vendors["npu"]["container"] = ascend
    vendors["npu"]["source"] = f"{vendors['npu']['source']}; Ascend/ascend-docker-runtime runtime/main.go"
    text, commit = _git_show(args.nvidia_container_toolkit, "internal/config/image/envvars.go")
    nvidia = re.findall(r'EnvVarNvidiaVisibleDevices\s*=\s*"([A-Z_]+)"', text)
    sources["NVIDIA/nvidia-container-toolkit"] = commit
    vendors["nvidia_gpu"]["container"] = nvidia
    vendors["nvidia_gpu"]["source"] = (
        f"{vendors['nvidia_gpu']['source']}; NVIDIA/nvidia-container-toolkit internal/config/image/envvars.go"
    )
    if not (hip and rocr and kfd and ascend and nvidia):
        print("a source did not have what it should", file=sys.stderr)
        return 1
    OUT.write_text(json.dumps({"sources": sources, "vendors": vendors}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(vendors)} vendors)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
