"""The environment ``sudo`` and ``env`` hand to the command they run, as the real programs build it.

``sudo`` (sudoers policy): with ``env_reset`` (on in Debian's and every distribution's /etc/sudoers) the
command gets a new environment: ``TERM`` (``unknown`` when unset), ``PATH`` (``secure_path`` when set),
``HOME``, ``MAIL``, ``SHELL``, ``LOGNAME``, ``USER`` of the target user, ``SUDO_COMMAND``/``SUDO_USER``/
``SUDO_UID``/``SUDO_GID``, and of the caller's variables only those ``env_keep`` names, plus the
``env_check`` ones whose value has no ``/`` or ``%``. ``-E`` keeps the caller's environment minus
``env_delete`` (``PYTHONPATH``, ``LD_*``...) but ``PATH`` is still ``secure_path``; ``--preserve-env=A,B``
adds A and B to the reset environment (even ``env_delete`` names); ``sudo VAR=x cmd`` sets VAR (``PATH=``
there replaces ``secure_path``). ``-u USER`` changes the target user; ``-s`` runs ``$SHELL -c CMD``; ``-i``
runs the target's login shell, whose profile files may change anything. sudoers(5) "Command environment";
each point is checked against the real sudo in ``tests/shell/test_wrapper_env.py``.

The lists (``env_keep``, ``env_check``, ``env_delete``, ``secure_path``) are not typed here: they are what
``sudo -V`` prints as root on Debian 12 with its /etc/sudoers, recorded by ``scripts/gen_sudo_defaults.py``
in ``data/sudo_defaults.json``. A machine's sudoers may differ, so every value they decide carries that
reason, and findings resting on them have basis ``assumed``.

``env``: ``-i`` empties, ``-u NAME`` unsets, ``NAME=value`` sets, in the order written; ``-S STRING`` is split
into words (coreutils' rules, :func:`split_env_s`) before anything else reads the command.

``systemd-run`` (systemd-run(1)): the command runs as a transient service of the service manager (the
system's, or the user's with ``--user``), whose processes get the manager's environment and never the
caller's (systemd.exec(5), "Environment variables in spawned processes"); ``-E``/``--setenv=NAME=VALUE``
and ``-p Environment=NAME=VALUE ...`` add to it, ``-E NAME`` alone passes the caller's value; a command
that is no path is looked up in the caller's ``PATH`` by systemd-run itself. With
``--scope`` systemd-run execs the command itself: the caller's environment, plus ``--setenv``.

``hf jobs run`` (Hugging Face Jobs): the command runs in a container on Hugging Face's hardware, with the
image's environment and the ``-e``/``-s`` variables only (:func:`hf_jobs_ops`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from argtrace.frameworks.detect import _SUDO_LONG_WITH_VALUE, _SUDO_SHORT_WITH_VALUE
from argtrace.package_data import bundled_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.frameworks.detect import Detection

# name -> (value or None, at, expansion, reason): the shape of the shell layer's server environment
EnvMap = dict[str, tuple[str | None, str | None, str, str | None]]

_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
MAIL_DIR = "/var/mail"  # glibc's _PATH_MAILDIR on Debian: sudo sets MAIL=/var/mail/USER

# The package's data directory, as a path: importlib.resources would import zipfile and its readers at
# every start-up for a file that is always on disk beside this module (issue 18).


@dataclass(frozen=True)
class SudoDefaults:
    """The environment rules of a stock ``sudo`` (``env_reset``, ``secure_path``, the kept, checked and
    deleted variables) on the system they were read from."""

    env_reset: bool
    secure_path: str | None
    env_keep: tuple[str, ...]
    env_check: tuple[str, ...]
    env_delete: tuple[str, ...]
    package: str  # "sudo 1.9.13p3-1+deb12u4"
    system: str  # "Debian GNU/Linux 12 (bookworm)"

    @property
    def basis(self) -> str:
        return (
            f"{self.package} with the default /etc/sudoers of {self.system}; the machine's sudoers may differ"
        )


@lru_cache(maxsize=1)
def sudo_defaults() -> SudoDefaults:
    raw = bundled_json("data/sudo_defaults.json")
    return SudoDefaults(
        env_reset=bool(raw["env_reset"]),
        secure_path=raw.get("secure_path"),
        env_keep=tuple(raw.get("env_keep", ())),
        env_check=tuple(raw.get("env_check", ())),
        env_delete=tuple(raw.get("env_delete", ())),
        package=str(raw.get("package") or "sudo"),
        system=str(raw.get("system") or "Debian"),
    )


@dataclass
class SudoCall:
    """A ``sudo`` in front of a command: the target user, the options that keep or reset the environment,
    and where the command begins."""

    user: str = "root"
    keep_all: bool = False  # -E / --preserve-env
    preserve: tuple[str, ...] = ()  # --preserve-env=A,B
    login: bool = False  # -i
    shell: bool = False  # -s
    command: int = 0  # index of the first word after the options (VAR=x words, then the command)


def parse_sudo(words: Sequence[str], start: int) -> SudoCall:
    """sudo's options from ``words[start]`` on (getopt_long: combined short flags, attached values)."""
    call = SudoCall()
    i = start
    while i < len(words):
        w = words[i]
        if w == "--":
            i += 1
            break
        if not w.startswith("-") or w == "-":
            break
        if w.startswith("--"):
            name, eq, value = w.partition("=")
            if name in _SUDO_LONG_WITH_VALUE and not eq:
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            if name in ("--user",):
                call.user = value
            elif name == "--preserve-env":
                if eq:
                    call.preserve += tuple(n for n in value.split(",") if n)
                else:
                    call.keep_all = True
            elif name == "--login":
                call.login = True
            elif name == "--shell":
                call.shell = True
            i += 1
            continue
        k = 1
        while k < len(w):
            c = w[k]
            if c in _SUDO_SHORT_WITH_VALUE:
                value = w[k + 1 :]
                if not value:
                    value = words[i + 1] if i + 1 < len(words) else ""
                    i += 1
                if c == "u":
                    call.user = value
                break
            if c == "E":
                call.keep_all = True
            elif c == "i":
                call.login = True
            elif c == "s":
                call.shell = True
            k += 1
        i += 1
    call.command = i
    return call


