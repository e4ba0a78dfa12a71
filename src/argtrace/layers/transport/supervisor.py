"""``argtrace check vllm.conf``: a Supervisor configuration (supervisord.conf, ``conf.d/*.conf``) as the
launch carrier.

This module owns reading a ``[program:NAME]`` section into the process supervisord would start, following
Supervisor's own code (supervisor 4.3.0; earlier 4.x releases read these keys the same way):

- the file is read by the standard library's ``configparser.RawConfigParser`` with
  ``inline_comment_prefixes=(';', '#')`` and ``strict=False`` (``options.UnhosedConfigParser``): argtrace
  uses that very parser, so continuation lines, inline comments and repeated keys behave as they do there;
- ``%(name)s`` expansions (``options.expand``: Python's ``%`` formatting) with ``here``, ``program_name``,
  ``group_name``, ``host_node_name``, ``process_num``, ``numprocs`` and ``ENV_X`` for supervisord's own
  environment; a name it cannot expand makes supervisord refuse the whole configuration;
- ``environment=`` split by ``datatypes.dict_of_key_value_pairs`` (a non-POSIX ``shlex.shlex`` whose word
  characters also take ``/.+-():``), its values then available to ``command=`` as ``ENV_X``;
- ``command=`` split by ``shlex.split`` (``process.Subprocess.get_execv_args``): no shell runs it, so
  ``$VAR`` stays literal unless the command is itself ``bash -c ...``;
- the child's environment (``process.Subprocess._spawn_as_child``): supervisord's environment, then
  ``SUPERVISOR_ENABLED``, ``SUPERVISOR_PROCESS_NAME``, ``SUPERVISOR_GROUP_NAME``, then ``environment=``; its
  working directory ``directory=``.

supervisord's own environment (of the shell, unit or container that started it) is not in the file: the
variables given with ``--env`` stand for it, and an ``%(ENV_X)s`` it would have to hold is an unknown word
(TP099), never a guess. Nothing the file names is run.
"""

from __future__ import annotations

import configparser
import posixpath
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace

from argtrace.layers.transport.context import TransportResult, opening_line
from argtrace.model import Origin, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.layers.shell import ScriptSource

# a [program:NAME] section header; supervisor also knows [fcgi-program:x] and [eventlistener:x], which start
# no inference server
_PROGRAM = re.compile(r"(?m)^\[program:([^\]]+)\][ \t]*$")
# what stands in an expanded text for an ``%(ENV_X)s`` (or ``%(host_node_name)s``) not known here; NUL is in
# no configuration file (manifest_kind refuses binary text) and in no argv
_UNKNOWN = "\x00{}\x00"
_UNKNOWN_IN = re.compile("\x00([^\x00]*)\x00")


def _as_written(word: str) -> str:
    """A word with each value not known here shown as the ``%(name)s`` the file wrote."""
    return _UNKNOWN_IN.sub(r"%(\1)s", word)


_SUPERVISORD_ENV = "supervisord's own environment, not in the file"


def is_supervisor_conf(data: bytes) -> bool:
    """A Supervisor configuration: its first line that is neither blank nor a comment is a section header,
    and it has a ``[program:NAME]`` section (a script that writes one through a here-document stays a
    script)."""
    opened = opening_line(data)
    if opened is None:
        return False
    text, first = opened
    return first.startswith("[") and first.endswith("]") and _PROGRAM.search(text) is not None


class _Expansions(dict[str, object]):
    """supervisor's expansion names for one process; a name only supervisord's unknown environment (or the
    node) can give stands for itself (``_UNKNOWN``) and is recorded, any other missing name is supervisor's
    error."""

    def __init__(self, known: Mapping[str, object], unknowable: frozenset[str]) -> None:
        super().__init__(known)
        self.unknowable = unknowable
        self.unknown: list[str] = []

    def __missing__(self, name: str) -> object:
        if name.startswith("ENV_") or name in self.unknowable:
            self.unknown.append(name)
            return _UNKNOWN.format(name)
        raise KeyError(name)


class ConfigProblem(Exception):
    """What supervisor says when it refuses a configuration (its ``ValueError`` text, as it words it)."""


def _expand(text: str, expansions: _Expansions, name: str) -> str:
    """supervisor's ``options.expand``: ``text % expansions``, its error worded as supervisor words it."""
    try:
        return text % expansions
    except KeyError as exc:
        raise ConfigProblem(
            f"Format string {text!r} for {name!r} contains names ({exc}) which cannot be expanded. Available "
            f"names: {', '.join(sorted(k for k in expansions))}"
        ) from None
    except (ValueError, TypeError) as exc:
        raise ConfigProblem(f"Format string {text!r} for {name!r} is badly formatted: {exc}") from None


