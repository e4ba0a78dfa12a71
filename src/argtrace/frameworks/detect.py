"""Recognise an SGLang or vLLM server start from an argv (a script's simple command or a real /proc argv).

A pure function over a list of strings: no filesystem, no environment. Wrappers that exec their operand
(``env``, ``nohup``, ``numactl``, ``taskset``, ``uv run``, ``conda run``, ``timeout``, ``stdbuf``, ``setsid``,
``srun``, ``nice``, ``sudo``, ``torchrun -m``...) are skipped with their own options; ``VAR=value`` words
handed to ``env`` are collected, since the server process inherits them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from argtrace.frameworks.wrappers import (
    EnvRunner,
    Options,
    bash_time,
    env_runner,
    options_of,
    scan_options,
    skip_wrapper,
)
from argtrace.model import FrameworkName

_PYTHON = re.compile(r"^(?:.*/)?(?:python|python3|python3\.\d+|python2(?:\.\d+)?|pypy3?)$")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

# module -> (framework, entrypoint name)
_MODULES: dict[str, tuple[FrameworkName, str]] = {
    "sglang.launch_server": ("sglang", "sglang.launch_server"),
    # SGLang's server flags plus the router's --router-* ones (frameworks/sglang_router.py)
    "sglang_router.launch_server": ("sglang", "sglang_router.launch_server"),
    "vllm.entrypoints.openai.api_server": ("vllm", "vllm.entrypoints.openai.api_server"),
    # NVIDIA Dynamo's workers: the engine's flags plus Dynamo's own (frameworks/dynamo.py)
    "dynamo.sglang": ("sglang", "dynamo.sglang"),
    "dynamo.vllm": ("vllm", "dynamo.vllm"),
    # KServe's Hugging Face runtime: vLLM's make_arg_parser options plus KServe's (frameworks/kserve_hf.py)
    "huggingfaceserver": ("vllm", "huggingfaceserver"),
    # vLLM's demo server: the engine's flags and its own (frameworks/vllm_demo.py), in the releases with it
    "vllm.entrypoints.api_server": ("vllm", "vllm.entrypoints.api_server"),
    # TRL's generation server for online RL: TrlParser's options, then vLLM (frameworks/trl_vllm_serve.py)
    "trl.scripts.vllm_serve": ("vllm", "trl vllm-serve"),
}
# modules that behave like the console script (``python -m vllm.entrypoints.cli.main serve``)
CLI_MODULES: dict[str, tuple[FrameworkName, str]] = {
    "vllm.entrypoints.cli.main": ("vllm", "vllm serve"),
    "sglang.cli.main": ("sglang", "sglang serve"),
}
# TRL's CLI (``trl = trl.cli:main``): ``trl vllm-serve ARGS``; ``trl.cli`` is a module with a __main__ guard
# in 0.17-0.28 and a package whose ``trl.cli.main`` has one from 0.29 (data/trl_vllm_serve.json ``modules``)
_TRL_CLI_MODULES = frozenset({"trl.cli", "trl.cli.main"})
TRL_SUBCOMMAND = "vllm-serve"
_CONSOLE: dict[str, FrameworkName] = {"sglang": "sglang", "vllm": "vllm"}
# ``vllm bench latency|throughput`` build the engine in-process from the engine's flags (frameworks/
# vllm_bench.py); ``vllm bench serve`` is a client of a running server, not a start
BENCH_ENGINES = frozenset({"latency", "throughput"})


def _bench(fw: str, words: Sequence[str]) -> str | None:
    """``vllm bench NAME``'s entry point for ``words`` (``bench``, NAME...) when NAME starts an engine."""
    if fw == "vllm" and len(words) >= 2 and words[0] == "bench" and words[1] in BENCH_ENGINES:
        return f"vllm bench {words[1]}"
    return None