def _matches(name: str, value: str | None, patterns: Sequence[str]) -> bool:
    import fnmatch  # here: pathlib's is deferred to its first use (deferred_stdlib.py)

    for p in patterns:
        if "=" in p:  # "*=()*": matched against NAME=VALUE (bash functions exported by value)
            if value is not None and fnmatch.fnmatchcase(f"{name}={value}", p):
                return True
        elif fnmatch.fnmatchcase(name, p):
            return True
    return False


def _tz_safe(value: str) -> bool:
    """sudo's env.c ``tz_is_safe`` (reconstructed): a TZ that is a path must be under the zoneinfo dir."""
    v = value[1:] if value.startswith(":") else value
    if v.startswith("/") and not v.startswith("/usr/share/zoneinfo/"):
        return False
    return ".." not in v and all(c.isprintable() and not c.isspace() for c in v) and len(v) < 4096


def _check_ok(name: str, value: str | None) -> bool | None:
    """env_check: kept when the value has no ``/`` or ``%`` (TZ: a safe zone); None: value unknown."""
    if value is None:
        return None
    if name == "TZ":
        return _tz_safe(value)
    return "/" not in value and "%" not in value


def sudo_environment(
    env: EnvMap,
    call: SudoCall,
    command: Sequence[str | None],
    at: str | None,
    *,
    passwd: Callable[[str], tuple[str, str] | None],
    is_file: Callable[[str], bool],
    cwd: str | None = None,
    defaults: SudoDefaults | None = None,
    realpath: Callable[[str], str] = lambda p: p,
) -> EnvMap:
    """The environment ``sudo [call] command...`` starts ``command`` with, from the caller's ``env``.

    ``command`` holds the words after sudo's options and ``VAR=x`` words; ``passwd(user)`` gives the
    target's (home, shell); ``is_file`` looks the command up on secure_path (on the node under --host)."""
    d = defaults or sudo_defaults()
    basis = d.basis
    unk = f"not known statically; {basis}"
    new: EnvMap = {}
    check = d.env_check
    if call.keep_all and not call.login:
        for k, v in env.items():
            if _matches(k, v[0], d.env_delete):
                continue
            if _matches(k, None, check):
                ok = _check_ok(k, v[0])
                if ok is False:
                    continue
                if ok is None:
                    v = (None, v[1], v[2], f"kept only if the value has no '/' or '%' ({basis})")
            new[k] = v
    else:
        for k, v in env.items():
            if k in call.preserve or _matches(k, None, d.env_keep):
                new[k] = v
            elif _matches(k, None, check):
                ok = _check_ok(k, v[0])
                if ok is True:
                    new[k] = v
                elif ok is None:
                    new[k] = (None, v[1], v[2], f"kept only if the value has no '/' or '%' ({basis})")
    if not d.env_reset and not call.login:
        new = dict(env)
    pw = passwd(call.user)
    home, shell = pw if pw is not None else (None, None)
    why_pw = None if pw is not None else f"the home and shell of user {call.user!r} (from its passwd entry)"
    caller_shell = env.get("SHELL", (None,))[0]
    if call.shell and caller_shell is not None:
        shell = caller_shell  # sudo -s runs $SHELL when it is set (and hands it on as SHELL)

    def put(name: str, value: str | None, reason: str | None = None) -> None:
        new[name] = (value, at, "sudo", reason if value is None else None)

    if d.secure_path is not None:
        put("PATH", d.secure_path)
    reset = not call.keep_all or call.login
    if reset:  # -E keeps the caller's HOME, and leaves it unset when the caller had none (sudo 1.9.13)
        put("HOME", home, why_pw)
    if reset or "SHELL" not in new or call.shell:
        put("SHELL", shell, why_pw if shell is None else None)
    if reset:
        put("MAIL", f"{MAIL_DIR}/{call.user}")
    put("LOGNAME", call.user)
    put("USER", call.user)
    if "TERM" not in new:
        put("TERM", "unknown")
    # the invoking user's name and ids: who runs the script is not known statically
    for name in ("SUDO_USER", "SUDO_UID", "SUDO_GID"):
        put(name, None, f"the user who runs sudo: {unk}")
    put("SUDO_COMMAND", *_sudo_command(command, call, new, d, is_file, shell))
    if call.shell or call.login:
        # a shell runs between sudo and the server: bash sets PWD and counts SHLVL, then execs the last
        # command of -c directly (SHLVL back down); dash sets PWD only; a login shell also reads the
        # target's profile files
        kind = realpath(shell or "").rsplit("/", 1)[-1] if not call.login else ""
        lvl = env.get("SHLVL", (None,))[0] if call.keep_all else None
        if kind in ("bash", "dash"):
            put("PWD", cwd, "the directory sudo -s runs in is not known statically")
            if kind == "bash":  # dash leaves SHLVL as it came
                put("SHLVL", lvl if lvl is not None and lvl.isdigit() else "0")
        else:
            why = f"sudo -{'i' if call.login else 's'} runs the command through the user's shell ({shell})"
            for name in ("PWD", "SHLVL", *(("PATH",) if call.login else ())):
                put(name, None, why + ", which sets it")
    return new


