"""Values a carrier loses on the way to the server, as the shell runs them: the findings SH041-SH043.

This module owns turning what the evaluator met into those findings: a ``NAME=VALUE`` word that an exec-ing
wrapper (``nohup``, ``timeout``, ``exec``...) runs as the program (SH041; ``frameworks/detect.py``'s
``assignment_as_program`` finds it), a variable the caller gave a script that the script sets again for its
server without reading it (SH042; the ``caller_env_replaced`` event of ``commands.py``), and a sourced env
file's ``NAME=a b`` line that bash runs as the command ``b`` (SH043; ``envlines.py``). Secret-named values are
shown redacted. It also owns TP104: the ``sglang``/``vllm`` console script given the server's flags where
its subcommand belongs (``frameworks/detect.py``'s ``console_without_subcommand`` finds it).
"""

from __future__ import annotations

import re

from argtrace.layers.shell import evaluate as E
from argtrace.model import Evidence, Finding, Layer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def assignment_as_program_findings(ev: E.ShellEvaluator) -> list[tuple[Finding, bool]]:
    """SH041: ``nohup NAME=VALUE CMD`` and the like, where the wrapper runs the assignment as the program;
    each with whether the command that never starts is a server start (then SH019 would only repeat it)."""
    from argtrace.frameworks.detect import assignment_as_program, detect_server, runs_itself

    out: list[tuple[Finding, bool]] = []
    for c in ev.commands:
        if not c.texts or runs_itself(c.texts[0] or ""):
            continue  # no wrapper in front: assignment_as_program's None, read before copying the words
        texts = [w if w is not None else "" for w in c.texts]
        found = assignment_as_program(texts)
        if found is None:
            continue
        wrapper, word = texts[found[0]], texts[found[1]]
        rest = " ".join(texts[found[1] + 1 :])
        before = " ".join(texts[: found[1]])
        name = word.split("=", 1)[0]
        from argtrace.rules.wrappers import SH041  # here: most scripts have no such command

        out.append(
            (
                SH041.finding(
                    f"`{wrapper}` runs `{word}` as the program (only the shell reads NAME=VALUE in front "
                    f"of a command): no program has that name, so `{wrapper}` exits with status 127 and "
                    + (f"`{rest}` never starts" if rest else "nothing starts")
                    + f"; {name} is not set for anything",
                    at=c.at,
                    evidence=[Evidence(layer="shell", at=c.at, text=" ".join(texts))],
                    fix=f"Put the assignment before `{wrapper}`: `{word} {before} {rest}` (or "
                    f"`{wrapper} env {word} {rest}`).",
                ),
                detect_server(texts[found[1] + 1 :]) is not None,
            )
        )
    return out


# bash's declaration builtins: every word after their options is a name or NAME=VALUE to mark
DECLARATIONS = ("export", "readonly", "declare", "typeset", "local")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def declared_server_findings(ev: E.ShellEvaluator) -> list[Finding]:
    """SH044: the server command's words are arguments of ``export``/``readonly``/``declare``: bash marks
    the identifier-shaped ones, refuses the rest ("not a valid identifier") and returns status 1 (bash 5.2),
    and nothing starts. Found where a server start (frameworks/detect.py) begins after the assignments."""
    from argtrace.frameworks.detect import detect_server

    out: list[Finding] = []
    for c in ev.commands:
        if not c.texts or c.texts[0] not in DECLARATIONS:
            continue  # read before copying the words: most of a big script's commands (issue 18)
        if not any(c.texts[1:]):
            continue  # no word but empty ones and assignments (None): no `start` below (`export A=1`)
        texts = [w if w is not None else "" for w in c.texts]
        start = next(
            (
                i
                for i in range(1, len(texts))
                # an empty word (an assignment's) is no program: detect_server's None, read at once
                if texts[i] and "=" not in texts[i] and detect_server(texts[i:]) is not None
            ),
            None,
        )
        if start is None:
            continue
        builtin, server = texts[0], texts[start:]
        marked = [w for w in server if _IDENTIFIER.fullmatch(w)]
        refused = [w for w in server if not _IDENTIFIER.fullmatch(w)]
        from argtrace.rules.wrappers import SH044  # here: most scripts have no such command

        out.append(
            SH044.finding(
                f"`{' '.join(server)}` are names given to `{builtin}`, not a command: bash marks "
                + (", ".join(f"`{w}`" for w in marked) or "none of them")
                + (f", refuses {', '.join(f'`{w}`' for w in refused[:4])}" if refused else "")
                + (' ("not a valid identifier") and returns status 1' if refused else "")
                + ": the server never starts",
                at=c.at,
                evidence=[Evidence(layer="shell", at=c.at, text=" ".join(t for t in texts if t))],
                fix=f"End the `{builtin}` command before the server command (remove the backslash that joins "
                "the lines, or put a newline or `;` after its assignments), so that "
                f"`{' '.join(server)}` runs "
                "as a command of its own.",
            )
        )
    return out