# The console script kept under a name with its release, side by side with others (GPUStack installs each
# backend release as ``bin/vllm_v0.10.0``): the same program, so the same parser.
_VERSIONED_CONSOLE = re.compile(
    r"^(?P<name>sglang|vllm)[_-]v?\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?(?:\.post\d+)?$"
)

# Python options that take a separate value.
_PY_OPTS_WITH_VALUE = {"-X", "-W", "-Q"}


@dataclass(frozen=True)
class Detection:
    """A command recognised as a server start: which framework and entry point, where the server's own
    arguments begin, and the interpreter, wrappers and runner in front of it."""

    framework: FrameworkName
    entrypoint: (
        str  # "sglang.launch_server", "sglang serve", "vllm serve", "vllm.entrypoints.openai.api_server"
    )
    server_args_start: int  # index of the first word the framework's argument parser gets
    interpreter: str | None  # the python word ("python3", "/opt/venv/bin/python"), None for console scripts
    command_index: int  # index of the interpreter or console-script word (after wrappers)
    wrappers: tuple[str, ...] = ()  # wrapper words skipped, e.g. ("env", "numactl")
    env_assignments: tuple[tuple[int, str, str], ...] = field(default=())  # (index, NAME, value) via ``env``
    wrapper_at: tuple[int, ...] = ()  # the index of each word of ``wrappers`` (torchrun excepted)
    # "uv run", "conda run -n NAME"...: the command runs in that tool's environment, so its interpreter and
    # framework release are that environment's, not what PATH finds (frameworks/wrappers.py)
    runner: str | None = None


# Image entrypoints that run their arguments (`exec "$@"` at the end): NVIDIA's CUDA/NGC images', which
# lmsysorg/sglang inherits (layers/transport/images.py). What follows them is the command.
EXEC_ARGS_ENTRYPOINTS = ("nvidia_entrypoint.sh",)


def _basename(word: str) -> str:
    return word[word.rfind("/") + 1 :]  # rsplit's last piece without its list (asked of every command)


def _skip_options(
    argv: Sequence[str], i: int, with_value: AbstractSet[str], flags_ok: bool = True, attached: bool = True
) -> int:
    """Skip ``-x``/``--long[=v]`` options starting at ``i``; options in ``with_value`` take the next word."""
    while i < len(argv):
        w = argv[i]
        if w == "--":
            return i + 1
        if not w.startswith("-") or w == "-":
            return i
        name = w.split("=", 1)[0]
        if name in with_value and "=" not in w:
            i += 2
            continue
        if attached and len(w) > 2 and not w.startswith("--") and w[:2] in with_value:
            i += 1  # -n0 / -cfoo
            continue
        if not flags_ok:
            return i
        i += 1
    return i


# sudo's options with a value (sudo(8) 1.9); getopt lets short ones cluster: ``-Eu bob``, ``-uBob``
_SUDO_SHORT_WITH_VALUE = frozenset("CDghprtTUu")
_SUDO_LONG_WITH_VALUE = frozenset(
    {"--close-from", "--chdir", "--group", "--host", "--prompt", "--role", "--type", "--command-timeout"}
    | {"--other-user", "--user"}
)


def _skip_sudo_options(argv: Sequence[str], i: int) -> int:
    while i < len(argv):
        w = argv[i]
        if w == "--":
            return i + 1
        if not w.startswith("-") or w == "-":
            return i
        if w.startswith("--"):
            i += 2 if w in _SUDO_LONG_WITH_VALUE else 1
            continue
        # the first letter that takes a value ends the cluster; its value is the rest or the next word
        k = next((n for n in range(1, len(w)) if w[n] in _SUDO_SHORT_WITH_VALUE), None)
        i += 2 if k == len(w) - 1 else 1
    return i


