"""SLURM as a carrier: what a batch script's ``#SBATCH`` directives and ``srun`` do to a server start.

Follows SLURM's documented rules (sbatch(1) and srun(1), SLURM 23-24):
- "The batch script may contain options preceded with "#SBATCH" before any executable commands in the
  script"; sbatch stops reading directives at the first non-comment, non-blank line (sbatch(1), DESCRIPTION).
- The batch script itself runs once, on the first node of the allocation, as task 0: there SLURM_NODEID,
  SLURM_PROCID and SLURM_LOCALID are 0, SLURM_NNODES / SLURM_JOB_NUM_NODES the node count (sbatch(1),
  OUTPUT ENVIRONMENT VARIABLES). So ``srun ... --node-rank $SLURM_NODEID`` is expanded once, by the batch
  shell, to 0, and every task gets that same word.
- ``srun`` starts its command once per task, in each task's own environment, where SLURM_NODEID,
  SLURM_PROCID and SLURM_LOCALID are that task's (srun(1), OUTPUT ENVIRONMENT VARIABLES): inside
  ``srun bash -c '...'`` each task expands them itself. Without ``-n``/``-N``/``--ntasks-per-node`` srun
  runs the job's tasks: ``--ntasks``, else nodes x ``--ntasks-per-node``, else one task per node (sbatch(1),
  ``--ntasks``: "The default is one task per node").

Pure functions over the script's bytes and argv words; no SLURM installation is needed or used.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from argtrace.frameworks.detect import SRUN_WITH_VALUE
from argtrace.layers.nodescope import srun_index

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")

# Set by srun per task: known in the batch shell (task 0 on node 0), unknown inside a task's own shell.
PER_TASK = {
    "SLURM_NODEID": "each srun task's own node index (0..nodes-1)",
    "SLURM_PROCID": "each srun task's own global rank",
    "SLURM_LOCALID": "each srun task's own rank on its node",
}
# Set by SLURM for the job; their values come from the cluster, not from the script.
FROM_THE_CLUSTER = {
    "SLURM_JOB_ID": "the job id SLURM assigns",
    "SLURM_JOBID": "the job id SLURM assigns",
    "SLURM_JOB_NODELIST": "the nodes SLURM allocates",
    "SLURM_NODELIST": "the nodes SLURM allocates",
    "SLURMD_NODENAME": "the node's host name",
    "SLURM_SUBMIT_DIR": "the directory sbatch was run in",
    "SLURM_SUBMIT_HOST": "the host sbatch was run on",
    "SLURM_CPUS_ON_NODE": "the CPUs SLURM allocates on the node",
    "SLURM_JOB_PARTITION": "the partition the job runs in",
    "SLURM_CLUSTER_NAME": "the cluster's name",
}
_DIRECTIVE = re.compile(rb"^#SBATCH\s+(.*)$")


@dataclass(frozen=True)
class Allocation:
    """What the batch script's directives ask for; ``None`` where not given or not a single number."""

    at: str  # FILE:LINE of the first directive
    nodes: int | None = None
    ntasks: int | None = None
    ntasks_per_node: int | None = None
    gpus_per_node: int | None = None
    nodes_at: str | None = None
    gpus_at: str | None = None
    # ``#SBATCH --export``: the batch job's SLURM_EXPORT_ENV, which its srun steps inherit (srun(1))
    export: str | None = None
    # ``#SBATCH --gpus-per-task`` / ``--gpu-bind`` / ``--ntasks-per-gpu``: each task gets its own GPUs
    gpu_binding: tuple[tuple[str, str], ...] = ()

    def section(self) -> dict[str, object]:
        """The report's ``slurm`` section (JSON): what the directives asked for."""
        return {
            "at": self.at,
            "nodes": self.nodes,
            "ntasks": self.ntasks,
            "ntasks_per_node": self.ntasks_per_node,
            "gpus_per_node": self.gpus_per_node,
        }

    @property
    def tasks(self) -> int | None:
        if self.ntasks is not None:
            return self.ntasks
        if self.nodes is not None:
            return self.nodes * (self.ntasks_per_node or 1)
        return None


def _count(value: str | None) -> int | None:
    # --nodes=2-4 (a range) or a list is not one number: unknown.
    return int(value) if value is not None and value.isdigit() else None


def _gpus(value: str | None) -> int | None:
    # --gpus-per-node=8 or =h100:8; --gres=gpu:8 or gpu:h100:8
    if value is None:
        return None
    last = value.rsplit(":", 1)[-1]
    return int(last) if last.isdigit() else None