def key_value_pairs(text: str) -> dict[str, str]:
    """supervisor's ``datatypes.dict_of_key_value_pairs``: ``KEY=val,KEY2="v,2"`` into a dict."""
    lexer = shlex.shlex(text)
    lexer.wordchars += "/.+-():"
    try:
        tokens = list(lexer)
    except ValueError as exc:  # an unclosed quote: shlex's own error, which supervisor lets through
        raise ConfigProblem(str(exc)) from None
    pairs: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        k_eq_v = tokens[i : i + 3]
        if len(k_eq_v) != 3 or k_eq_v[1] != "=":
            raise ConfigProblem(f"Unexpected end of key/value pairs in value '{text}'")
        pairs[k_eq_v[0]] = k_eq_v[2].strip("'\"")
        i += 4
    return pairs


@dataclass(frozen=True)
class Program:
    """One process of a ``[program:NAME]`` section as supervisord would start it."""

    name: str
    line: int  # the ``command=`` line
    argv: tuple[str, ...]
    environment: Mapping[str, str]  # environment= after expansion ("" never: a value not known is absent)
    unknown_environment: Mapping[str, str]  # environment= names whose value is not known here, and why
    unknown_names: tuple[str, ...]  # the expansion names of argv not known here (ENV_X, host_node_name)
    directory: str | None
    user: str | None
    autostart: bool


def _lines(text: str) -> dict[tuple[str, str], int]:
    """(section, key) -> the 1-based line where the key is first set: configparser keeps no positions."""
    where: dict[tuple[str, str], int] = {}
    section = ""
    for n, line in enumerate(text.splitlines(), 1):
        header = re.match(r"\[([^\]]+)\]", line)
        if header:
            section = header.group(1)
            continue
        key = re.match(r"([^\s=:;#][^=:]*?)\s*[=:]", line)
        if key and not line[:1].isspace():
            where.setdefault((section, key.group(1).strip().lower()), n)
    return where


def read_programs(label: str, text: str, supervisord_env: Mapping[str, str]) -> list[Program]:
    """The processes of every ``[program:NAME]`` section, in file order. Raises ``ConfigProblem`` where
    supervisord refuses the file (it then starts no program at all)."""
    parser = configparser.RawConfigParser(inline_comment_prefixes=(";", "#"), strict=False)
    try:
        parser.read_string(text, source=label)
    except configparser.Error as exc:
        raise ConfigProblem(str(exc).replace("\n", " ")) from None
    lines = _lines(text)
    here = posixpath.abspath(posixpath.dirname(label) or ".")  # options: os.path.dirname(abspath(file))
    environ: dict[str, object] = {f"ENV_{k}": v for k, v in supervisord_env.items()}
    common_env: dict[str, str] = {}
    if parser.has_option("supervisord", "environment"):
        # options.ServerOptions.server_configs_from_parser: [supervisord] environment= is every program's
        # environment under its own, and its names are ENV_X expansions from then on
        known = _Expansions({"here": here, **environ}, frozenset({"host_node_name"}))
        common_env = key_value_pairs(_expand(parser.get("supervisord", "environment"), known, "environment"))
        environ.update({f"ENV_{k}": v for k, v in common_env.items()})
    programs: list[Program] = []
    for section in parser.sections():
        if not section.startswith("program:"):
            continue
        name = section.split(":", 1)[1]
        common: dict[str, object] = {
            "here": here,
            "program_name": name,
            "group_name": name,  # a [program:x] is a group of its own named x
            **environ,
        }
        get = parser.get
        raw_command = get(section, "command") if parser.has_option(section, "command") else None
        if raw_command is None:
            raise ConfigProblem(f"program section {section} does not specify a command")
        numprocs = _integer(_plain(parser, section, "numprocs", "1", common), "numprocs")
        numprocs_start = _integer(_plain(parser, section, "numprocs_start", "0", common), "numprocs_start")
        autostart = _plain(parser, section, "autostart", "true", common).lower() in ("true", "yes", "on", "1")
        user = _plain(parser, section, "user", "", common) or None
        process_name = get(section, "process_name") if parser.has_option(section, "process_name") else ""
        if numprocs > 1 and "%(process_num)" not in (process_name or "%(program_name)s"):
            # options._processes_from_section: several processes need names of their own
            raise ConfigProblem("%(process_num) must be present within process_name when numprocs > 1")
        for process_num in range(numprocs_start, numprocs_start + numprocs):
            expansions = _Expansions(
                {**common, "process_num": process_num, "numprocs": numprocs}, frozenset({"host_node_name"})
            )
            env_text = get(section, "environment") if parser.has_option(section, "environment") else ""
            pairs = {**common_env, **key_value_pairs(_expand(env_text, expansions, "environment"))}
            environment: dict[str, str] = {}
            unknown_env: dict[str, str] = {}
            for k, v in pairs.items():
                hidden = _UNKNOWN_IN.findall(v)
                if hidden:
                    unknown_env[k] = f"made from %({hidden[0]})s, which supervisord's environment gives"
                else:
                    environment[k] = v
                # options: "extend expansions for process from [program:x] environment definition"
                expansions[f"ENV_{k}"] = v
            expansions.unknown.clear()
            command = _expand(raw_command, expansions, f"{section}.command")
            try:
                argv = shlex.split(command)
            except ValueError as exc:
                raise ConfigProblem(f"can't parse command {command!r}: {exc}") from None
            if not argv:
                raise ConfigProblem("command is empty")
            directory = get(section, "directory") if parser.has_option(section, "directory") else None
            programs.append(
                Program(
                    name=name if numprocs == 1 else f"{name}:{process_num}",
                    line=lines.get((section, "command"), 1),
                    argv=tuple(argv),
                    environment=environment,
                    unknown_environment=unknown_env,
                    unknown_names=tuple(dict.fromkeys(expansions.unknown)),
                    directory=_expand(directory, expansions, "directory") if directory else None,
                    user=user,
                    autostart=autostart,
                )
            )
    return programs