def _sudo_command(
    command: Sequence[str | None],
    call: SudoCall,
    env: EnvMap,
    d: SudoDefaults,
    is_file: Callable[[str], bool],
    shell: str | None,
) -> tuple[str | None, str | None]:
    """``SUDO_COMMAND``: the command as sudo resolved it on secure_path, and its arguments, space-joined."""
    if not command or any(w is None for w in command):
        return None, "a word of the command is not known statically"
    words = [w or "" for w in command]
    if call.shell or call.login:
        if shell is None or not all(re.fullmatch(r"[A-Za-z0-9_./=:,+@%-]*", w) for w in words):
            return None, "sudo escapes the command for the shell's -c"
        return f"{shell} -c {' '.join(words)}", None
    prog = words[0]
    if "/" not in prog:
        found = resolve_on(prog, d.secure_path or "", is_file)
        if found is None:
            return None, f"`{prog}` is not found on sudo's secure_path ({d.secure_path})"
        prog = found
    return " ".join([prog, *words[1:]]), None


def resolve_on(prog: str, path: str, is_file: Callable[[str], bool]) -> str | None:
    """The first ``DIR/prog`` on ``path`` that exists (sudo looks the command up on secure_path)."""
    for directory in path.split(":"):
        candidate = f"{directory or '.'}/{prog}"
        if is_file(candidate):
            return candidate
    return None