# srun's options that take the next word as their value when not written ``--name=value`` (srun(1), SLURM 23);
# options whose value is optional (``--kill-on-bad-exit[=0|1]``) only take it after ``=``.
SRUN_WITH_VALUE = frozenset(
    {
        *("-A", "--account", "-c", "--cpus-per-task", "-C", "--constraint", "-D", "--chdir", "-e", "--error"),
        *("-G", "--gpus", "-i", "--input", "-J", "--job-name", "-n", "--ntasks", "-N", "--nodes"),
        *("-o", "--output", "-p", "--partition", "-q", "--qos", "-t", "--time", "-w", "--nodelist"),
        *("-x", "--exclude", "--gpus-per-node", "--gpus-per-task", "--gres", "--mem", "--mem-per-cpu"),
        *("--mem-per-gpu", "--ntasks-per-node", "--cpus-per-gpu", "--export", "--mpi", "--jobid"),
        *("--reservation", "--container-image", "--container-mounts", "--container-workdir"),
        *("--distribution", "-m", "--cpu-bind", "--gpu-bind", "--het-group"),
    }
)


# ``apptainer exec`` / ``singularity exec`` options that take a value (the non-boolean flags registered for
# the exec command in apptainer's cmd/internal/cli/action_flags.go at 00e9b038 and the common --pem-path and
# --docker-* ones; SingularityCE shares them): ``exec [options] IMAGE COMMAND [ARGS]`` runs COMMAND in IMAGE
# with the caller's environment (unless --cleanenv/--containall) plus each ``--env NAME=VALUE``.
APPTAINER_EXEC_WITH_VALUE = frozenset(
    {
        *("--app", "-B", "--bind", "--mount", "-H", "--home", "-o", "--overlay", "-S", "--scratch", "-W"),
        *("--workdir", "--cwd", "--pwd", "--hostname", "--network", "--network-args", "--dns", "--security"),
        *("--apply-cgroups", "--vm-ram", "--vm-cpu", "--vm-ip", "--containlibs", "--fusemount", "--tmpdir"),
        *("--add-caps", "--drop-caps", "--env", "--env-file", "--dmtcp-launch", "--dmtcp-restart"),
        *("--blkio-weight", "--blkio-weight-device", "--cpu-shares", "--cpus", "--cpuset-cpus"),
        *("--cpuset-mems", "--memory", "--memory-reservation", "--memory-swap", "--pids-limit", "--pem-path"),
        *("--docker-host", "--docker-username", "--docker-password"),
    }
)


def _apptainer_exec(argv: Sequence[str], i: int, env: list[tuple[int, str, str]]) -> int | None:
    """The index of the command ``apptainer exec [options] IMAGE`` at ``i`` (the word ``exec``) runs, with
    its ``--env NAME=VALUE[,NAME=VALUE]`` pairs added to ``env``; ``None`` when no command follows."""
    j = i + 1
    while j < len(argv):
        w = argv[j]
        if w == "--":
            j += 1
            break
        if not w.startswith("-") or w == "-":
            break
        name, eq, attached = w.partition("=")
        value = attached if eq else (argv[j + 1] if j + 1 < len(argv) else "")
        if name == "--env":
            for pair in value.split(","):
                if "=" in pair:
                    key, _, val = pair.partition("=")
                    env.append((j, key, val))
        if name in APPTAINER_EXEC_WITH_VALUE and not eq:
            j += 2
            continue
        j += 1
    return j + 1 if j + 1 < len(argv) else None  # the image, then the command


# Nsight Systems' ``nsys profile`` / ``nsys launch [switches] APPLICATION [ARGS]`` runs APPLICATION (a server
# under the profiler). Its switches as the Nsight Systems User Guide ("Command Line Options",
# https://docs.nvidia.com/nsight-systems/UserGuide/index.html) writes them: "when short options are used, the
# parameters should follow the switch after a space; e.g. -s process-tree. When long options are used, the
# switch should be followed by an equal sign and then the parameter(s); e.g. --sample=process-tree"; every
# profile and launch switch but --help takes a parameter. -e/--env-var sets A=B[,C=D] for the application.
_NSYS_RUNS = frozenset({"profile", "launch"})