def _plain(parser: configparser.RawConfigParser, section: str, key: str, default: str, known: dict) -> str:
    value = parser.get(section, key) if parser.has_option(section, key) else default
    return _expand(value, _Expansions(known, frozenset({"host_node_name"})), key)


def _integer(text: str, key: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ConfigProblem(f"{key}: {text!r} is not an integer") from None


def analyze_supervisor(source: ScriptSource, *, supervisord_env: Mapping[str, str]) -> TransportResult:
    """The server starts of a Supervisor configuration. ``supervisord_env``: the variables given with
    ``--env``, standing for supervisord's own environment."""
    from argtrace.layers.transport.command_names import _SHELLS, _basename
    from argtrace.layers.transport.containers import _container_servers
    from argtrace.rules import supervisor as R

    label = source.label
    result = TransportResult()
    try:
        programs = read_programs(label, source.data.decode("utf-8", "replace"), supervisord_env)
    except ConfigProblem as exc:
        result.findings.append(
            R.TP098.finding(
                f"supervisord refuses this configuration ({exc}): it starts no program, the server included",
                at=label,
            )
        )
        return result
    _includes(label, source.data.decode("utf-8", "replace"), result)
    for program in programs:
        at = f"{label}:{program.line}"
        hop = {
            "at": at,
            "via": "supervisor",
            "program": program.name,
            "user": program.user,
            "autostart": program.autostart,
            "argv": [_as_written(w) for w in program.argv],
            "environment": sorted([*program.environment, *program.unknown_environment]),
        }
        result.hops.append(hop)
        for name in program.unknown_names:
            result.findings.append(
                R.TP099.finding(
                    f"`%({name})s` in program {program.name}'s command is "
                    + (
                        f"{name[4:]} of supervisord's own environment"
                        if name.startswith("ENV_")
                        else "the node's host name"
                    )
                    + ", which the file does not show: that word is not known here (and if supervisord's "
                    "environment lacks it, supervisord refuses the whole configuration)",
                    at=at,
                )
            )
        env: dict[str, str | None] = {
            **supervisord_env,
            "SUPERVISOR_ENABLED": "1",
            "SUPERVISOR_PROCESS_NAME": program.name.split(":")[-1] if ":" in program.name else program.name,
            "SUPERVISOR_GROUP_NAME": program.name.split(":")[0],
            **program.environment,
            **dict.fromkeys(program.unknown_environment),
        }
        origins = {
            k: Origin(at=at, known=False, reason=why) for k, why in program.unknown_environment.items()
        }
        if env.get("PATH") is None:
            # the program inherits supervisord's PATH, which the file does not show
            env["PATH"] = None
            origins["PATH"] = Origin(at=at, known=False, reason=_SUPERVISORD_ENV)
        shell_c = len(program.argv) >= 3 and _basename(program.argv[0]) in _SHELLS
        argv = list(program.argv)
        if shell_c:
            # the shell's script reads the unknown value as a variable of its own, unknown to the shell layer
            for i, word in enumerate(argv):
                for name in _UNKNOWN_IN.findall(word):
                    env[name] = None
                    origins[name] = Origin(at=at, known=False, reason=_SUPERVISORD_ENV)
                argv[i] = _UNKNOWN_IN.sub(r"${\1}", word)
        before = len(result.servers)
        _container_servers(at, argv, env, origins, f"supervisor program {program.name}", result)
        if not shell_c and len(result.servers) > before:
            # only a program that starts a server is argtrace's to judge (a dashboard beside it is not)
            _no_shell_findings(program, at, result)
        for n in range(before, len(result.servers)):
            server = result.servers[n]
            words = tuple(
                Word(
                    None,
                    Origin(
                        at=at,
                        expansion=_as_written(w.text),
                        known=False,
                        reason=_SUPERVISORD_ENV,
                    ),
                )
                if w.text is not None and _UNKNOWN_IN.search(w.text)
                else w
                for w in server.argv
            )
            result.servers[n] = replace(server, argv=words, cwd=server.cwd or program.directory)
        result.keep_secrets(program.environment)
    return result


def _includes(label: str, text: str, result: TransportResult) -> None:
    """TP103: the files an ``[include]`` section names, whose programs supervisord starts with this file's
    (``files=`` globs split at blanks, relative ones joined to this file's directory, as supervisor's
    ``ServerOptions.read_config`` does); how many match on this machine is said, none is read."""
    import glob

    from argtrace.rules.supervisor import TP103

    parser = configparser.RawConfigParser(inline_comment_prefixes=(";", "#"), strict=False)
    try:
        parser.read_string(text, source=label)
    except configparser.Error:
        return
    if not parser.has_option("include", "files"):
        return
    here = posixpath.dirname(label)
    # `%(here)s` is the file's directory (options.py: parser.expand_here); other expansions stay as written
    patterns = parser.get("include", "files").replace("%(here)s", posixpath.abspath(here or ".")).split()
    found: list[str] = []
    for pattern in patterns:
        found.extend(sorted(glob.glob(posixpath.join(here, pattern) if here else pattern)))
    shown = ", ".join(f"`{p}`" for p in found[:5]) + (", ..." if len(found) > 5 else "")
    matched = f"{len(found)} file(s) match here: {shown}" if found else "no file matches on this machine"
    result.findings.append(
        TP103.finding(
            f"supervisord also starts the programs of `[include] files = {' '.join(patterns)}` ({matched}); "
            "argtrace read only this file, so a server started there is not checked from here",
            at=f"{label}:{_lines(text).get(('include', 'files'), 1)}",
        )
    )


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _no_shell_findings(program: Program, at: str, result: TransportResult) -> None:
    """TP100 and TP013: words of ``command=`` a shell would have read, handed on as they are (supervisor
    executes the split command itself)."""
    from argtrace.layers.transport.containers import _EXEC_FORM_SHELL_WORDS, _REFERENCE
    from argtrace.layers.transport.words import _show, _show_argv
    from argtrace.model import Evidence
    from argtrace.rules import supervisor as R
    from argtrace.rules import transport as T

    argv = program.argv
    shown = _show_argv([_as_written(w) for w in argv])
    if _ASSIGNMENT.match(argv[0]):
        name, _, value = argv[0].partition("=")
        result.findings.append(
            R.TP100.finding(
                f"supervisor executes `{argv[0]}` as the command of program {program.name} (no shell reads "
                f"`NAME=value`): it finds no such command, so the server never starts",
                at=at,
                evidence=[Evidence("transport", at, shown)],
                fix=f'Move it to the program\'s environment: `environment={name}="{value}"`, and start '
                f"`command=` with `{_show(argv[1]) if len(argv) > 1 else '...'}`.",
            )
        )
    references: list[str] = []
    shell_words: list[str] = []
    for word in argv[1:]:
        reference = _REFERENCE.match(word) or _FLAG_REFERENCE.match(word)
        if reference:
            references.append(reference.group(1))
        elif word in _EXEC_FORM_SHELL_WORDS or "$(" in word:
            shell_words.append(word)
    if not references and not shell_words:
        return
    first = next(w for w in argv[1:] if w in shell_words or _REFERENCE.match(w) or _FLAG_REFERENCE.match(w))
    fixes = [
        f"Write `%(ENV_{name})s` for `${name}`: supervisor expands it from its own environment and "
        "`environment=` lines."
        for name in dict.fromkeys(references)
    ]
    if shell_words and all(w in _REDIRECTIONS for w in shell_words):
        fixes.append(
            "Drop the redirection: `stdout_logfile=` (with `redirect_stderr=true`) takes the output."
        )
    elif shell_words:
        fixes.append("Run it through a shell: `command=/bin/bash -c 'exec ...'`.")
    result.findings.append(
        T.TP013.finding(
            f"program {program.name}'s `command=` is run without a shell (supervisor splits it and executes "
            f"it): no shell runs it, so {_show(first)} is passed to the program as a literal argument",
            at=at,
            evidence=[Evidence("transport", at, shown)],
            fix=" ".join(fixes),
        )
    )


_FLAG_REFERENCE = re.compile(r"^-[^=$]*=\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$")
_REDIRECTIONS = {">", ">>", "<", "2>&1", "&>"}
