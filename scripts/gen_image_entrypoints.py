#!/usr/bin/env python3
"""Generate src/argtrace/data/image_entrypoints.json: the effective ENTRYPOINT/CMD of the official images.

For each Dockerfile given, the target stage's ENTRYPOINT and CMD are worked out as the builder does
(Dockerfile reference): ``FROM`` names a stage of the same file or an external image (``ARG`` defaults
expanded); a stage starts with its parent's ENTRYPOINT/CMD; ``ENTRYPOINT`` resets an inherited CMD to empty;
the exec form is a JSON array, the shell form runs ``/bin/sh -c``. An external base image's entrypoint
comes from ``BASES`` below, each with where it was read: an entrypoint inherited from a base counts.

Inputs: ``--dockerfile "IMAGE|LABEL|PATH[|TAG,TAG...]"`` (LABEL says where the file was read, e.g.
``vllm-project/vllm@dead20ba:docker/Dockerfile``), or ``--mirror GITDIR --ref REF --path docker/Dockerfile
--image IMAGE [--tags ...]`` to read ``git show REF:PATH`` in a framework mirror (``fetch github:...``);
``--stage`` picks the target stage (default: the last one). Rows are written newest first, in the order
given.

  python scripts/gen_image_entrypoints.py --dockerfile "vllm/vllm-openai|LABEL|FILE" --stage vllm-openai ...
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/data/image_entrypoints.json"

_NVIDIA = ["/opt/nvidia/nvidia_entrypoint.sh"]
_NVIDIA_WHY = (
    "runs its arguments after sourcing /opt/nvidia/entrypoint.d/*.sh (scripts there may set variables); "
    "the script itself was not read here"
)
# External base images: (pattern, entrypoint, cmd, exec_wrapper, where it was read)
BASES: list[tuple[str, list[str] | None, list[str], bool, str]] = [
    (
        "nvidia/cuda:*-runtime-*",
        _NVIDIA,
        [],
        True,
        'NVIDIA\'s CUDA runtime image sets ENTRYPOINT ["/opt/nvidia/nvidia_entrypoint.sh"] (layer history of '
        "nvidia/cuda:12.1.1-cudnn8-devel-ubuntu22.04 and 12.8.1 images, copies in public repositories; "
        "source: gitlab.com/nvidia/container-images/cuda dist/*/ubuntu*/runtime/Dockerfile); " + _NVIDIA_WHY,
    ),
    (
        "nvidia/cuda:*-devel-*",
        _NVIDIA,
        [],
        True,
        "built on the runtime image, so its ENTRYPOINT; " + _NVIDIA_WHY,
    ),
    (
        "nvidia/cuda:*-base-*",
        None,
        ["/bin/bash"],
        False,
        "no ENTRYPOINT (set in the runtime image); ubuntu's CMD",
    ),
    (
        "nvcr.io/nvidia/*",
        _NVIDIA,
        [],
        True,
        "NGC images (tritonserver, pytorch) keep the CUDA images' ENTRYPOINT nvidia_entrypoint.sh "
        "(triton-inference-server's build.py adds it only for its CPU-only build, whose ubuntu base lacks "
        "it); " + _NVIDIA_WHY,
    ),
    ("ubuntu:*", None, ["/bin/bash"], False, 'ubuntu images: CMD ["/bin/bash"] (their layer history)'),
    ("scratch", None, [], False, "an empty image"),
]


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, rest) with continuation lines joined and comments dropped."""
    out: list[tuple[str, str]] = []
    cur = ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if not cur and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        cur += line
        word, _, rest = cur.strip().partition(" ")
        out.append((word.upper(), rest.strip()))
        cur = ""
    return out


def _form(rest: str) -> list[str]:
    if rest.startswith("["):
        return [str(w) for w in json.loads(rest)]
    return ["/bin/sh", "-c", rest]


def _expand(text: str, args: dict[str, str]) -> str:
    return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: args.get(m.group(1), m.group(0)), text)