def _nsys_command(argv: Sequence[str], i: int, env: list[tuple[int, str, str]]) -> int | None:
    """The index of the application ``nsys profile|launch [switches]`` at ``i`` (the word ``nsys``) runs, its
    ``--env-var`` pairs added to ``env``; ``None`` when it runs none (``--help``) or a switch is not written
    as the guide writes them (a long one without ``=``: which word is its parameter is not known here)."""
    if i + 1 >= len(argv) or argv[i + 1] not in _NSYS_RUNS:
        return None
    j = i + 2
    while j < len(argv):
        w = argv[j]
        if w == "--":
            j += 1
            break
        if not w.startswith("-") or w == "-":
            break
        if w in ("-h", "--help") or w.startswith("--help="):
            return None
        if w.startswith("--"):
            if "=" not in w:
                return None
            name, _, value = w.partition("=")
            step = 1
        elif len(w) == 2 and j + 1 < len(argv):
            name, value, step = w, argv[j + 1], 2
        else:
            return None
        if name in ("-e", "--env-var"):
            for pair in value.split(","):
                if "=" in pair:
                    key, _, val = pair.partition("=")
                    env.append((j, key, val))
        j += step
    return j if j < len(argv) else None


def _hf_jobs_table() -> dict[str, list[str]]:
    """``data/hf_jobs_run_options.json`` (scripts/gen_hf_jobs_options.py, from huggingface_hub's CLI)."""
    import functools

    @functools.cache
    def load() -> dict[str, list[str]]:
        from argtrace.package_data import bundled_json

        data: dict[str, list[str]] = bundled_json("data/hf_jobs_run_options.json")
        return data

    return load()


def _hf_jobs_run(argv: Sequence[str], i: int, env: list[tuple[int, str, str]]) -> int | None:
    """The index of the command ``hf jobs run [OPTIONS] IMAGE COMMAND...`` runs (``i``: the word ``run``),
    with its ``-e/--env`` and ``-s/--secrets`` NAME=VALUE added to ``env``; ``None`` when it runs none
    (``--dry-run`` prints the configuration, ``--help``) or no command follows the image. Hugging Face
    Jobs run COMMAND in place of the image's entrypoint (the Jobs docs' `hf jobs run python:3.12 python
    -c ...`, and vLLM's image run as `... vllm/vllm-openai:latest vllm serve MODEL`)."""
    table = _hf_jobs_table()
    with_value, flags = set(table["with_value"]), set(table["flags"])
    setting = set(table["env"]) | set(table["secrets"])
    j = i + 1
    while j < len(argv):
        w = argv[j]
        if w == "--":
            j += 1
            break
        if not w.startswith("-") or w == "-":
            break
        name, eq, attached = w.partition("=")
        if name in ("--dry-run", "--help"):
            return None
        if name not in with_value and name not in flags:
            return None  # click refuses an option it does not know: nothing runs
        if name in with_value:
            value = attached if eq else (argv[j + 1] if j + 1 < len(argv) else "")
            if name in setting and "=" in value:
                key, _, val = value.partition("=")
                env.append((j, key, val))
            j += 1 if eq else 2
            continue
        j += 1
    return j + 1 if j + 1 < len(argv) else None  # the image, then the command


# programs whose options frameworks/wrappers.py reads from their generated option tables
_PROGRAM_WRAPPERS = frozenset(
    {"timeout", "stdbuf", "nohup", "nice", "setsid", "taskset", "chrt", "ionice", "numactl", "systemd-run"}
)


