#!/usr/bin/env python3
"""Generate src/argtrace/data/hf_jobs_run_options.json: the options of ``hf jobs run`` (Hugging Face Jobs),
read from the installed huggingface_hub's own click command (its version kept in ``source``).

``hf jobs run [OPTIONS] IMAGE COMMAND...`` runs COMMAND in a container of IMAGE on Hugging Face's hardware;
``frameworks/detect.py`` skips the options (``with_value`` take the next word) to find the image and the
command, and reads ``-e/--env`` and ``-s/--secrets`` NAME=VALUE as the command's environment. ``--check``
compares the file with what the installed package gives now.

  PYTHONPATH=DIR_WITH_HUGGINGFACE_HUB python scripts/gen_hf_jobs_options.py [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src/argtrace/data/hf_jobs_run_options.json"


def table() -> dict[str, object]:
    import click
    import huggingface_hub
    from huggingface_hub.cli.hf import app

    group = app if isinstance(app, click.Group) else None
    assert group is not None, "huggingface_hub.cli.hf.app is no click group"
    jobs = group.get_command(click.Context(group), "jobs")
    assert isinstance(jobs, click.Group)
    run = jobs.get_command(click.Context(jobs), "run")
    assert run is not None
    with_value: list[str] = []
    flags: list[str] = []
    for param in run.params:
        if not isinstance(param, click.Option):
            continue
        names = [*param.opts, *param.secondary_opts]
        (flags if param.is_flag or param.count else with_value).extend(names)
    return {
        "source": f"huggingface_hub {huggingface_hub.__version__}: `hf jobs run` "
        "(huggingface_hub/cli/jobs.py)",
        "with_value": sorted(with_value),
        "flags": sorted(flags),
        "env": ["--env", "-e"],
        "secrets": ["--secrets", "-s"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = json.dumps(table(), indent=1) + "\n"
    if args.check:
        if OUT.read_text() != text:
            print(f"{OUT} differs from the installed huggingface_hub", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