def parse_options(words: Sequence[str]) -> dict[str, str]:
    """sbatch/srun options as ``{long name: value}`` (``-N 2``, ``-N2``, ``--nodes 2``, ``--nodes=2``)."""
    short = {"-N": "--nodes", "-n": "--ntasks", "-G": "--gpus"}
    out: dict[str, str] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("-"):
            break
        name, eq, value = word.partition("=")
        if not eq and name[:2] in short and len(name) > 2 and not name.startswith("--"):
            name, value, eq = name[:2], name[2:], "="
        if not eq and name in SRUN_WITH_VALUE and i + 1 < len(words):
            value = words[i + 1]
            i += 1
        out[short.get(name, name)] = value
        i += 1
    return out


def batch_directives(data: bytes, label: str) -> Allocation | None:
    """The ``#SBATCH`` directives before the first command, or ``None`` for a script that has none."""
    first_at: str | None = None
    options: dict[str, str] = {}
    nodes_at: str | None = None
    gpus_at: str | None = None
    for number, raw in enumerate(data.splitlines(), start=1):
        line = raw.strip()
        if not line or (line.startswith(b"#") and not line.startswith(b"#SBATCH")):
            continue
        match = _DIRECTIVE.match(line)
        if match is None:
            break  # sbatch reads no directive after the first command
        try:
            words = shlex.split(match.group(1).decode("utf-8", "replace"), comments=True)
        except ValueError:
            continue
        parsed = parse_options(words)
        if "--nodes" in parsed:
            nodes_at = f"{label}:{number}"
        if "--gpus-per-node" in parsed or "gpu" in parsed.get("--gres", ""):
            gpus_at = f"{label}:{number}"
        options.update(parsed)
        first_at = first_at or f"{label}:{number}"
    if first_at is None:
        return None
    gres = options.get("--gres")
    return Allocation(
        at=first_at,
        nodes=_count(options.get("--nodes")),
        ntasks=_count(options.get("--ntasks")),
        ntasks_per_node=_count(options.get("--ntasks-per-node")),
        gpus_per_node=_gpus(options.get("--gpus-per-node"))
        or (_gpus(gres) if gres and "gpu" in gres else None),
        nodes_at=nodes_at,
        gpus_at=gpus_at,
        export=options.get("--export"),
        gpu_binding=gpu_binding(options),
    )


# Options that bind each task to its own GPUs, and the variable sbatch/srun set for each (sbatch(1) and
# srun(1), OUTPUT ENVIRONMENT VARIABLES: "only set if the ... option is specified").
GPU_BINDING = {
    "--gpus-per-task": "SLURM_GPUS_PER_TASK",
    "--gpu-bind": "SLURM_GPU_BIND",
    "--ntasks-per-gpu": "SLURM_NTASKS_PER_GPU",
}


