"""``argtrace check vllm.service``: a systemd service unit as the launch carrier.

This module owns reading a service unit into the server start systemd would make of it: the ``[Service]``
settings that shape the process (``ExecStart=``, ``Environment=``, ``EnvironmentFile=``,
``WorkingDirectory=``, ``User=``, ``Type=``, each list reset by an empty assignment), the environment the
process gets (systemd.exec(5), "Environment variables in spawned processes": systemd's fixed ``PATH``,
``USER``/``LOGNAME``/``HOME``/``SHELL`` with ``User=``, then ``Environment=``, then ``EnvironmentFile=``
files, which override it; never the environment of the shell that ran ``systemctl``), the argv after
systemd's exec-time substitution, and the findings TP060-TP065 and TP068 where systemd's rules lose a value
the user wrote. The text rules themselves are :mod:`.systemd_syntax`'s. Nothing the unit names is run: an
``ExecStart=/bin/bash -c SCRIPT`` goes to the shell layer like a container's ``sh -c``
(``containers._container_servers``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from argtrace.layers.transport import systemd_syntax as S
from argtrace.layers.transport.command_names import _SHELLS, _basename
from argtrace.layers.transport.context import TransportResult, opening_line
from argtrace.model import Finding, Origin, VanishedWord, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell import ScriptSource

# systemd.exec(5), "$PATH": the system manager's fixed value on a merged-/usr system (unmerged ones append
# ":/sbin:/bin")
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"


def is_unit(data: bytes) -> bool:
    """A systemd unit with a ``[Service]`` section: the first line that is neither blank nor a comment is a
    section header (so a script that writes a unit through a here-document is still a script)."""
    opened = opening_line(data)
    if opened is None:
        return False
    text, first = opened
    return first.startswith("[") and first.endswith("]") and "\n[Service]" in "\n" + text


class _UnitEnv(dict[str, "str | None"]):
    """The variables of the unit's process; with an ``EnvironmentFile=`` not read here every other name
    is unknown (None), not unset."""

    open_files: bool = False

    def __contains__(self, name: object) -> bool:
        return self.open_files or dict.__contains__(self, name)

    def __missing__(self, name: str) -> str | None:
        if self.open_files:
            return None
        raise KeyError(name)

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        return None if self.open_files else default


@dataclass
class _Service:
    """The ``[Service]`` settings argtrace reads, in file order, list settings after their resets."""

    exec_start: list[tuple[str, int]] = field(default_factory=list)
    environment: list[tuple[str, int]] = field(default_factory=list)
    environment_files: list[tuple[str, int]] = field(default_factory=list)
    working_directory: tuple[str, int] | None = None
    user: str | None = None
    type: str = "simple"


def _service(assignments: list[S.Assignment]) -> _Service:
    svc = _Service()
    lists = {
        "ExecStart": svc.exec_start,
        "Environment": svc.environment,
        "EnvironmentFile": svc.environment_files,
    }
    for a in assignments:
        if a.section != "Service":
            continue
        if a.key in lists:
            if not a.value:
                lists[
                    a.key
                ].clear()  # an empty assignment resets the list (systemd.service(5), systemd.exec(5))
            else:
                lists[a.key].append((a.value, a.line))
        elif a.key == "WorkingDirectory":
            svc.working_directory = (a.value, a.line) if a.value else None
        elif a.key == "User":
            svc.user = a.value or None
        elif a.key == "Type":
            svc.type = a.value
    return svc


def analyze_unit(source: ScriptSource, *, manager_env: Mapping[str, str]) -> TransportResult:
    """The server starts of a service unit. ``manager_env``: the variables given with ``--env``, standing for
    the manager's own environment (``systemctl set-environment``), the lowest layer."""
    from argtrace.rules import carriers as R

    label = source.label
    unit = S.UnitName(posixpath.basename(label))
    result = TransportResult()
    assignments, _ignored = S.read_unit(source.data.decode("utf-8", "replace"))
    svc = _service(assignments)
    env, origins, files = _environment(label, unit, svc, manager_env, result)
    hop: dict[str, Any] = {
        "at": label,
        "via": "systemd",
        "unit": unit.name,
        "user": svc.user,
        "environment": sorted(k for k in env if k not in manager_env),
    }
    if files:
        hop["env_files"] = files
    result.hops.append(hop)
    commands: list[tuple[S.Command, int]] = []
    for value, line in svc.exec_start:
        try:
            parsed, _unresolved = S.parse_exec(value, unit, svc.user)
            commands.extend((c, line) for c in parsed)
        except S.SyntaxProblem as exc:
            result.findings.append(
                R.TP060.finding(
                    f"systemd cannot read this `ExecStart=` ({exc}): the unit has a fatal error and the "
                    "service does not start",
                    at=f"{label}:{line}",
                )
            )
            return result
    if not commands:
        result.findings.append(
            R.TP060.finding("the unit has no `ExecStart=`: systemd refuses to start the service", at=label)
        )
        return result
    if len(commands) > 1 and svc.type != "oneshot":
        result.findings.append(
            R.TP060.finding(
                f"{len(commands)} `ExecStart=` command lines in a `Type={svc.type}` service: systemd "
                'refuses it ("Service has more than one ExecStart= setting, which is only allowed for '
                'Type=oneshot services. Refusing.")',
                at=f"{label}:{commands[1][1]}",
            )
        )
        return result
    cwd = _working_directory(svc, unit)
    hop["exec_start"] = []
    for command, line in commands:
        _command(label, line, command, env, origins, cwd, result, hop)
    result.keep_secrets(env)
    return result