def env_ops(words: Sequence[str], start: int, env: EnvMap, at: str | None) -> int:
    """Apply ``env``'s options from ``words[start]`` on (``-i``, ``-u NAME``, clustered as getopt_long reads
    them: ``-iu NAME``; the table generated from coreutils' ``env --help``) and a lone ``-`` (same as ``-i``,
    coreutils env.c) to ``env`` in place; return the index of the first ``NAME=value`` word or the command
    (the caller applies the assignments)."""
    from argtrace.frameworks.wrappers import options_of, scan_options

    spec = options_of("env")
    if spec is None:
        return start
    scan = scan_options(words, start, spec)
    for name, value in scan.seen:
        if name in ("i", "ignore-environment"):
            env.clear()
        elif name in ("u", "unset") and value is not None:
            env.pop(value, None)
    i = scan.end
    if i < len(words) and words[i] == "-":
        env.clear()
        i += 1
    return i


def systemd_run_ops(words: Sequence[str], start: int, env: EnvMap, at: str | None) -> None:
    """Apply ``systemd-run``'s options from ``words[start]`` on to ``env`` in place (see the module's doc):
    a transient service starts from the manager's environment, which is not known here, so the caller's
    variables are dropped; ``--scope`` keeps them."""
    import shlex

    from argtrace.frameworks.wrappers import options_of, scan_options

    spec = options_of("systemd-run")
    if spec is None:
        return
    scan = scan_options(words, start, spec)
    caller = dict(env)
    if not any(n == "scope" for n, _v in scan.seen):
        env.clear()
        # systemd-run.c looks a command that is no path up in the caller's PATH (find_executable, when it
        # talks to the local manager) and hands the manager that path: the lookup is the caller's
        if "PATH" in caller:
            env["PATH"] = caller["PATH"]
    for name, value in scan.seen:
        if name in ("E", "setenv") and value:
            var, eq, val = value.partition("=")
            if eq:
                env[var] = (val, at, "systemd-run --setenv", None)
            elif var in caller:
                env[var] = caller[var]  # systemd-run.c: a bare name passes the caller's value
        elif name in ("p", "property") and value and value.startswith("Environment="):
            try:
                assignments = shlex.split(value[len("Environment=") :])
            except ValueError:
                continue  # unbalanced quotes: systemd refuses the property and starts nothing
            for word in assignments:
                var, eq, val = word.partition("=")
                if eq and _ASSIGN.match(word):
                    env[var] = (val, at, "systemd-run -p Environment=", None)


