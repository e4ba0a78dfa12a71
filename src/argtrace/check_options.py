"""What the user asked ``check`` for (:class:`CheckOptions`), built from the command line: the script or
``-c`` command, its arguments, the environment it starts with (the caller's, or the node's with ``--host``,
then each ``--env``) and the options that steer the analysis. Split from ``check.py``, which sequences the
layers; the commands, ``fix``'s re-checks and ``lint`` build their options here."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from argtrace.model import UsageError


@dataclass(frozen=True)
class CheckOptions:
    """What the user asked ``check`` for: the script or ``-c`` command, its arguments and environment, and
    the command-line options that steer the analysis."""

    script: str | None
    script_args: tuple[str, ...]
    command_string: str | None
    env: Mapping[str, str]
    framework: str | None = None
    framework_version: str | None = None
    server: int = 1
    python: str | None = None
    model_config: str | None = None
    # --fetch-config: the model's config.json from the Hugging Face Hub when none is here (layers/hf_hub.py)
    fetch_config: bool = False
    # --no-cache: the resolution and the Hub's config.json are asked for again
    resolve_cache: bool = True
    gpu: str | None = None
    log: str | None = None
    launched_after: str | None = None
    all_settings: bool = False
    run_shellcheck: bool = True
    resolve: bool = True
    extra: Mapping[str, object] = field(default_factory=dict)
    # argtrace lint: the script's arguments are not given (unknown, for this reason), not empty.
    args_unknown: str | None = None
    # The script's (or manifest's) text to analyse instead of reading ``script``: ``argtrace.fixes`` re-checks
    # edited files in memory under the path the user typed.
    script_data: bytes | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> CheckOptions:
        from argtrace.layers.running import check_extra

        if args.python and "/" in args.python:  # a bare name is looked up on PATH, like the shell does
            _refuse_special_interpreter(args.python)
        return cls(
            script=args.script,
            script_args=tuple(args.script_args),
            command_string=args.command_string,
            env=starting_environment(_caller_environment(), args.env, clean=args.clean_env),
            framework=args.framework,
            framework_version=args.framework_version,
            server=args.server,
            python=args.python,
            model_config=args.model_config,
            fetch_config=bool(getattr(args, "fetch_config", False)),
            resolve_cache=not getattr(args, "no_cache", False),
            gpu=args.gpu,
            log=args.log,
            launched_after=args.launched_after,
            all_settings=args.all_settings,
            run_shellcheck=not args.no_shellcheck,
            resolve=not args.no_resolve,
            extra={
                "service": getattr(args, "service", None),
                "container": getattr(args, "container", None),
                # what --env alone gave: a SkyPilot task's `sky launch --env`, a unit's manager environment
                "env_given": starting_environment({}, args.env, clean=True),
                **check_extra(args),
            },
        )


def _refuse_special_interpreter(python: str) -> None:
    """``--python`` naming a FIFO, socket or device: a usage error. Reading its first bytes (is it an ELF
    binary or a script?) would block on a FIFO forever."""
    from argtrace.remote.host import current_host

    host = current_host()
    st = host.stat(python)
    if st.exists and not st.is_file and not st.is_dir:
        raise UsageError(
            f"--python {host.describe(python)}: is a {st.special or 'special file'}, not an interpreter"
        )


def _caller_environment() -> Mapping[str, str]:
    """This process's environment, or with ``--host`` the node's (a non-interactive ssh session's)."""
    from argtrace.remote.host import current_host

    host = current_host()
    return host.environ() if host.is_remote else os.environ


def starting_environment(
    caller: Mapping[str, str], assignments: Sequence[str], *, clean: bool
) -> dict[str, str]:
    """The environment the script starts with: the caller's (or nothing), then each ``--env KEY=VALUE``."""
    env = {} if clean else dict(caller)
    for item in assignments:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--env needs KEY=VALUE (KEY= for an empty value), got {item!r}")
        if not key.replace("_", "a").isalnum() or key[0].isdigit():
            raise UsageError(f"--env: {key!r} is not a valid environment variable name")
        env[key] = value
    return env