# Every word _unwrap reads as a wrapper (a branch of its loop below): any other first word (not NAME=VALUE)
# is the program itself, whatever follows it. _unwrap stops at such a word before its branches, so a branch
# for a name missing here is never reached (its tests fail); callers test a command's first word with
# runs_itself to skip the per-command readings of the shell layer's 6,000 builtins of a big script (issue 18).
_WRAPPER_NAMES = frozenset(
    {"env", "exec", "command", "builtin", "time", "sudo", "srun", "apptainer", "singularity", "hf", "nsys"}
    | {"uv", "uvx", "poetry", "conda", "mamba", "micromamba", "pixi", "pipx"}
    | set(EXEC_ARGS_ENTRYPOINTS)
    | _PROGRAM_WRAPPERS
)


@functools.lru_cache(maxsize=4096)
def runs_itself(word: str) -> bool:
    """``word``, a command's first word, is the program that runs (no wrapper, no assignment): _unwrap
    returns 0 for every argv starting with it. Cached: a big script's commands start with a few words, each
    asked by two passes (issue 18), and a hit costs no Python frame."""
    return _basename(word) not in _WRAPPER_NAMES and not _ASSIGN.match(word)


# bash's exec and command builtins, as its internal_getopt reads them (bash(1) SHELL BUILTIN COMMANDS):
# exec [-cl] [-a NAME] CMD, command [-pVv] CMD
_BUILTIN_OPTS = {
    "exec": Options("exec", "bash", frozenset("a"), frozenset("cl"), {}, "bash(1)", ""),
    "command": Options("command", "bash", frozenset(), frozenset("pVv"), {}, "bash(1)", ""),
}


def _add(wrappers: list[str], positions: list[int] | None, i: int, name: str) -> None:
    wrappers.append(name)
    if positions is not None:
        positions.append(i)