def _environment(
    label: str, unit: S.UnitName, svc: _Service, manager_env: Mapping[str, str], result: TransportResult
) -> tuple[_UnitEnv, dict[str, Origin], list[dict[str, Any]]]:
    from argtrace.rules import carriers as R

    env = _UnitEnv(manager_env)
    origins: dict[str, Origin] = {
        k: Origin(at=None, expansion="--env (the manager's environment)") for k in env
    }
    env["PATH"] = SYSTEM_PATH
    origins["PATH"] = Origin(at=label, expansion="systemd's fixed PATH (systemd.exec(5))")
    if svc.user is not None:
        home = "/root" if svc.user in ("root", "0") else None
        for name, value in (("USER", svc.user), ("LOGNAME", svc.user), ("HOME", home), ("SHELL", None)):
            env[name] = value
            origins[name] = Origin(
                at=label,
                expansion=f"User={svc.user}",
                known=value is not None,
                reason="the user's passwd entry",
            )
    for value, line in svc.environment:
        at = f"{label}:{line}"
        try:
            words = [S.resolve_specifiers(w, unit, svc.user).text for w in S.split_words(value)[0]]
        except S.SyntaxProblem:
            result.findings.append(
                R.TP065.finding(
                    "systemd cannot split this `Environment=` (unbalanced quoting) and ignores it", at=at
                )
            )
            continue
        cut: tuple[str, str, list[str]] | None = None  # the assignment before, and the words it lost
        for word in [*words, None]:
            name, eq, val = (word or "").partition("=")
            valid = word is not None and bool(eq) and S.valid_name(name)
            if cut is not None and cut[2] and (word is None or valid):
                result.findings.append(_cut_value(cut, at))
                cut = None
            if word is None:
                break
            if not valid:
                if cut is not None:
                    cut[2].append(word)  # the rest of a value the blank cut off: one finding with it
                    continue
                result.findings.append(
                    R.TP065.finding(
                        f"`{word}` is no NAME=VALUE assignment"
                        + (f" ({name} is no variable name: letters, digits, `_`)" if eq else "")
                        + ': systemd ignores it ("Invalid environment assignment, ignoring")',
                        at=at,
                        fix=(
                            f"Name the variable with letters, digits and `_` only (`{_bash_name(name)}`), "
                            "and read it by that name."
                            if eq
                            else None
                        ),
                    )
                )
                continue
            if cut is not None and name != name.upper() and _ENDS_IN_OPTION.search(cut[1]):
                # a lower-case name right after a value that ends in an option (`...?options=-c`): the
                # option's argument, cut off by the blank (`-c search_path=app`), not a variable of its own
                result.findings.append(_maybe_cut(cut[0], cut[1], word, name, at))
            env[name] = val
            origins[name] = Origin(at=at, expansion="Environment=")
            cut = (name, val, [])
    files: list[dict[str, Any]] = []
    for value, line in svc.environment_files:
        path = value[1:] if value.startswith("-") else value
        if not path.startswith(("/", "%")):
            # load-fragment.c config_parse_unit_env_file: after specifiers the path must be absolute
            # (path_simplify_and_warn, PATH_CHECK_ABSOLUTE), quotes are not removed; else the setting is
            # dropped ("EnvironmentFile= path is not absolute, ignoring", systemd-analyze verify, 252)
            files.append(
                {"path": path, "at": f"{label}:{line}", "read": None, "variables": [], "problem": "ignored"}
            )
            result.findings.append(
                R.TP084.finding(
                    f'`EnvironmentFile={value}`: systemd ignores this setting ("EnvironmentFile= path is not '
                    f'absolute, ignoring: {path}"): '
                    + (
                        "it takes the quotes as part of the path"
                        if path[:1] in "\"'"
                        else "the path is relative"
                    )
                    + ", so none of the file's variables reach the service",
                    at=f"{label}:{line}",
                    fix=_env_file_fix(value),
                )
            )
            continue
        files.append(_env_file(label, line, value, env, origins))
    return env, origins, files