def lost_value_finding(kind: str, at: str | None, d: dict[str, Any]) -> Finding:
    """SH043 for an ``env_line_runs_word`` event, SH042 for a ``caller_env_replaced`` one."""
    from argtrace.redact import is_secret_name
    from argtrace.rules.wrappers import SH042, SH043

    name = d["name"]
    secret = is_secret_name(name)
    where = at or ""
    if kind == "env_line_runs_word":
        word = d["word"]
        value = "<redacted>" if secret else d["value"]
        return SH043.finding(
            f"`source` ({d['by']}) reads this line as the command `{word}` with {name}={value} in "
            f"its environment only (bash ends an unquoted value at the first blank): bash says "
            f"`{word}: command not found`, and {name} stays unset for the commands after it",
            at=at,
            setting=name,
            evidence=[Evidence("shell", where, f"{name}={value} {word}")],
            fix=f'Quote the value for bash (`{name}="..."`); a file that `docker run --env-file` '
            "also reads keeps the quotes there (TP017), so keep one file per reader.",
        )
    n = d["servers"]
    given = "<redacted>" if secret else d["given"]
    values = "<redacted>" if secret else ", ".join(d["values"])
    whom = "the server" if n == 1 else f"its {n} servers"
    return SH042.finding(
        f"{name}={given} is given to the script at {d['given_at']}, but the script sets "
        f"{name}={values} for {whom} here without reading it: the value given never reaches "
        + ("the server" if n == 1 else "them"),
        at=at,
        setting=name,
        evidence=[
            Evidence("shell", d["given_at"], f"{name}={given}"),
            Evidence("shell", where, f"{name}={values}"),
        ],
        fix=f"Have the script keep the caller's value (`{name}=${{{name}:-DEFAULT}}`, or "
        f"derive its per-server values from `${name}`), or set {name} inside the script.",
    )


# How each console script's parser reads its first words, from the releases' code: SGLang's
# ``sglang/cli/main.py`` (``add_subparsers(dest="subcommand", required=True)``, then ``parse_known_args``:
# 0.5.10.post1:16 and :35, 0.5.23:27 and :46), vLLM's ``vllm/entrypoints/cli/main.py``
# (``add_subparsers(required=False, dest="subparser")``, then ``parse_args``: 0.33.0:98 and :110). The
# first word that is not an option goes to the subcommand; an unknown option is kept aside by
# parse_known_args (SGLang) and refused by parse_args (vLLM).
_CONSOLE_PARSERS = {
    "sglang": (
        "SGLang",
        "sglang/cli/main.py",
        "subcommand",
        "the following arguments are required: subcommand",
    ),
    "vllm": ("vLLM", "vllm/entrypoints/cli/main.py", "subparser", "unrecognized arguments: {rest}"),
}


def subcommand_findings(ev: E.ShellEvaluator) -> list[Finding]:
    """TP104 for each command of the script that runs ``sglang --model-path M`` or ``vllm MODEL``."""
    out: list[Finding] = []
    for c in ev.commands:
        if not c.texts or not any(w and ("sglang" in w or "vllm" in w) for w in c.texts):
            continue  # read before copying the words: most of a big script's commands (issue 18)
        found = subcommand_finding([w if w is not None else "" for w in c.texts], c.at, "shell")
        if found is not None:
            out.append(found)
    return out


def subcommand_finding(texts: list[str], at: str, layer: Layer) -> Finding | None:
    """TP104: the console script's parser takes the first word that is not an option as its subcommand,
    refuses it (or finds none) and exits with status 2 before any server starts. ``layer`` says where the
    words were read (a script's command, or a container's argv: layers/transport/containers.py)."""
    from argtrace.frameworks.detect import console_without_subcommand

    found = console_without_subcommand(texts)
    if found is None:
        return None
    framework, index = found
    name, source, dest, no_positional = _CONSOLE_PARSERS[framework]
    console, rest = texts[index], texts[index + 1 :]
    positional = next((w for w in rest if w and not w.startswith("-")), None)
    if positional is not None:
        error = f"argument {dest}: invalid choice: '{positional}'"
    else:
        error = no_positional.format(rest=" ".join(rest))
    args = " ".join(rest)
    launcher = f"`python -m sglang.launch_server {args}` (releases before 0.5.5 have no `sglang serve`)"
    from argtrace.rules.launchers import TP104  # here: most scripts have no such command

    return TP104.finding(
        f"`{console}` is {name}'s command-line tool, whose first word must be a subcommand (`serve` "
        f'starts the server; {source}): given `{rest[0]}` there, its parser stops with "{error}" '
        "(exit status 2) and no server starts",
        at=at,
        evidence=[Evidence(layer=layer, at=at, text=" ".join(texts))],
        fix=f"Insert `serve` after `{console}`: `{console} serve {args}`"
        + (f", or start it with {launcher}" if framework == "sglang" else "")
        + ".",
    )
