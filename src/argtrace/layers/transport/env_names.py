"""TP033: a ``docker run -e`` / ``docker exec -e`` name holding a blank (``-e " HF_TOKEN=..."``).

This module owns the check of the names ``-e`` gives docker (docker_cli.py parses the options, docker_env.py
calls it).

docker/cli's ``opts.ValidateEnv`` checks only that the name before the first ``=`` is not empty ("environment
variable names are not validated whatsoever", ``opts/env.go``), and the daemon passes the pair on as written,
so the container gets a variable whose name starts or ends with the blank, and the one meant is not set.
``--env-file`` lines are refused instead ("variable ... contains whitespaces", TP016's domain).
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.model import Evidence, Finding


def blank_env_names(at: str, env: Mapping[str, str | None], how: str = "docker run") -> list[Finding]:
    """TP033 for each ``-e`` name with a blank in it; the value is never shown (it may be a secret)."""
    from argtrace.rules.transport import TP033

    out: list[Finding] = []
    for name in env:
        meant = name.strip()
        if name == meant and " " not in name and "\t" not in name:
            continue
        where = "before" if name[:1].isspace() else "after" if name[-1:].isspace() else "inside"
        written = f"-e '{name}=…'"
        if meant and not any(c.isspace() for c in meant):
            fix = f"Delete the blank {where} the name: `-e {meant}=...`."
            lost = f" and not {meant}"
        else:
            fix = "Write the name without blanks: `-e NAME=VALUE`, quoting only the value if it has blanks."
            lost = ""
        out.append(
            TP033.finding(
                f"{how} -e: the name {name!r} has a blank {where} it, and docker takes the name before "
                "the first `=` as written (docker/cli opts.ValidateEnv checks only that it is not empty), "
                f"so the container gets a variable named {name!r}{lost}",
                at=at,
                setting=meant or None,
                evidence=[Evidence("transport", at, written)],
                fix=fix,
            )
        )
    return out