# a value whose last part is an option (`-c`, `--opt`) right after `=`, `?`, `&` or its start: the next word
# on the line may be that option's argument
_ENDS_IN_OPTION = re.compile(r"(?:^|[=?&])--?[A-Za-z][\w-]*$")


def _bash_name(name: str) -> str:
    """``name`` with each character systemd's (bash's) variable names refuse turned into `_`."""
    fixed = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return "_" + fixed if fixed[:1].isdigit() or not fixed else fixed


def _cut_value(cut: tuple[str, str, list[str]], at: str) -> Finding:
    """TP065 for the words an unquoted blank cut off an assignment: NAME keeps the text before the blank,
    systemd ignores each word after it (systemd.exec(5), `Environment=`: the line is a list of
    space-separated assignments)."""
    from argtrace.rules import carriers as R

    name, val, lost = cut
    shown = ", ".join(f"`{w}`" for w in lost)
    whole = " ".join([f"{name}={val}", *lost])
    return R.TP065.finding(
        f"`{whole}`: the blank ends {name}'s value, so {name} gets `{val}`, and systemd ignores {shown} "
        '("Invalid environment assignment, ignoring")',
        at=at,
        fix=f'Quote the whole assignment: `Environment="{whole}"`.',
    )


def _maybe_cut(name: str, val: str, word: str, other: str, at: str) -> Finding:
    """TP065 (info) for a lower-case assignment right after another on one `Environment=` line."""
    from argtrace.rules import carriers as R

    return R.TP065.finding(
        f"`{word}` becomes a variable of its own ({other}), and {name} gets `{val}`: if it is the rest of "
        f"{name}'s value, the blank before it cut the value",
        at=at,
        fix=f'Quote the whole assignment if it is: `Environment="{name}={val} {word}"`.',
        severity="info",
        basis="assumed",
    )


def _env_file_fix(value: str) -> str:
    """The `EnvironmentFile=` value written as systemd reads it: quotes dropped, absolute."""
    bare = value.strip("\"'")
    optional = bare.startswith("-")
    path = bare[1:] if optional else bare
    if path.startswith(("/", "%")):
        return f"Write `EnvironmentFile={'-' if optional else ''}{path}` without quotes."
    return (
        f"Give the absolute path: `EnvironmentFile={'-' if optional else ''}/ABSOLUTE/DIR/{path}` "
        "(`%h/...` for a file in the user's home)."
    )