def _base(image: str) -> tuple[list[str] | None, list[str], bool, str]:
    for pattern, ep, cmd, wrapper, why in BASES:
        if fnmatch.fnmatch(image, pattern):
            return ep, cmd, wrapper, f"inherited from {image}: {why}"
    return None, [], False, f"inherited from {image}, whose entrypoint is not in BASES (unknown)"


def effective(text: str, stage: str | None) -> dict[str, object]:
    """The target stage's effective entrypoint, cmd, and where each came from."""
    args: dict[str, str] = {}
    stages: dict[str, dict[str, object]] = {}
    order: list[str] = []
    cur: dict[str, object] | None = None
    for word, rest in _instructions(text):
        if word == "ARG" and cur is None:
            name, _, default = rest.partition("=")
            args[name.strip()] = _expand(default.strip().strip('"'), args)
        elif word == "FROM":
            parts = [p for p in rest.split() if not p.startswith("--")]
            image = _expand(parts[0], args)
            name = parts[2] if len(parts) >= 3 and parts[1].lower() == "as" else f"#{len(order)}"
            if image in stages:
                parent = dict(stages[image])
            else:
                ep, cmd, wrapper, why = _base(image)
                parent = {"entrypoint": ep, "cmd": cmd, "exec_wrapper": wrapper, "from": why, "base": image}
            parent["cmd_inherited"] = True
            cur = stages[name] = parent
            order.append(name)
        elif cur is not None and word == "ENTRYPOINT":
            cur["entrypoint"] = _form(rest)
            cur["exec_wrapper"] = False
            if cur.get("cmd_inherited"):
                cur[
                    "cmd"
                ] = []  # "setting ENTRYPOINT will reset CMD to an empty value" (Dockerfile reference)
            cur["from"] = "set in this stage"
        elif cur is not None and word == "CMD":
            cur["cmd"] = _form(rest)
            cur["cmd_inherited"] = False
    target = stage or order[-1]
    got = stages[target]
    return {
        "stage": target,
        "entrypoint": got["entrypoint"] or [],
        "cmd": got["cmd"],
        "exec_wrapper": got["exec_wrapper"],
        "entrypoint_from": got["from"],
        "base": got.get("base"),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dockerfile", action="append", default=[], help="IMAGE|LABEL|PATH[|TAGS]")
    ap.add_argument("--stage", action="append", default=[], help="IMAGE=STAGE")
    ap.add_argument("--mirror")
    ap.add_argument("--ref", action="append", default=[], help="with --mirror: IMAGE=REF=PATH[=TAGS]")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    stages = dict(s.split("=", 1) for s in a.stage)
    images: dict[str, list[dict[str, object]]] = {}
    inputs: list[tuple[str, str, str, list[str]]] = []
    for spec in a.dockerfile:
        image, label, path, *tags = spec.split("|")
        inputs.append((image, label, Path(path).read_text(), tags[0].split(",") if tags and tags[0] else []))
    for spec in a.ref:
        image, ref, path, *tags = spec.split("=")
        text = subprocess.run(
            ["git", "--git-dir", a.mirror, "show", f"{ref}:{path}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        inputs.append(
            (image, f"{Path(a.mirror).name}@{ref}:{path}", text, tags[0].split(",") if tags else [ref])
        )
    for image, label, text, tags in inputs:
        row = effective(text, stages.get(image))
        row["source"] = f"{label} (stage {row['stage']}: ENTRYPOINT {row['entrypoint_from']})"
        row["tags"] = tags
        images.setdefault(image, []).append(row)
    data = {
        "generated_by": "scripts/gen_image_entrypoints.py",
        "rules": "Dockerfile reference (CMD/ENTRYPOINT interaction); docker run reference; Compose file "
        "reference (command, entrypoint); Kubernetes 'Define a Command and Arguments for a Container'",
        "images": images,
    }
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if a.check:
        same = OUT.exists() and OUT.read_text() == text
        print("equal" if same else f"{OUT} differs")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT}: " + ", ".join(f"{k} ({len(v)})" for k, v in images.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