def gpu_binding(options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The variables set for the GPU-binding options among ``options``."""
    return tuple((name, options[flag]) for flag, name in GPU_BINDING.items() if flag in options)


def batch_environment(allocation: Allocation) -> tuple[dict[str, str], dict[str, str]]:
    """The variables SLURM sets for the batch shell: (known name -> value, unknown name -> why)."""
    known = {name: "0" for name in PER_TASK}
    if allocation.nodes is not None:
        known["SLURM_NNODES"] = known["SLURM_JOB_NUM_NODES"] = str(allocation.nodes)
    if allocation.tasks is not None:
        known["SLURM_NTASKS"] = known["SLURM_NPROCS"] = str(allocation.tasks)
    if allocation.ntasks_per_node is not None:
        known["SLURM_NTASKS_PER_NODE"] = str(allocation.ntasks_per_node)
    if allocation.gpus_per_node is not None:
        known["SLURM_GPUS_PER_NODE"] = str(allocation.gpus_per_node)
        # sbatch(1), OUTPUT ENVIRONMENT VARIABLES: SLURM_GPUS_ON_NODE, "Number of GPUs allocated to the batch
        # step": the batch shell runs on the job's first node, with that node's GPUs (``--tensor-parallel-size
        # $((SLURM_NNODES * SLURM_GPUS_ON_NODE))`` was 0: an unset variable in arithmetic)
        known["SLURM_GPUS_ON_NODE"] = str(allocation.gpus_per_node)
    if allocation.export is not None:
        known["SLURM_EXPORT_ENV"] = allocation.export
    known.update(allocation.gpu_binding)
    unknown = dict(FROM_THE_CLUSTER)
    for name in ("SLURM_NNODES", "SLURM_JOB_NUM_NODES", "SLURM_NTASKS", "SLURM_NPROCS"):
        if name not in known:
            unknown[name] = "the count SLURM allocates"
    return known, unknown


@dataclass(frozen=True)
class SrunStep:
    """One ``srun`` in front of a server: how many tasks it starts, on how many nodes."""

    tasks: int | None
    nodes: int | None
    # ``srun --gpus-per-node N`` / ``--gres=gpu:N``; None: the job's (or not given)
    gpus_per_node: int | None = None


def srun_step(prefix: Sequence[str | None], allocation: Allocation | None) -> SrunStep | None:
    """The ``srun`` among the wrapper words before the server's interpreter, or ``None``."""
    words = [w or "" for w in prefix]
    index = srun_index(words)
    if index is None:
        return None
    options = parse_options(words[index + 1 :])
    nodes = _count(options.get("--nodes"))
    ntasks = _count(options.get("--ntasks"))
    per_node = _count(options.get("--ntasks-per-node"))
    if nodes is None and allocation is not None:
        nodes = allocation.nodes
    if ntasks is None:
        if per_node is not None and nodes is not None:
            ntasks = nodes * per_node
        elif "--nodes" in options and nodes is not None:
            ntasks = nodes * (allocation.ntasks_per_node or 1 if allocation else 1)
        elif allocation is not None:
            ntasks = allocation.tasks
    gres = options.get("--gres")
    gpus = _gpus(options.get("--gpus-per-node")) or (_gpus(gres) if gres and "gpu" in gres else None)
    return SrunStep(tasks=ntasks, nodes=nodes, gpus_per_node=gpus)


def step_environment(env: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """A task's environment under srun: the per-task variables become unknown (each task has its own)."""
    return {k: v for k, v in env.items() if k not in PER_TASK}, dict(PER_TASK)


@dataclass(frozen=True)
class Export:
    """``srun --export`` (srun(1), SLURM 23-24), or the ``SLURM_EXPORT_ENV`` srun reads when it is not
    given (a step inherits ``#SBATCH --export`` so): which of the caller's variables reach each task.

    - ``ALL`` (the default): all of them.
    - ``NONE``: none; only the ``SLURM_*`` variables.
    - ``NAME,NAME=value,...``: the ``SLURM_*`` variables, the named ones with their current values, and
      the assignments.
    - ``ALL,NAME=value,...``: all of them, and an assignment only where the caller has no such variable:
      srun(1) "If ALL is specified, then all user environment variables will be loaded and will take
      precedence over any explicitly given environment variables".
    """

    everything: bool
    names: tuple[str, ...] = ()
    assigned: tuple[tuple[str, str], ...] = ()
    at: str = "--export"  # the srun option as written, for the reason a variable is missing
    # what srun itself sets in each task from its options: SLURM_GPUS_ON_NODE ("Number of GPUs available
    # to the step on this node", srun(1)) from --gpus-per-node / --gres=gpu:N; and an `env NAME=VALUE`
    # the task runs before the command (task_assignments)
    sets: tuple[tuple[str, str], ...] = ()

    def keeps(self, name: str) -> bool:
        return self.everything or name.startswith("SLURM") or name in self.names

    def ignored(self, env: Mapping[str, str | None]) -> list[tuple[str, str, str | None]]:
        """The ``ALL,NAME=value`` assignments that do not take effect because the caller exports NAME with
        another value: (name, the assigned text, the value the task gets instead)."""
        if not self.everything:
            return []
        return [(n, t, env[n]) for n, t in self.assigned if n in env and env[n] != t]

    def apply(self, env: Mapping[str, T], value: Callable[[str], T]) -> dict[str, T]:
        """``env`` as each task gets it; ``value`` makes an entry for an assignment's text."""
        out = {k: v for k, v in env.items() if self.keeps(k)}
        for name, text in self.assigned:
            if not (self.everything and name in env):
                out[name] = value(text)
        for name, text in self.sets:
            out[name] = value(text)
        return out


def _step_counts(options: Mapping[str, str], env: Mapping[str, str | None]) -> tuple[tuple[str, str], ...]:
    """``SLURM_STEP_NUM_NODES`` and ``SLURM_STEP_NUM_TASKS``, which srun sets in each task (srun(1), OUTPUT
    ENVIRONMENT VARIABLES), from its ``-N``/``-n``/``--ntasks-per-node`` or the job's (``SLURM_NNODES``,
    ``SLURM_NTASKS``, ``SLURM_NTASKS_PER_NODE`` in the batch shell, ``batch_environment``), as ``srun_step``
    counts them (only the counts known here), after the variables of its GPU-binding options."""
    job_nodes = _count(env.get("SLURM_NNODES"))
    job_tasks = _count(env.get("SLURM_NTASKS"))
    job_per_node = _count(env.get("SLURM_NTASKS_PER_NODE"))
    nodes = _count(options.get("--nodes"))
    tasks = _count(options.get("--ntasks"))
    per_node = _count(options.get("--ntasks-per-node"))
    if nodes is None:
        nodes = job_nodes
    if tasks is None:
        if per_node is not None and nodes is not None:
            tasks = nodes * per_node
        elif "--nodes" in options and nodes is not None:
            tasks = nodes * (job_per_node or 1)
        else:
            tasks = job_tasks
    out = list(gpu_binding(options))
    if nodes is not None:
        out.append(("SLURM_STEP_NUM_NODES", str(nodes)))
    if tasks is not None:
        out.append(("SLURM_STEP_NUM_TASKS", str(tasks)))
    return tuple(out)


def sbatch_wrap(words: Sequence[str | None]) -> tuple[int, int] | None:
    """``sbatch ... --wrap=STRING`` / ``--wrap STRING``: the index of the word holding STRING and where STRING
    starts in it. sbatch(1), ``--wrap``: "Sbatch will wrap the specified command string in a simple "sh"
    shell script, and submit that script to the slurm controller"; no batch script is named then."""
    if not words or (words[0] or "").rsplit("/", 1)[-1] != "sbatch":
        return None
    for i, word in enumerate(words[1:], 1):
        if word == "--wrap" and i + 1 < len(words):
            return i + 1, 0
        if word is not None and word.startswith("--wrap="):
            return i, len("--wrap=")
        if word is not None and not word.startswith("-") and not (words[i - 1] or "").startswith("-"):
            return None  # the batch script: options after it are the script's own
    return None


def task_assignments(
    export: Export | None, words: Sequence[str | None], assigned: Sequence[tuple[int, str, str]]
) -> Export | None:
    """``export`` with the ``env NAME=VALUE`` assignments among ``words`` that come after ``srun``
    (``srun --export=NONE env PORT=9 ./s.sh``): ``env`` runs in each task, after srun has chosen the task's
    environment, so NAME reaches the script whatever ``--export`` says (env(1): "Set each NAME to VALUE in
    the environment and run COMMAND"). ``assigned``: (word index, name, value), as ``unwrap_with_env``
    gives them. An assignment before ``srun`` (``env X=1 srun ...``) is the caller's and stays subject to
    ``--export``."""
    if export is None:
        return None
    at = srun_index(words)
    late = tuple((name, value) for i, name, value in assigned if at is not None and i > at)
    return replace(export, sets=export.sets + late) if late else export


def srun_export(
    words: Sequence[str | None], env: Mapping[str, str | None], program: str = "srun"
) -> Export | None:
    """The ``--export`` of the ``srun`` (or ``sbatch``) among ``words`` (the wrapper words before the
    command), else the ``SLURM_EXPORT_ENV`` (sbatch: ``SBATCH_EXPORT``, sbatch(1) INPUT ENVIRONMENT
    VARIABLES) in ``env``; ``None`` when neither is given (ALL) or the value is unknown."""
    texts = [w or "" for w in words]
    index = next((i for i, w in enumerate(texts) if w.rsplit("/", 1)[-1] == program), None)
    if index is None:
        return None
    options = parse_options(texts[index + 1 :])
    gres = options.get("--gres")
    gpus = _gpus(options.get("--gpus-per-node")) or (_gpus(gres) if gres and "gpu" in gres else None)
    sets: tuple[tuple[str, str], ...] = (("SLURM_GPUS_ON_NODE", str(gpus)),) if gpus is not None else ()
    sets += _step_counts(options, env)
    given = options.get("--export")
    variable = "SBATCH_EXPORT" if program == "sbatch" else "SLURM_EXPORT_ENV"
    value = given if given is not None else env.get(variable)
    if not value:
        return Export(True, sets=sets, at="--export=ALL") if sets else None
    at = f"--export={value}" if given is not None else f"{variable}={value}"
    everything, names, assigned = False, [], []
    for item in value.split(","):
        name, eq, text = item.partition("=")
        if item.upper() == "ALL":
            everything = True
        elif item.upper() == "NONE":
            continue
        elif eq:
            assigned.append((name, text))
        elif name:
            names.append(name)
    if everything and not assigned and not sets:
        return None
    return Export(everything, tuple(names), tuple(assigned), at, sets)
