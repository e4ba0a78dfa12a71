#!/usr/bin/env python3
"""Generate src/argtrace/data/image_entrypoints.json: the effective ENTRYPOINT/CMD of the official images,
per range of releases.

For each Dockerfile version given, the target stage's ENTRYPOINT and CMD are worked out as the builder does
(Dockerfile reference): ``FROM`` names a stage of the same file or an external image (global ``ARG``
defaults expanded); a stage starts with its parent's ENTRYPOINT/CMD; ``ENTRYPOINT`` resets an inherited CMD
to empty; the exec form is a JSON array, the shell form runs ``/bin/sh -c``. An external base image's
entrypoint comes from ``BASES`` below, each with where it was read: an entrypoint inherited from a base
counts. Which releases (image tags ``vX.Y.Z``) each Dockerfile version covers, and the public evidence for
it, is ``RELEASES`` below; a row without an entry there covers only the tags given with it.

Inputs: ``--dockerfile "IMAGE|REPO|PATH|COMMIT|FILE"`` (FILE holds the Dockerfile as read at that commit,
e.g. through the code index: only its global ARGs and its FROM, ENTRYPOINT and CMD instructions matter), or
``--mirror GITDIR --ref IMAGE=REF=PATH`` to read ``git show REF:PATH`` in a framework mirror; ``--stage
IMAGE=STAGE`` picks the target stage (default: the last one). A row of the current table whose Dockerfile is
not given again is kept as it was read (its Dockerfile-derived fields and recorded source), with its releases
and evidence refreshed from ``RELEASES``: so ``--check`` without inputs checks the table against
``RELEASES``, and a new Dockerfile version is added without re-reading the others. Rows are written newest
first (by their first release). The rows F1-F5 were written by:

  V="vllm/vllm-openai|vllm-project/vllm"; S="lmsysorg/sglang|sgl-project/sglang|docker/Dockerfile"
  python scripts/gen_image_entrypoints.py --stage vllm/vllm-openai=vllm-openai \\
    --dockerfile "$V|docker/Dockerfile|dead20baf70df70580ecb093f82b0b7b8676e4f5|F1" \\
    --dockerfile "$V|docker/Dockerfile|0000977eaf873be6a295cf73017976d49ca2fb9d|F2" \\
    --dockerfile "$V|Dockerfile|e93d59a63db72e5101fd1eae3e9220cf30866709|F3" \\
    --dockerfile "$S|004740a9cb3dbf6153455fb38b447021e3e07236|F4" \\
    --dockerfile "$S|924d890f1c840188bf6ffd9ccd62e7508cc248a2|F5"

and the row F6 was added (the others kept) by:

  python scripts/gen_image_entrypoints.py --stage vllm/vllm-openai=vllm-openai \\
    --dockerfile "$V|docker/Dockerfile|6e448d0ea9bf3d88d898b65449ca6dc2aec170ac|F6"

and the row F7 likewise by:

  python scripts/gen_image_entrypoints.py --dockerfile "$S|f82ccc94b0e7c45d7e8e856b92eda8f0062a21c3|F7"

(F6, F7: the file's global ARGs and its FROM/ENTRYPOINT/CMD instructions, read at that commit through the code
index (F6: file id 57495221898, F7: file id 3866135986).)
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
    "nvidia_entrypoint.sh prints /opt/nvidia/entrypoint.d/*.txt, sources entrypoint.d/*.sh (which may set "
    'variables), then runs `exec "$@"`, or `exec /bin/bash` when given no arguments (read in a copy of '
    "NVIDIA's script for the CUDA 12.2.0 runtime image: https://github.com/redhat-na-ssa/demo-ocp-gpu/blob/"
    "6d088e0294a7af4b85f0b1375992fb29af86480a/containers/udi-cuda/12.2.0/ubi8/runtime/nvidia_entrypoint.sh); "
    "the entrypoint.d scripts of each image were not read"
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


_PYPI = "https://pypi.org/pypi/{}/{}/json"


def _pin(pkg: str, version: str, pin: str) -> dict[str, str]:
    what = f"{pkg} {version} requires {pin} (its wheel's metadata)"
    return {"what": what, "url": _PYPI.format(pkg, version)}


# Which releases each Dockerfile version's ENTRYPOINT covers: (image, commit) -> (first, last, evidence).
# The ends are where the evidence stops: a report of the image of that release, or a Dockerfile whose
# dependency pins place it between two releases (PyPI metadata); the releases between two pieces of
# evidence that show the same ENTRYPOINT are taken to have it too.
RELEASES: dict[tuple[str, str], tuple[str, str, list[dict[str, str]]]] = {
    ("vllm/vllm-openai", "6e448d0ea9bf3d88d898b65449ca6dc2aec170ac"): (
        "0.27.0",
        "0.27.1",
        [
            {
                "what": "this Dockerfile is vLLM 0.27's: its test stage's uv cache is named "
                "uv-v027-ubuntu2204, it installs flashinfer-jit-cache 0.6.16.post3 (vLLM 0.33.0 requires "
                "flashinfer-python 0.7.0.post1), and a public note checked against the tag v0.27.1 names "
                'this commit as the tag\'s and quotes this stage\'s ENTRYPOINT ["vllm", "serve"] (code '
                "index file id 69746520975, its repository not shown by the index)",
                "url": "https://github.com/vllm-project/vllm/blob/6e448d0ea9bf3d88d898b65449ca6dc2aec170ac/"
                "docker/Dockerfile",
            },
            {
                "what": "vllm 0.33.0 requires flashinfer-python==0.7.0.post1 (its wheel's metadata)",
                "url": "https://pypi.org/pypi/vllm/json",
            },
            {
                "what": "0.27.0 lies between 0.26.0 (`docker image inspect`: "
                'Entrypoint=["vllm","serve"], NVIDIA-AI-IOT/jetson-ai-lab#420) and this Dockerfile of '
                "0.27.1, which show the same ENTRYPOINT",
                "url": "https://github.com/NVIDIA-AI-IOT/jetson-ai-lab/pull/420",
            },
        ],
    ),
    ("vllm/vllm-openai", "dead20baf70df70580ecb093f82b0b7b8676e4f5"): (
        "0.11.1",
        "0.26.0",
        [
            {
                "what": "this Dockerfile installs flashinfer-cubin==0.4.1: newer than vLLM 0.11.0's pin, "
                "older than 0.11.1's, so it lies between the two releases, after 0.11.0 still ran the "
                "api_server module",
                "url": "https://github.com/vllm-project/vllm/blob/dead20baf70df70580ecb093f82b0b7b8676e4f5/"
                "docker/Dockerfile",
            },
            _pin("vllm", "0.11.0", "flashinfer-python==0.3.1"),
            _pin("vllm", "0.11.1", "flashinfer-python==0.5.2"),
            {
                "what": "vllm/vllm-openai:latest on vLLM 0.17.1: `vllm serve M` after the image gives `vllm: "
                "error: unrecognized arguments: serve M` (the entrypoint is already `vllm serve`)",
                "url": "https://github.com/vllm-project/vllm/issues/37133",
            },
            {
                "what": "`docker image inspect vllm/vllm-openai:latest` on vLLM 0.26.0 shows "
                'Entrypoint=["vllm","serve"], Cmd=null',
                "url": "https://github.com/NVIDIA-AI-IOT/jetson-ai-lab/pull/420",
            },
        ],
    ),
    ("vllm/vllm-openai", "0000977eaf873be6a295cf73017976d49ca2fb9d"): (
        "0.5.4",
        "0.11.0",
        [
            {
                "what": "this Dockerfile (CUDA 12.8.1, torch 2.7.0 release candidates, docs in mkdocs) is of "
                "the vLLM 0.9 development; the older root Dockerfile (vLLM 0.5) has the same ENTRYPOINT",
                "url": "https://github.com/vllm-project/vllm/blob/0000977eaf873be6a295cf73017976d49ca2fb9d/"
                "docker/Dockerfile",
            },
            {
                "what": "vllm/vllm-openai:latest on 2025-08-01 (vLLM 0.10.0): `serve M` after the image "
                "gives api_server.py's `unrecognized arguments`",
                "url": "https://github.com/vllm-project/vllm/issues/22072",
            },
            {
                "what": "vllm/vllm-openai:v0.11.0: `serve M` after the image gives `api_server.py: error: "
                "unrecognized arguments: serve M`",
                "url": "https://github.com/gpustack/gpustack/issues/2922",
            },
        ],
    ),
    ("vllm/vllm-openai", "e93d59a63db72e5101fd1eae3e9220cf30866709"): (
        "0.4.0.post1",
        "0.5.3.post1",
        [
            {
                "what": "this root Dockerfile installs a flashinfer 0.0.8 wheel built for torch 2.3, the "
                "torch of vLLM 0.4.3 to 0.5.3.post1",
                "url": "https://github.com/vllm-project/vllm/blob/e93d59a63db72e5101fd1eae3e9220cf30866709/"
                "Dockerfile",
            },
            _pin("vllm", "0.5.3.post1", "torch==2.3.1"),
            {
                "what": "vLLM 0.4.0.post1's docs run the image as `vllm/vllm-openai:latest --model M` (the "
                "OpenAI-compatible server module; `vllm serve` came in 0.5.1)",
                "url": "https://docs.vllm.ai/en/v0.4.0.post1/serving/deploying_with_docker.html",
            },
        ],
    ),
    ("lmsysorg/sglang", "004740a9cb3dbf6153455fb38b447021e3e07236"): (
        "0.5.3.post2",
        "0.5.5",
        [
            {
                "what": "this Dockerfile builds ARG SGL_VERSION=0.5.5 (git clone --branch v0.5.5)",
                "url": "https://github.com/sgl-project/sglang/blob/004740a9cb3dbf6153455fb38b447021e3e07236/"
                "docker/Dockerfile",
            },
            {
                "what": "0.5.3.post2 to 0.5.4.post3 lie between the Dockerfile of 0.5.3.post1 "
                "(sglang@f82ccc94) and this one of 0.5.5: both inherit nvidia_entrypoint.sh from "
                "nvidia/cuda:12.9.1-cudnn-devel and set no ENTRYPOINT, so the releases between are taken to "
                "have it (not read one by one)",
                "url": "https://github.com/sgl-project/sglang/blob/f82ccc94b0e7c45d7e8e856b92eda8f0062a21c3/"
                "docker/Dockerfile",
            },
        ],
    ),
    ("lmsysorg/sglang", "f82ccc94b0e7c45d7e8e856b92eda8f0062a21c3"): (
        "0.4.7",
        "0.5.3.post1",
        [
            {
                "what": "this Dockerfile (no ENTRYPOINT or CMD of its own; FROM "
                "nvidia/cuda:12.9.1-cudnn-devel-ubuntu22.04) installs sgl-kernel 0.3.15, the pin of SGLang "
                "0.5.3.post1 (0.5.3: 0.3.14.post1, 0.5.4: 0.3.16.post3), and clones the main branch: it is "
                "of the 0.5.3.post1 development",
                "url": "https://github.com/sgl-project/sglang/blob/f82ccc94b0e7c45d7e8e856b92eda8f0062a21c3/"
                "docker/Dockerfile",
            },
            _pin("sglang", "0.5.3", "sgl-kernel==0.3.14.post1"),
            _pin("sglang", "0.5.3.post1", "sgl-kernel==0.3.15"),
            _pin("sglang", "0.5.4", "sgl-kernel==0.3.16.post3"),
            {
                "what": "0.4.7 to 0.5.3 lie between the Dockerfile of 0.4.5-0.4.6.post5 (sglang@924d890f, "
                "NGC base) and this one: both inherit NVIDIA's nvidia_entrypoint.sh and set no ENTRYPOINT, "
                "so the releases between are taken to have it (not read one by one)",
                "url": "https://github.com/sgl-project/sglang/blob/924d890f1c840188bf6ffd9ccd62e7508cc248a2/"
                "docker/Dockerfile",
            },
        ],
    ),
    ("lmsysorg/sglang", "924d890f1c840188bf6ffd9ccd62e7508cc248a2"): (
        "0.4.5",
        "0.4.6.post5",
        [
            {
                "what": "this Dockerfile installs flashinfer from its torch2.6 index: SGLang 0.4.5 to "
                "0.4.6.post5 require torch 2.6.0 (0.4.4.post4: 2.5.1, 0.4.7: 2.7.1)",
                "url": "https://github.com/sgl-project/sglang/blob/924d890f1c840188bf6ffd9ccd62e7508cc248a2/"
                "docker/Dockerfile",
            },
            _pin("sglang", "0.4.5.post3", "torch==2.6.0"),
            _pin("sglang", "0.4.6.post5", "torch==2.6.0"),
        ],
    ),
}


def _set_releases(image: str, row: dict[str, object], commit: str) -> None:
    first, last, evidence = RELEASES.get((image, commit), (None, None, []))
    row["releases"] = {"first": first, "last": last} if first else None
    row["evidence"] = evidence
    row["tags"] = [f"v{first}"] if first and first == last else []


def _version_key(span: object) -> tuple[int, ...]:
    if not isinstance(span, dict):
        return ()
    return tuple(int(p) for p in str(span["first"]).replace(".post", ".").split("."))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dockerfile", action="append", default=[], help="IMAGE|REPO|PATH|COMMIT|FILE")
    ap.add_argument("--stage", action="append", default=[], help="IMAGE=STAGE")
    ap.add_argument("--mirror")
    ap.add_argument("--ref", action="append", default=[], help="with --mirror: IMAGE=REF=PATH")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    stages = dict(s.split("=", 1) for s in a.stage)
    images: dict[str, list[dict[str, object]]] = {}
    inputs: list[tuple[str, str, str, str, str]] = []  # image, repo, path, commit, text
    for spec in a.dockerfile:
        image, repo, path, commit, file = spec.split("|")
        inputs.append((image, repo, path, commit, Path(file).read_text()))
    for spec in a.ref:
        image, ref, path = spec.split("=")
        text = subprocess.run(
            ["git", "--git-dir", a.mirror, "show", f"{ref}:{path}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        inputs.append((image, Path(a.mirror).name, path, ref, text))
    given = {(image, commit) for image, _repo, _path, commit, _text in inputs}
    kept: list[tuple[str, dict[str, object]]] = []
    if OUT.exists():
        for image, rows in json.loads(OUT.read_text()).get("images", {}).items():
            for old in rows:
                if (image, old["dockerfile"]["commit"]) not in given:
                    kept.append((image, dict(old)))
    for image, row in kept:
        _set_releases(image, row, str(row["dockerfile"]["commit"]))  # type: ignore[index]
        images.setdefault(image, []).append(row)
    for image, repo, path, commit, text in inputs:
        row = effective(text, stages.get(image))
        row["dockerfile"] = {
            "repo": repo,
            "path": path,
            "commit": commit,
            "url": f"https://github.com/{repo}/blob/{commit}/{path}",
        }
        row["source"] = (
            f"{repo}@{commit[:8]}:{path} (stage {row['stage']}: ENTRYPOINT {row['entrypoint_from']})"
        )
        _set_releases(image, row, commit)
        images.setdefault(image, []).append(row)
    for rows in images.values():
        # newest first: by the first release each row covers (rows without a range last)
        rows.sort(key=lambda r: _version_key(r.get("releases")), reverse=True)
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
