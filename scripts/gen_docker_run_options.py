#!/usr/bin/env python3
"""Generate src/argtrace/data/docker_run_options.json: the options of ``docker run``, read from the installed
docker CLI's own ``docker run --help`` (its version kept in ``source``), and which of its long options no
bundled SGLang or vLLM release has or abbreviates.

docker reads its options only before the image (``docker container run [OPTIONS] IMAGE [COMMAND] [ARG...]``);
a word after the image is the container's. ``outside_servers`` lists the long options of ``docker run`` that
are neither an option of any bundled schema (``src/argtrace/frameworks/data/schemas``) nor a prefix of one
(argparse takes a unique prefix as an abbreviation): written after the image, such a word is docker's option
in the wrong place, never a server flag (rule TP020). ``carried_by``: for the options that set the container
itself (shared memory, IPC and network namespaces, privileges, runtime, GPUs), the compose key and the
Kubernetes field that carry them (rule TP023). ``exec_options``: ``docker exec --help``'s options (the
transport layer reads the command after them). ``--check`` compares the file with what the installed
docker and the bundled schemas give now.

  python scripts/gen_docker_run_options.py [--docker PATH] [--check]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src/argtrace/data/docker_run_options.json"
SCHEMAS = ROOT / "src/argtrace/frameworks/data/schemas"

# "  -a, --attach list      Attach to ...", "      --add-host list ...", "  -d, --detach   Run ..." (no value)
_LINE = re.compile(
    r"^\s{2,6}(?:-(?P<short>[A-Za-z]), )?--(?P<long>[a-z0-9][a-z0-9-]*)(?: (?P<type>[a-z0-9-]+))?\s{2,}"
)


def docker_run_options(docker: str, command: str = "run") -> tuple[str, dict[str, dict[str, object]]]:
    """The docker CLI's version line and its ``docker COMMAND`` options (``run``, ``exec``): long name ->
    short name, value."""
    version = subprocess.run([docker, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    help_run = subprocess.run([docker, command, "--help"], capture_output=True, text=True, check=True)
    text = help_run.stdout
    options: dict[str, dict[str, object]] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        options[f"--{m['long']}"] = {
            "short": f"-{m['short']}" if m["short"] else None,
            "value": m["type"] is not None,
        }
    return version, options


def server_option_strings() -> set[str]:
    """Every option string of every bundled SGLang and vLLM schema."""
    out: set[str] = set()
    for path in sorted(SCHEMAS.glob("*.json")):
        data = json.loads(path.read_text())
        for option in data.get("options") or ():
            if isinstance(option, dict):
                out.update(s for s in option.get("option_strings") or () if isinstance(s, str))
    return out


# Where compose and Kubernetes keep what a `docker run` option sets for the container (rule TP023: such an
# option written in a manifest's `command`/`args` reaches the program, the container never gets it). Read
# from each carrier's own reference; only options the runtime applies to the container itself, whose
# equivalent is a field of the service or the pod:
#   compose: the Compose file reference, services
#     (https://docs.docker.com/reference/compose-file/services/): `shm_size`, `ipc`, `network_mode`,
#     `privileged`, `runtime`, `gpus` / deploy.resources.reservations.devices
#   Kubernetes: PodSpec `hostIPC`, `hostNetwork`, `runtimeClassName`; SecurityContext `privileged`
#     (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/); /dev/shm: an
#     `emptyDir` volume with `medium: Memory` mounted there
#     (https://kubernetes.io/docs/concepts/storage/volumes/#emptydir, the form vLLM's Kubernetes page
#     uses); GPUs: `resources.limits` `nvidia.com/gpu`
#     (https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/)
CARRIED_BY = {
    "--shm-size": {
        "compose": "`shm_size: SIZE`",
        "kubernetes": "an `emptyDir` volume with `medium: Memory` (and a `sizeLimit`) mounted at /dev/shm",
    },
    "--ipc": {"compose": "`ipc: host`", "kubernetes": "`hostIPC: true` in the pod spec"},
    "--network": {"compose": "`network_mode: host`", "kubernetes": "`hostNetwork: true` in the pod spec"},
    "--privileged": {
        "compose": "`privileged: true`",
        "kubernetes": "`securityContext: {privileged: true}` on the container",
    },
    "--runtime": {"compose": "`runtime: NAME`", "kubernetes": "`runtimeClassName` in the pod spec"},
    "--gpus": {
        "compose": "`deploy.resources.reservations.devices` (or `gpus:`)",
        "kubernetes": "`resources.limits: {nvidia.com/gpu: N}` on the container",
    },
}


def generate(docker: str) -> dict[str, object]:
    version, options = docker_run_options(docker)
    servers = server_option_strings()
    outside = sorted(name for name in options if not any(s == name or s.startswith(name) for s in servers))
    unknown = sorted(set(CARRIED_BY) - set(outside))
    if unknown:
        raise SystemExit(f"CARRIED_BY names options docker lacks or servers have: {unknown}")
    return {
        "format": 1,
        "generated_by": "scripts/gen_docker_run_options.py",
        "source": f"`docker run --help` of {version}",
        "options": dict(sorted(options.items())),
        "outside_servers": outside,
        "carried_by": dict(sorted(CARRIED_BY.items())),
        # docker exec [OPTIONS] CONTAINER COMMAND [ARG...]: read by layers/transport/docker_cli.py
        "exec_options": dict(sorted(docker_run_options(docker, "exec")[1].items())),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docker", default="docker")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = json.dumps(generate(args.docker), indent=1) + "\n"
    if args.check:
        if OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} differs from what the installed docker gives", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