def _env_file(label: str, line: int, value: str, env: _UnitEnv, origins: dict[str, Origin]) -> dict[str, Any]:
    from argtrace.layers.transport.envfiles import read_env_file

    optional = value.startswith("-")
    path = value[1:] if optional else value
    entry: dict[str, Any] = {
        "path": path,
        "at": f"{label}:{line}",
        "read": None,
        "variables": [],
        "problem": None,
    }
    data, problem, _missing = read_env_file(path)
    read = path
    if data is None:
        beside = posixpath.join(posixpath.dirname(label) or ".", posixpath.basename(path))
        data_beside, _p, _m = read_env_file(beside)
        if data_beside is not None:
            data, read = data_beside, beside
            entry["assumed"] = f"{path} is not on this machine; read the copy beside the unit ({beside})"
    if data is None:
        entry["problem"] = problem
        # the node's file may set any name: unknown, not unset. A `-` file too: systemd skips it only when
        # it is missing on the node ("silently ignored if it does not exist", systemd.exec(5)), which its
        # absence from this machine does not show (/etc/default/NAME is the node's own file)
        env.open_files = True
        if optional:
            entry["assumed"] = (
                f"{path} is optional (`-`) and not on this machine: the names it may set are unknown here; "
                "systemd skips it only if the node lacks it too"
            )
        return entry
    entry["read"] = read
    for name, val, number in S.load_env_file(data.decode("utf-8", "replace")):
        if not S.valid_name(name):
            continue  # strv_env_clean drops it
        env[name] = val
        origins[name] = Origin(at=f"{read}:{number}", expansion=f"EnvironmentFile={path}")
        entry["variables"].append(name)
    return entry


def _working_directory(svc: _Service, unit: S.UnitName) -> str | None:
    if svc.working_directory is None:
        return "/"  # systemd.exec(5), WorkingDirectory=: "defaults to the root directory" for system units
    value = svc.working_directory[0].lstrip("-")
    if value == "~":
        return "/root" if svc.user in (None, "root", "0") else None
    try:
        resolved = S.resolve_specifiers(value, unit, svc.user)
    except S.SyntaxProblem:
        # an unknown specifier (`%Z`, a lone `%`): systemd refuses the setting; where the server would
        # start is not known here
        return None
    return None if resolved.unknown else resolved.text