def _unwrap(
    argv: Sequence[str],
    i: int,
    wrappers: list[str],
    env: list[tuple[int, str, str]],
    positions: list[int] | None = None,
    runners: list[EnvRunner] | None = None,
) -> int:
    """Return the index of the real command after any wrappers starting at ``i``; ``positions`` gets the
    index of each wrapper word skipped (in the order of ``wrappers``)."""
    # NAME=VALUE words are assignments only where something reads them as such: before the command (the
    # shell's own prefix), after sudo(8)'s options and after bash's `time` keyword. nohup, timeout, nice,
    # exec... hand the word to execvp as the program to run, which is not found: nothing starts (SH041).
    assignments = True
    for _ in range(64):  # wrappers nest (``nohup numactl ... env X=1 python ...``), but not forever
        if i >= len(argv):
            return i
        w = argv[i]
        b = _basename(w)
        if _ASSIGN.match(w):  # VAR=value prefix (as ``env`` sees it)
            if not assignments:
                return i
            name, value = w.split("=", 1)
            env.append((i, name, value))
            i += 1
            continue
        assignments = False
        if b not in _WRAPPER_NAMES:
            return i  # the program itself (torchrun too: detect_server reads its options)
        if b == "env":
            # env(1): its options as getopt_long reads them (the table generated from coreutils' `env
            # --help`: -u NAME, -C DIR, -S STRING take a value, --block-signal[=SIG] an optional one after
            # `=` only, -iv cluster), then a lone `-` (same as -i), then NAME=VALUE words, then the command
            spec = options_of("env")
            if spec is None:
                return i
            scan = scan_options(argv, i + 1, spec)
            split = any(n in ("S", "split-string") for n, _v in scan.seen)
            if (scan.error and not split) or any(n in ("help", "version") for n, _v in scan.seen):
                return i  # env refuses its options, or prints and runs nothing
            # with -S the string's words come first (expand_env_s splits them in place); what follows the
            # string in argv is only read after them
            _add(wrappers, positions, i, b)
            i = scan.end
            if i < len(argv) and argv[i] == "-":  # coreutils env.c: even after `--`
                i += 1
            while i < len(argv) and _ASSIGN.match(argv[i]):
                name, value = argv[i].split("=", 1)
                env.append((i, name, value))
                i += 1
            continue
        if b in ("exec", "command", "builtin"):
            # bash builtins: exec [-cl] [-a NAME] CMD; command [-p] CMD (-v/-V only describe it)
            _add(wrappers, positions, i, b)
            if b == "builtin":
                i += 1
                continue
            scan = scan_options(argv, i + 1, _BUILTIN_OPTS[b])
            if scan.error or any(n in ("v", "V") for n, _v in scan.seen):
                return i
            i = scan.end
            continue
        if b in EXEC_ARGS_ENTRYPOINTS:
            # NVIDIA's CUDA/NGC image entrypoint runs its arguments (layers/transport/images.py)
            _add(wrappers, positions, i, b)
            i += 1
            continue
        if b == "time":
            _add(wrappers, positions, i, b)
            after = bash_time(argv, i)
            # bash's keyword reads `time X=1 CMD` as an assignment; GNU time (a path, or its own options)
            # execs X=1
            opts = [x for x in argv[i + 1 : after] if x.startswith("-")]
            assignments = w == "time" and all(x in ("-p", "--") for x in opts)
            i = after
            continue
        if b in _PROGRAM_WRAPPERS:
            found = skip_wrapper(b, argv, i)
            if found is None:
                return i  # the program runs no command (``taskset -p``, ``chrt -m``) or refuses its options
            _add(wrappers, positions, i, b)
            i = found
            continue
        if b == "sudo":
            _add(wrappers, positions, i, b)
            i = _skip_sudo_options(argv, i + 1)
            assignments = True  # sudo(8): "variables ... may also be passed on the command line" as VAR=value
            continue
        if b in ("uv", "uvx", "poetry", "conda", "mamba", "micromamba", "pixi", "pipx") and i + 1 < len(argv):
            runner = env_runner(argv, i)
            if runner is None:
                return i
            _add(wrappers, positions, i, runner.label.split(" -", 1)[0])
            if runners is not None:
                runners.append(runner)
            if runner.module:
                return runner.command  # uv run -m MODULE: detect_server reads the module
            i = runner.command
            continue
        if b == "srun":
            # SLURM: ``srun [options] COMMAND``; the server starts on the allocated node(s), with the
            # caller's environment (--export=ALL is srun's default).
            _add(wrappers, positions, i, b)
            i = _skip_options(argv, i + 1, SRUN_WITH_VALUE)
            continue
        if b in ("apptainer", "singularity") and i + 1 < len(argv) and argv[i + 1] == "exec":
            found = _apptainer_exec(argv, i + 1, env)
            if found is None:
                return i
            _add(wrappers, positions, i, b)
            i = found
            continue
        if b == "nsys":
            found = _nsys_command(argv, i, env)
            if found is None:
                return i
            _add(wrappers, positions, i, "nsys " + argv[i + 1])
            i = found
            continue
        if b == "hf" and argv[i + 1 : i + 3] == ["jobs", "run"]:
            found = _hf_jobs_run(argv, i + 2, env)
            if found is None:
                return i
            _add(wrappers, positions, i, "hf jobs run")
            i = found
            continue
        return i
    return i


def unwrap_command(argv: Sequence[str]) -> int:
    """Index of the command that wrappers (``nohup``, ``env X=1``, ``timeout 1h``...) finally run."""
    return _unwrap(argv, 0, [], [])


def unwrap_with_env(argv: Sequence[str]) -> tuple[int, list[tuple[int, str, str]]]:
    """:func:`unwrap_command`, with the ``NAME=value`` words the wrappers (``env X=1``) put in the
    environment of the command they run: (index of the word, name, value)."""
    env: list[tuple[int, str, str]] = []
    return _unwrap(argv, 0, [], env), env