def hf_jobs_ops(words: Sequence[str], start: int, env: EnvMap) -> None:
    """``hf jobs run`` (huggingface_hub's CLI): the command runs in a container on Hugging Face's machines,
    which starts from the image's environment, never the caller's; ``-e/--env NAME=VALUE`` and ``-s/--secrets
    NAME=VALUE`` are applied after this (their words come later in argv), and a bare ``-s NAME``/``-e NAME``
    passes the caller's value (huggingface_hub/cli/jobs.py reads it from the environment)."""
    from argtrace.frameworks.detect import _hf_jobs_table

    table = _hf_jobs_table()
    named = set(table["env"]) | set(table["secrets"])
    caller = dict(env)
    env.clear()
    # the command is looked up in the image's PATH (its ENV), which is not known here
    env["PATH"] = (None, None, "hf jobs run", "the container image's PATH")
    i = start
    while i < len(words) and words[i].startswith("-"):
        name, eq, attached = words[i].partition("=")
        value = attached if eq else (words[i + 1] if i + 1 < len(words) else "")
        if name in named and "=" not in value and value in caller:
            env[value] = caller[value]
        i += 1 if eq or name not in table["with_value"] else 2


_S_ESCAPES = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def split_env_s(text: str, lookup: Callable[[str], str | None]) -> list[str] | None:
    """Split ``env -S STRING`` into words as coreutils' env does (``'...'``, ``"..."``, ``\\`` escapes,
    ``\\_`` a space, ``\\c`` the end, ``#`` a comment at a word start, ``${NAME}`` from the environment);
    ``None`` when a part cannot be known here (an unknown variable, a ``$`` env would reject)."""
    out: list[str] = []
    cur: list[str] = []
    have = False
    i, n = 0, len(text)
    quote: str | None = None
    while i < n:
        c = text[i]
        if quote == "'":
            if c == "'":
                quote = None
            elif c == "\\" and i + 1 < n and text[i + 1] in "\\'":
                i += 1
                cur.append(text[i])
            else:
                cur.append(c)
            i += 1
            continue
        if c == "\\":
            if i + 1 >= n:
                return None
            e = text[i + 1]
            if e == "c":
                break
            if e == "_":
                if quote is None:
                    if have:
                        out.append("".join(cur))
                    cur, have = [], False
                else:
                    cur.append(" ")
            elif e in _S_ESCAPES:
                cur.append(_S_ESCAPES[e])
            elif e in "\\\"'#$ ":
                cur.append(e)
                have = True
            else:
                return None  # env: invalid backslash sequence
            have = have or e != "_"
            i += 2
            continue
        if c == "$":
            m = re.match(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", text[i:])
            if not m:
                return None  # env: only ${VARNAME} is supported
            value = lookup(m.group(1))
            if value is None:
                return None
            cur.append(value)
            have = True
            i += m.end()
            continue
        if quote == '"':
            if c == '"':
                quote = None
            else:
                cur.append(c)
            i += 1
            continue
        if c in "'\"":
            quote = c
            have = True
        elif c in " \t\n\v\f\r":
            if have:
                out.append("".join(cur))
            cur, have = [], False
        elif c == "#" and not have:
            break
        else:
            cur.append(c)
            have = True
        i += 1
    if quote is not None:
        return None
    if have:
        out.append("".join(cur))
    return out


def passwd_entry(read: Callable[[], bytes | None]) -> Callable[[str], tuple[str, str] | None]:
    """A lookup of (home, shell) by user name in the passwd file ``read()`` returns."""

    def lookup(user: str) -> tuple[str, str] | None:
        data = read()
        if data is None:
            return None
        for line in data.decode("latin-1").splitlines():
            f = line.split(":")
            if len(f) >= 7 and (f[0] == user or (user.startswith("#") and f[2] == user[1:])):
                return f[5], f[6]
        return None

    return lookup


def expand_env_s(argv: list[Any], lookup: Callable[[str], str | None]) -> list[Any]:
    """``env [opts] -S 'A=1 cmd args'`` as env runs it: the string's words take its place in ``argv``
    (``ExpWord``s, each at the string's location); unchanged when the string cannot be split here."""
    import dataclasses

    from argtrace.frameworks.detect import _unwrap

    for _ in range(4):  # env -S 'env -S ...' nests, rarely
        texts = [w.text or "" for w in argv]
        wrappers: list[str] = []
        positions: list[int] = []
        _unwrap(texts, 0, wrappers, [], positions)
        changed = False
        for p, name in zip(positions, wrappers, strict=True):
            if name != "env":
                continue
            i = p + 1
            while i < len(argv) and texts[i].startswith("-") and texts[i] != "--":
                t = texts[i]
                if t in ("-S", "--split-string") and i + 1 < len(argv):
                    span, string = 2, argv[i + 1].text
                elif t.startswith("--split-string="):
                    span, string = 1, t.split("=", 1)[1]
                elif t.startswith("-S") and len(t) > 2:
                    span, string = 1, t[2:]
                else:
                    i += 2 if t in ("-u", "--unset", "-C", "--chdir") else 1
                    continue
                words = split_env_s(string, lookup) if string is not None else None
                if words is None:
                    break
                src = argv[i + span - 1]
                new = [dataclasses.replace(src, text=w, split_from=src.expansion) for w in words]
                argv = [*argv[:i], *new, *argv[i + span :]]
                changed = True
                break
            if changed:
                break
        if not changed:
            return argv
    return argv


@dataclass(frozen=True)
class SystemdRunLost:
    """A word of a ``systemd-run`` command the service manager substituted with nothing: its text as
    systemd-run passed it on, the variable, and whether the word vanished (``$NAME``) or became empty."""

    word: str
    name: str
    vanished: bool
    at: str
    flag: str | None = None  # the option word before it, when it is one (`--port`)


def systemd_run_substitution(
    argv: list[Any], det: Detection, env: EnvMap
) -> tuple[list[Any], list[SystemdRunLost]]:
    """``systemd-run`` in service mode (no ``--scope``) hands its command to the service manager as the
    transient service's ``ExecStart=``, whose ``$NAME``/``${NAME}`` the manager substitutes with the
    service's environment when it starts it (systemd-run(1): "the command line is subject to the same
    expansion as ExecStart=", ``--expand-environment=no`` turns it off since 254; systemd.service(5),
    "Command lines"). A ``$`` the caller's shell left in a word (single quotes, ``\\$``) is substituted
    there, from ``--setenv``/``-p Environment=`` (``env``, as :func:`systemd_run_ops` built it), not from
    the caller. ``argv``'s ``ExpWord`` s after the substitution, and the words lost to a name the service
    does not set."""
    import dataclasses

    from argtrace.frameworks.wrappers import options_of, scan_options
    from argtrace.layers.transport import systemd_syntax as S

    texts = [w.text or "" for w in argv]
    lost: list[SystemdRunLost] = []
    for p, name in zip(det.wrapper_at, det.wrappers, strict=False):
        if name != "systemd-run":
            continue
        spec = options_of("systemd-run")
        if spec is None:
            continue
        options = texts[p + 1 : det.command_index]
        if "--scope" in options or any(
            o.split("=", 1)[-1].lower() in ("no", "false", "0", "off")
            for o in options
            if o.startswith("--expand-environment=")
        ):
            continue  # systemd-run execs the command itself, or was told not to substitute
        start = scan_options(texts, p + 1, spec).end
        values = {k: v[0] for k, v in env.items()}
        out: list[Any] = list(argv[:start])
        for k, word in enumerate(argv[start:], start):
            if word.text is None or "$" not in word.text:
                out.append(word)
                continue
            expanded = S.expand_argv((word.text,), values)
            before = texts[k - 1] if k > start and texts[k - 1].startswith("-") else None
            for _i, _w, var in expanded.vanished:
                lost.append(SystemdRunLost(word.text, var, True, word.at, before))
            for _w, var in expanded.empty:
                lost.append(SystemdRunLost(word.text, var, False, word.at, before))
            how = f"systemd-run: {word.text}"
            out.extend(dataclasses.replace(word, text=t, expansion=how) for t in expanded.argv)
        return out, lost
    return argv, lost