def _command(
    label: str,
    line: int,
    command: S.Command,
    env: _UnitEnv,
    origins: Mapping[str, Origin],
    cwd: str | None,
    result: TransportResult,
    hop: dict[str, Any],
) -> None:
    from argtrace.layers.transport.containers import _container_servers
    from argtrace.rules import carriers as R

    at = f"{label}:{line}"
    shell_c = bool(command.argv) and _basename(command.argv[0]) in _SHELLS and "-c" in command.argv[1:3]
    if ":" in command.prefixes:  # systemd.service(5): ":" turns the substitution off
        expanded = S.Expanded(list(command.argv))
    else:
        expanded = S.expand_argv(command.argv, env)
    hop["exec_start"].append({"prefixes": command.prefixes, "path": command.path, "argv": expanded.argv})
    if expanded.too_long is not None:
        hop["exec_start"][-1]["cut_short"] = (
            f"substituting {expanded.too_long} makes the command line longer than Linux's execve accepts "
            f"(one argument at most {S.MAX_ARG_STRLEN} bytes, all at most {S.MAX_ARGS_TOTAL} bytes with the "
            "largest stack limit, a quarter of the stack limit below that: E2BIG); argtrace kept the rest as "
            "written"
        )
    for word, name in expanded.swallowed:
        lead = _leading_name(name)
        result.findings.append(
            R.TP061.finding(
                f"systemd reads the word `{word}` as one variable named `{name}` (a word starting with `$` "
                "is replaced by the variable the whole rest of it names); no such variable exists, so the "
                "word vanishes" + (": the shell gets no script after -c" if shell_c else ""),
                at=at,
                fix=f"Write `${{{lead}}}{name[len(lead) :]}`: braces substitute inside a word.",
            )
        )
    if not shell_c:
        for word, name in expanded.literal:
            result.findings.append(
                R.TP062.finding(
                    f"`{word}`: systemd substitutes `${name}` only as a word of its own, so the server gets "
                    f"the text `${name}` literally"
                    + ("" if name in env else f" (and {name} is set nowhere)"),
                    at=at,
                    fix=f"Write `${{{name}}}` in place of `${name}`.",
                )
            )
    for word, name, value in expanded.one_word:
        if S._split_value(value)[0].startswith("-"):
            result.findings.append(
                R.TP063.finding(
                    f"`{word}` reaches the server as ONE argument ({len(S._split_value(value))} words of "
                    f"{name}, blanks included): its argument parser does not read them as options",
                    at=at,
                    fix=f"Write `${name}` as a word of its own (systemd splits its value at blanks).",
                )
            )
    for word, name, value, split in expanded.stripped:
        shown = " ".join(split)
        result.findings.append(
            R.TP083.finding(
                f"`{word}`: systemd splits {name}'s value as a command line, removing its quotes and "
                f"backslashes, so the program gets `{shown}`, not the value `{value}`",
                at=at,
                fix=(
                    f"Write `${{{name}}}` for the exact value as one argument."
                    if len(split) == 1
                    else f"Single-quote, inside {name}'s value, each word whose quotes or backslashes must "
                    "reach the program (the split keeps what single quotes enclose)."
                ),
            )
        )
    for word, name in () if ":" in command.prefixes else _options_of_unread_files(command.argv, env):
        result.findings.append(
            R.TP063.finding(
                f"`{word}` is ONE argument whatever {name} holds (systemd.service(5): `${{NAME}}` is the "
                f"exact value, blanks included); {name} comes from an EnvironmentFile= not read here, and a "
                "name like it usually holds several options, which the program would then get as one word",
                at=at,
                fix=f"Write `${name}` as a word of its own (systemd splits its value at blanks).",
                severity="info",
                basis="assumed",
            )
        )
    for _index, word, name in expanded.vanished:
        result.findings.append(
            R.TP064.finding(
                f"`{word}`: {name} is set nowhere in the unit, so systemd replaces the word with nothing",
                at=at,
            )
        )
    for word, name in expanded.empty:
        result.findings.append(
            R.TP064.finding(
                f"`{word}`: {name} is set nowhere in the unit, so systemd puts an empty value", at=at
            )
        )
    unit_path = env.get("PATH")
    if not command.path.startswith("/") and unit_path not in (None, SYSTEM_PATH):
        first = unit_path.split(":", 1)[0] if unit_path else ""
        result.findings.append(
            R.TP068.finding(
                f"systemd looks `{command.path}` up in its fixed search path ({SYSTEM_PATH}), not in the "
                f"unit's PATH={unit_path}: unless the node has `{command.path}` in one of those directories, "
                "the service fails with 203/EXEC",
                at=at,
                fix=f"Write the absolute path, e.g. `{first}/{command.path}` if that is where it is.",
            )
        )
    known: dict[str, str | None] = dict(env)
    vanished = tuple(
        VanishedWord(index=i, expansion=word, at=at, state="unset", name=name)
        for i, word, name in expanded.vanished
    )
    before = len(result.servers)
    _container_servers(at, expanded.argv, known, origins, f"systemd unit {label}", result, vanished)
    for n in range(before, len(result.servers)):
        server = result.servers[n]
        words = list(server.argv)
        if not shell_c:
            for i in expanded.unknown_at:
                if i < len(words):
                    words[i] = Word(
                        None,
                        Origin(
                            at=at,
                            expansion=command.argv[i] if i < len(command.argv) else words[i].text,
                            known=False,
                            reason="set by an EnvironmentFile= not read here",
                        ),
                    )
        result.servers[n] = replace(server, argv=tuple(words), cwd=server.cwd or cwd)


# the last part of a variable name that says the variable holds a list of options (`TINYSSHDOPTS`,
# `VLLM_ARGS`, `EXTRA_FLAGS`): systemd's `${NAME}` hands such a list over as one argument
_OPTION_LIST_NAME = re.compile(r"(?:OPTS|OPTIONS|ARGS|ARGUMENTS|FLAGS|PARAMS|PARAMETERS)$")


def _options_of_unread_files(argv: tuple[str, ...], env: _UnitEnv) -> list[tuple[str, str]]:
    """The words that are a whole `${NAME}` of unknown value (an EnvironmentFile= not read here may set it)
    whose name says it holds options: (word, name)."""
    found = []
    for word in argv:
        if word.startswith("${") and word.endswith("}") and word.count("$") == 1:
            name = word[2:-1]
            if (
                S.valid_name(name)
                and env.get(name) is None
                and name in env
                and _OPTION_LIST_NAME.search(name)
            ):
                found.append((word, name))
    return found


def _leading_name(text: str) -> str:
    m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text)
    return m.group(0) if m else text
