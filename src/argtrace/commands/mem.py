"""``argtrace mem --model-config CONFIG [--gpu NAME[xN]] [--from-log LOG] [--plot FILE] -- FLAGS...``."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.model import Finding, Report

NAME = "mem"
HELP = "will this launch fit in GPU memory, and which settings make it fit (SGLang first, vLLM second)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.usage = (
        "argtrace mem --model-config DIR|config.json [--gpu NAME[xN]] [--framework sglang|vllm] "
        "[--from-log LOG] [--plot FILE.svg|png] [-- SERVER_FLAGS...]"
    )
    parser.add_argument(
        "--model-config", metavar="DIR|config.json", help="the model's config.json (or its directory)"
    )
    parser.add_argument(
        "--gpu",
        metavar="NAME[xN]",
        help="GPU profile, e.g. h100x2, rtx-pro-6000x4; a bare NAME is as many as the launch needs "
        "(default h100); a GPU without a profile as nvidia-smi prints it: 'NAME, 16376 MiB, 8.9x2' "
        "(--query-gpu=name,memory.total,compute_cap --format=csv,noheader)",
    )
    parser.add_argument(
        "--framework",
        choices=("sglang", "vllm"),
        default=None,
        help="default: the one the command after -- starts (vllm serve, python -m sglang.launch_server...), "
        "else sglang",
    )
    parser.add_argument("--framework-version", metavar="V", help="framework version whose formulas to use")
    parser.add_argument(
        "--from-log",
        metavar="LOG",
        help="a startup log (SGLang, or vLLM's KV cache lines): compare its allocation lines",
    )
    parser.add_argument(
        "--plot", metavar="FILE", help="draw the per-GPU budget as a labelled stacked bar (.svg or .png)"
    )
    parser.add_argument(
        "--resolver",
        action="store_true",
        help="size the pools with the framework's own code in its resolver environment (SGLang: the "
        "--framework-version's environment; slow: 15-30 s), the formulas' prediction kept beside",
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an environment variable the server would see (e.g. SGLANG_ENABLE_SPEC_V2=1)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="with --resolver: size again even when the same inputs were sized before",
    )
    parser.set_defaults(server_argv=[])


def split_argv(words: list[str], parser: argparse.ArgumentParser) -> tuple[list[str], list[str]]:
    """Everything after ``--`` is the server's flags."""
    if "--" in words:
        index = words.index("--")
        return words[:index], words[index + 1 :]
    return words, []


def apply_rest(args: argparse.Namespace, rest: list[str], parser: argparse.ArgumentParser) -> None:
    args.server_argv = rest


def run(args: argparse.Namespace) -> Report:
    from pathlib import Path

    from argtrace.layers.memory.command import run_mem
    from argtrace.model import UsageError

    if not args.model_config:
        raise UsageError("--model-config DIR|config.json is required")
    env: dict[str, str] = {}
    for item in args.env:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError(f"--env wants KEY=VALUE, got {item!r}")
        env[key] = value
    framework, server_argv = framework_and_flags(args.framework, list(args.server_argv), env)
    model_config = Path(args.model_config)
    from argtrace.remote.host import current_host

    host = current_host()
    if host.is_remote:  # argtrace --host: the node's config.json (a local copy), never a local file
        from argtrace.remote.models import node_model_dir

        if args.from_log:
            raise UsageError(
                f"--from-log is not available with --host: the memory layer reads the whole log here. Use "
                f"`argtrace --host {host.label} log LOG` for what the log says, or copy the log to this "
                "machine and run `argtrace mem --from-log` without --host"
            )
        copy = node_model_dir(host, args.model_config, None)
        if copy is None:
            raise UsageError(f"--model-config {host.describe(args.model_config)}: no config.json there")
        model_config = copy
    from argtrace.resolver.cache import bypassed

    with bypassed(bool(args.no_cache)):
        report = run_mem(
            model_config=model_config,
            gpu=args.gpu,
            framework=framework,
            version=args.framework_version,
            server_argv=server_argv,
            env=env,
            from_log=Path(args.from_log) if args.from_log else None,
            plot=Path(args.plot) if args.plot else None,
            resolver=bool(args.resolver),
        )
    if args.gpu is None:
        report.findings[:] = _on_assumed_gpu(report)
    return report


def _on_assumed_gpu(report: Report) -> list[Finding]:
    """Without --gpu the GPU is an assumption (MM004): what the memory layer says rests on it, as in `check`
    (verdicts.settle: a note with basis ``assumed``). vllm#40756's launch at utilization 0.45 started on the
    commenter's GPU; on the assumed H100 its KV cache does not fit, which was an error here."""
    from argtrace.verdicts import gpu_assumption, settle

    spec = ((report.sections.get("memory") or {}).get("gpu") or {}).get("name")
    if not spec:
        return list(report.findings)
    return settle(
        report.findings, release=None, gpu=gpu_assumption(str(spec)), holds_on_every_release=lambda f: True
    )


def framework_and_flags(given: str | None, words: list[str], env: dict[str, str]) -> tuple[str, list[str]]:
    """The framework and the server's own flags from what follows ``--``.

    A whole command pasted there (``vllm serve MODEL --tp 2``, ``python3 -m sglang.launch_server ...``,
    behind ``env``/``numactl``/... wrappers) names its framework: it decides unless ``--framework`` says
    otherwise, which is refused (the flags would be read with the other framework's names). Only the words
    the framework's parser gets are kept, and ``env NAME=value`` assignments join ``--env``."""
    from argtrace.frameworks.detect import detect_server
    from argtrace.model import UsageError

    found = detect_server(words) if words and not words[0].startswith("-") else None
    if found is None:
        return given or "sglang", words
    if given is not None and given != found.framework:
        raise UsageError(
            f"--framework {given}, but the command after -- starts {found.entrypoint} ({found.framework})"
        )
    for _, name, value in found.env_assignments:
        env.setdefault(name, value)
    return found.framework, words[found.server_args_start :]