def assignment_as_program(argv: Sequence[str]) -> tuple[int, int] | None:
    """(index of the wrapper, index of the word) when a wrapper that execs its operand (``nohup``,
    ``timeout``, ``exec``...) gets a ``NAME=VALUE`` word where its command belongs: the word is run as a
    program, which is not found, so nothing starts. ``None`` otherwise."""
    if argv and runs_itself(argv[0]):
        return None  # no wrapper: what _unwrap's empty positions below say
    wrappers: list[str] = []
    positions: list[int] = []
    i = _unwrap(argv, 0, wrappers, [], positions)
    if positions and i < len(argv) and _ASSIGN.match(argv[i]):
        return positions[-1], i
    return None


def _detect_python(argv: Sequence[str], i: int) -> tuple[int, str] | None:
    """For ``python [opts] -m MODULE`` at ``i`` return (index of first module arg, module)."""
    j = i + 1
    while j < len(argv):
        w = argv[j]
        if w == "-m":
            if j + 1 < len(argv):
                return j + 2, argv[j + 1]
            return None
        if w.startswith("-m") and len(w) > 2:
            return j + 1, w[2:]
        if w in _PY_OPTS_WITH_VALUE:
            j += 2
            continue
        if w.startswith("-") and not w.startswith("--") and len(w) > 1 and w != "-c":
            if w[1:2] in ("X", "W") and len(w) > 2:
                j += 1
                continue
            # combined single-letter flags (-u, -OO, -uB); stop at -c (a command string)
            if "c" in w[1:]:
                return None
            if "m" in w[1:]:
                rest = w[w.index("m") + 1 :]
                if rest:
                    return j + 1, rest
                if j + 1 < len(argv):
                    return j + 2, argv[j + 1]
                return None
            j += 1
            continue
        return None
    return None


def detect_server(argv: Sequence[str]) -> Detection | None:
    """Recognise a server start in ``argv``; ``None`` when it is not one."""
    wrappers: list[str] = []
    env: list[tuple[int, str, str]] = []
    positions: list[int] = []
    runners: list[EnvRunner] = []
    i = _unwrap(argv, 0, wrappers, env, positions, runners)
    if i >= len(argv):
        return None
    at = tuple(positions)
    runner = runners[-1].label if runners else None
    if runners and runners[-1].module and i == runners[-1].command:
        # uv run -m MODULE ARGS: the environment's python runs the module (uv run --help: "-m, --module")
        module = argv[i]
        if module in _MODULES:
            fw, entry = _MODULES[module]
            return Detection(fw, entry, i + 1, None, i, tuple(wrappers), tuple(env), at, runner)
        if module in CLI_MODULES and argv[i + 1 : i + 2] == ["serve"]:
            fw, entry = CLI_MODULES[module]
            return Detection(fw, entry, i + 2, None, i, tuple(wrappers), tuple(env), at, runner)
        if module in CLI_MODULES and (bench := _bench(CLI_MODULES[module][0], argv[i + 1 : i + 3])):
            return Detection("vllm", bench, i + 3, None, i, tuple(wrappers), tuple(env), at, runner)
        if module in _TRL_CLI_MODULES and argv[i + 1 : i + 2] == [TRL_SUBCOMMAND]:
            return Detection(
                "vllm", "trl vllm-serve", i + 2, None, i, tuple(wrappers), tuple(env), at, runner
            )
        return None
    word = argv[i]
    base = _basename(word)
    if runner is not None and runner.startswith(("uvx", "uv tool run")) and "@" in base:
        # uvx's `COMMAND@VERSION` (uv's tools guide: `uvx ruff@0.3.0` runs ruff 0.3.0): the
        # package's command at that release (frameworks/release.py reads the release)
        base = base.split("@", 1)[0]
    if base == "torchrun" or (_PYTHON.match(word) and argv[i + 1 : i + 3] == ["-m", "torch.distributed.run"]):
        # torchrun ... -m MODULE args: the module is run by each worker with its args
        k = i + 1 if base == "torchrun" else i + 3
        while k < len(argv):
            w = argv[k]
            if w in ("-m", "--module") and k + 1 < len(argv):
                mod = argv[k + 1]
                hit = _MODULES.get(mod)
                if hit:
                    return Detection(
                        hit[0], hit[1], k + 2, None, i, (*wrappers, "torchrun"), tuple(env), at, runner
                    )
                return None
            if not w.startswith("-"):
                return None
            k += 1 if "=" in w or w in ("--standalone", "--no-python", "--no_python", "--run-path") else 2
        return None
    if _PYTHON.match(word):
        found = _detect_python(argv, i)
        if not found:
            return None
        start, module = found
        if module in _MODULES:
            fw, entry = _MODULES[module]
            return Detection(fw, entry, start, word, i, tuple(wrappers), tuple(env), at, runner)
        if module in CLI_MODULES and start < len(argv) and argv[start] == "serve":
            fw, entry = CLI_MODULES[module]
            return Detection(fw, entry, start + 1, word, i, tuple(wrappers), tuple(env), at, runner)
        if module in CLI_MODULES and (bench := _bench(CLI_MODULES[module][0], argv[start : start + 2])):
            return Detection("vllm", bench, start + 2, word, i, tuple(wrappers), tuple(env), at, runner)
        if module in _TRL_CLI_MODULES and argv[start : start + 1] == [TRL_SUBCOMMAND]:
            return Detection(
                "vllm", "trl vllm-serve", start + 1, word, i, tuple(wrappers), tuple(env), at, runner
            )
        return None
    versioned = _VERSIONED_CONSOLE.match(base or "")
    if versioned:
        base = versioned.group("name")
    if base in _CONSOLE and i + 1 < len(argv) and argv[i + 1] == "serve":
        fw = _CONSOLE[base]
        return Detection(fw, f"{fw} serve", i + 2, None, i, tuple(wrappers), tuple(env), at, runner)
    if base in _CONSOLE and (bench := _bench(_CONSOLE[base], argv[i + 1 : i + 3])):
        return Detection("vllm", bench, i + 3, None, i, tuple(wrappers), tuple(env), at, runner)
    if base == "trl" and argv[i + 1 : i + 2] == [TRL_SUBCOMMAND]:
        return Detection("vllm", "trl vllm-serve", i + 2, None, i, tuple(wrappers), tuple(env), at, runner)
    return None


# What the console scripts take in front of a subcommand and still stop or print without a server:
# argparse's help, vLLM's version flag, and vLLM's --omni, which hands the whole argv to vllm-omni's CLI
# (vllm/entrypoints/cli/main.py: maybe_run_omni, before its parser).
_CONSOLE_OWN = frozenset({"-h", "--help", "-v", "--version", "--omni"})


def console_without_subcommand(argv: Sequence[str]) -> tuple[FrameworkName, int] | None:
    """(framework, index of the console word) for ``sglang``/``vllm`` run with the server's flags or model in
    place of a subcommand (``sglang --model-path M``, ``vllm Qwen/Qwen3-8B``): their CLI reads the first
    word as a subcommand and stops (layers/shell/lost.py, TP104). Only a flag or a model-like word (with a
    ``/``, which no subcommand has) counts: ``vllm chat`` and ``sglang version`` are commands of their own."""
    i = _unwrap(argv, 0, [], [])
    if i + 1 >= len(argv):
        return None
    base = _basename(argv[i])
    versioned = _VERSIONED_CONSOLE.match(base or "")
    if versioned:
        base = versioned.group("name")
    if base not in _CONSOLE or any(w in _CONSOLE_OWN for w in argv[i + 1 :]):
        return None
    first = argv[i + 1]
    if first.startswith("--") or (not first.startswith("-") and "/" in first):
        return _CONSOLE[base], i
    return None


def looks_like_server(argv: Sequence[str | None]) -> bool:
    """Cheap pre-check on a possibly partially unknown argv (unknown words are ``None``)."""
    known = [w for w in argv if w is not None]
    return any("sglang" in w or "vllm" in w for w in known)  # "vllm-serve", "trl.scripts.vllm_serve" too
