"""Env files: ``docker run --env-file``, compose ``env_file:`` and compose's own ``.env``.

This module owns reading an env file through the Host seam (with ``--host``, the node's file), the two
parsers (docker/cli ``opts.ParseEnvFile``: values as written; compose-go v2 ``dotenv``: quotes, escapes,
comments), :class:`EnvFile` (the variables a file sets, their lines, and why it was refused or skipped),
and compose's interpolation (``${VAR}``, ``${VAR:-default}``, ``$$``), which compose applies to its env
files as to the compose file itself. It produces no findings: the carriers that name the files do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_ENV_FILE_BYTES = 1024 * 1024


# unicode.IsSpace minus the newline: what compose-go's dotenv parser skips around keys and values
_DOTENV_BLANK = "\t\v\f\r \x85\xa0"


_DOTENV_ESCAPE = re.compile(r"\\(?:[abcfnrtv$\"\\]|0\d{0,3})")


_GO_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
}


@dataclass
class EnvFile:
    """One env file as docker or compose reads it: the variables it sets, in file order."""

    path: str  # the path the container tool opens (compose: joined to the compose file's directory)
    named_at: str  # where the script or compose file names it
    values: dict[str, str | None] = field(default_factory=dict)  # None: the client's value, not known here
    lines: dict[str, int] = field(default_factory=dict)  # variable -> line of its (last) assignment
    problem: str | None = None  # why docker/compose refuses the file (missing, unreadable, malformed)
    skipped: str | None = None  # why it was not read, when that is no error (optional, on another machine)
    unset: list[tuple[str, int]] = field(default_factory=list)  # compose: ${VAR} replaced by "", with line

    def hop(self) -> dict[str, Any]:
        """For the report's ``transport`` section: names only, never values (they may be secrets)."""
        return {
            "path": self.path,
            "at": self.named_at,
            "read": self.problem is None and self.skipped is None,
            "variables": list(self.values),
            "problem": self.problem,
            "skipped": self.skipped,
        }


def read_env_file(path: str) -> tuple[bytes | None, str | None, bool]:
    """``(data, problem, missing)``: an env file read on the current host (``--host``: the node's file)."""
    from argtrace.remote.host import HostError, current_host

    host = current_host()
    where = f"on {host.label}" if host.is_remote else "here"
    if not host.is_remote:
        from argtrace.overlay import overlaid

        edited = overlaid(path)  # a fix being re-checked (argtrace.fixes): the edited text, not the disk's
        if edited is not None:
            return edited, None, False
    try:
        st = host.stat(path)
        if not st.exists:
            return None, f"no such file {where}", True
        if st.is_dir:
            return None, f"a directory {where}, not a file", False
        if st.size is not None and st.size > MAX_ENV_FILE_BYTES:
            return None, f"{st.size} bytes {where}, too large for an env file", False
        return host.read_bytes(path, limit=MAX_ENV_FILE_BYTES), None, False
    except HostError as exc:
        return None, f"cannot be read {where}: {exc}", exc.kind == "not_found"


_ABSENT = object()  # a bare `NAME` whose variable is not set: docker and compose leave it out


def parse_docker_env_file(data: bytes, lookup: Callable[[str], object], into: EnvFile) -> None:
    """``docker run --env-file`` as docker/cli reads it (``opts.ParseEnvFile`` -> ``parseKeyValueFile``):
    one ``NAME=VALUE`` per line, the value passed through as is (quotes, ``#``, blanks and ``$`` included:
    no quote removal, no interpolation); a line starting with ``#`` (after leading blanks) is a comment; a
    bare ``NAME`` takes the docker client's value (``lookup(name)``: a string, ``None`` when not known here,
    or ``_ABSENT`` when unset: the variable is left out). A name with a blank, a line starting with ``=`` or
    invalid UTF-8 make docker refuse the file (``into.problem``)."""
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]  # bufio.ScanLines drops the \r of a CRLF line
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            into.problem = f"{into.path} contains invalid utf8 bytes at line {number}"
            return
        line = text.lstrip()
        if not line or line.startswith("#"):
            continue
        name, has_value, text_value = line.partition("=")
        value: str | None = text_value
        if " " in name or "\t" in name:
            into.problem = f"{into.path}:{number}: variable '{name}' contains whitespaces"
            return
        if not name:
            into.problem = f"{into.path}:{number}: no variable name on line '{line}'"
            return
        if not has_value:
            found = lookup(name)
            if found is _ABSENT:
                continue
            value = found if isinstance(found, str) else None
        into.values.pop(name, None)  # a later line wins, and keeps its place in the order
        into.values[name] = value
        into.lines[name] = number


def _expand_escapes(text: str) -> str:
    """compose-go ``dotenv.expandEscapes`` (double-quoted values): Go escapes, ``\\$`` -> ``$$``."""

    def one(m: re.Match[str]) -> str:
        match = m.group(0)
        if match == "\\$":
            return "$$"
        if match.startswith("\\0"):
            match = "\\" + match[2:]  # `\0123` -> `\123`: an octal escape for Go
            digits = match[1:]
            if len(digits) == 3 and all(c in "01234567" for c in digits) and int(digits, 8) < 256:
                return chr(int(digits, 8))
            return match
        return _GO_ESCAPES.get(match[1], match)

    return _DOTENV_ESCAPE.sub(one, text)


class _ValuesSoFar(Mapping[str, str]):
    """``lookup`` first, then the values read so far (an unset one, None, hides an earlier file's), then
    ``earlier``: compose's precedence for ``${VAR}`` in an env file, read at each lookup."""

    def __init__(
        self, lookup: Mapping[str, str], values: Mapping[str, str | None], earlier: Mapping[str, str | None]
    ):
        self.layers = (values, earlier)
        self.lookup = lookup

    def __getitem__(self, key: str) -> str:
        if key in self.lookup:
            return self.lookup[key]
        for layer in self.layers:
            if key in layer:
                value = layer[key]
                if value is None:
                    raise KeyError(key)
                return value
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        seen = set(self.lookup)
        yield from self.lookup
        for layer in self.layers:
            for key in layer:
                if key not in seen:
                    seen.add(key)
                    if key in self:
                        yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)


def parse_compose_env_file(
    text: str, lookup: Mapping[str, str], into: EnvFile, *, earlier: Mapping[str, str | None] | None = None
) -> None:
    """An env file as docker compose reads it (compose-go v2 ``dotenv`` parser, ``parser.go``), into
    ``into.values`` (which may already hold earlier values: they are visible to ``${VAR}``).

    ``NAME=VALUE`` or ``NAME: VALUE``, optional ``export``; names of letters, digits, ``_ . - [ ]``;
    ``#`` lines are comments. Unquoted values end at the newline or at `` #`` and lose trailing blanks;
    ``'single'`` values are literal (only ``\\'`` is unescaped); ``"double"`` values get the Go escapes
    (``\\n``, ``\\t``, ``\\"`` ...). Unquoted and double-quoted values are interpolated like the compose file
    (``${VAR}``, ``${VAR:-default}``, ``$$``), looking in ``lookup`` first (compose's environment, then the
    service's ``environment:``) and then in the values read so far. A bare ``NAME`` takes its value from
    ``lookup`` and is left out when it is not there. ``earlier``: values of the files read before this one
    (lowest precedence for ``${VAR}``). A malformed line sets ``into.problem``."""

    # The line of an offset, counted from the offset asked before (the parse asks in order, a line or two
    # back at most): counted from the file's start each time, 50,000 lines took minutes (session 29's fuzzers)
    mark = [0, 1]  # an offset and its line

    def line_at(pos: int) -> int:
        at, line = mark
        line += text.count("\n", at, pos) if pos >= at else -text.count("\n", pos, at)
        mark[:] = [pos, line]
        return line

    # what ${VAR} sees, looked up where it is rather than copied per value (a copy of every value read so
    # far for each line was quadratic in a file of many names)
    env = _ValuesSoFar(lookup, into.values, earlier or {})

    def interpolate(value: str, pos: int) -> str:
        result, unset = compose_interpolate(value, env)
        into.unset.extend((name, line_at(pos)) for name in unset)
        return result

    n = len(text)
    i = 0
    while True:
        # getStatementStart: blank lines and comment lines
        while True:
            while i < n and text[i].isspace():
                i += 1
            if i >= n:
                return
            if text[i] != "#":
                break
            newline = text.find("\n", i)
            if newline < 0:
                return
            i = newline
        start = i
        if re.match(r"export\s", text[i : i + 7]):  # compose-go: `^export\s+`, then blanks
            i += len("export")
            while i < n and text[i] in _DOTENV_BLANK:
                i += 1
        key_start = i
        terminator = None
        while i < n:
            c = text[i]
            if c in "=:\n":
                terminator = c
                break
            if c in _DOTENV_BLANK or c in "_.-[]" or c.isalnum():
                i += 1
                continue
            first = text[key_start:].split("\n", 1)[0]
            into.problem = f"{into.path}:{line_at(i)}: unexpected character {c!r} in variable name {first!r}"
            return
        # a bare NAME on the last line (no newline) is taken as inherited, as it is followed by a newline
        key = text[key_start:i].rstrip()
        if " " in key:
            into.problem = f"{into.path}:{line_at(start)}: key cannot contain a space"
            return
        if terminator in (None, "\n"):
            i += 1
            if key in lookup:
                into.values.pop(key, None)
                into.values[key] = lookup[key]
                into.lines[key] = line_at(start)
            continue
        i += 1
        while i < n and text[i] in _DOTENV_BLANK:
            i += 1
        if i < n and text[i] in "'\"":
            quote = text[i]
            chars: list[str] = []
            k = i + 1
            escaped = closed = False
            while k < n:
                c = text[k]
                if escaped:
                    escaped = False
                    if c != quote:
                        chars.append("\\")
                    chars.append(c)
                elif c == "\\":
                    escaped = True
                elif c == quote:
                    closed = True
                    break
                else:
                    chars.append(c)
                k += 1
            if not closed:
                shown = text[i:].split("\n", 1)[0]
                into.problem = f"{into.path}:{line_at(i)}: unterminated quoted value {shown}"
                return
            value = "".join(chars)
            if quote == '"':
                value = interpolate(_expand_escapes(value), i)
            value_end = k + 1
        else:
            newline = text.find("\n", i)
            value_end = n if newline < 0 else newline + 1
            value = text[i : (n if newline < 0 else newline)].split(" #", 1)[0].rstrip()
            value = interpolate(value, i)
        if key:
            into.values.pop(key, None)
            into.values[key] = value
            into.lines[key] = line_at(start)
        i = value_end


def read_dotenv(path: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The ``.env`` file of a compose project (read on the current host), parsed as compose does; ``${VAR}``
    and bare names look in ``environ`` (compose's own environment) first. Missing or malformed: empty."""
    data, _problem, _missing = read_env_file(path)
    if data is None:
        return {}
    parsed = EnvFile(path, path)
    parse_compose_env_file(_env_text(data), environ or {}, parsed)
    return {k: v for k, v in parsed.values.items() if v is not None} if parsed.problem is None else {}


def _env_text(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # compose-go trims a UTF-8 byte order mark
    return data.decode("utf-8", "replace")


_COMPOSE_VAR = re.compile(
    r"\$(?:(?P<escaped>\$)|\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}"
    r"|(?P<plain>[A-Za-z_][A-Za-z0-9_]*))"
)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACED = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>.*))?\Z", re.S)
# compose-go recurses into a default without a limit; deeper templates are left as written here (each level
# is a Python frame: compose_dotenv.MAX_NESTING, the same bound)
_MAX_NESTING = 64


def _operand(arg: str, env: Mapping[str, str], unset: list[str], depth: int) -> str:
    return _interpolate(arg, env, unset, depth + 1) if depth < _MAX_NESTING else arg


def first_closing(s: str) -> int:
    """compose-go ``getFirstBraceClosingIndex``: the ``}`` that closes the first ``{`` of ``s``."""
    depth = 0
    i = 0
    while i < len(s):
        if s[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        if s[i] == "{":
            depth += 1
            i += 1
        i += 1
    return -1


def compose_interpolate(text: str, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """Compose's own interpolation (not a shell): ``$VAR``, ``${VAR}``, ``${VAR:-d}``, ``${VAR-d}``,
    ``${VAR:+x}``, ``${VAR:?err}``, ``$$`` for a literal ``$``. Returns the text and the unset names. A braced
    reference ends at the ``}`` that balances its ``{`` and its default or replacement is interpolated in
    turn (compose-go's ``getFirstBraceClosingIndex`` and ``DefaultReplacementAppliedFunc``; "Interpolation
    can also be nested: ``${VARIABLE:-${FOO:-default}}``",
    docs.docker.com/reference/compose-file/interpolation/)."""
    unset: list[str] = []
    return _interpolate(text, env, unset, 0), unset


def _interpolate(text: str, env: Mapping[str, str], unset: list[str], depth: int) -> str:
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        dollar = text.find("$", i)
        if dollar < 0:
            out.append(text[i:])
            break
        out.append(text[i:dollar])
        i = dollar + 1
        if text.startswith("$", i):
            out.append("$")
            i += 1
            continue
        plain = _NAME.match(text, i)
        if plain is not None:
            value = env.get(plain.group(0))
            if value is None:
                unset.append(plain.group(0))
            out.append(value or "")
            i = plain.end()
            continue
        close = first_closing(text[dollar:]) if text.startswith("{", i) else -1
        braced = _BRACED.match(text[i + 1 : dollar + close]) if close > 0 else None
        if braced is None:
            out.append("$")  # not a reference compose reads: kept as written (TP025 says when it refuses it)
            continue
        i = dollar + close + 1
        name, op, arg = braced.group("name"), braced.group("op"), braced.group("arg") or ""
        value = env.get(name)
        # the operand is read only where it is used: an unused default's names are not compose's to warn of
        if op in (":-", "-") and (value is None or (op == ":-" and value == "")):
            out.append(_operand(arg, env, unset, depth))
        elif op in (":+", "+"):
            used = value is not None and (op == "+" or value != "")
            out.append(_operand(arg, env, unset, depth) if used else "")
        elif value is None:
            if op not in ("-", ":-"):
                unset.append(name)
            out.append("")
        else:
            out.append(value)
    return "".join(out)


def compose_required(text: str, env: Mapping[str, str]) -> dict[str, str]:
    """The ``${VAR:?err}`` / ``${VAR?err}`` references of ``text`` that stop compose: a required value
    missing (``:?``: unset or empty; ``?``: unset), each name with compose-go's own error text
    (``template.MissingRequiredError``: "required variable VAR is missing a value: err"). Compose
    specification, Interpolation: "`${VAR:?error}` -> value of VAR if set and non-empty, otherwise exit
    with error" (docs.docker.com/reference/compose-file/interpolation/)."""
    out: dict[str, str] = {}
    for m in _COMPOSE_VAR.finditer(text):
        op = m.group("op") or ""
        name = m.group("braced")
        if name is None or op not in (":?", "?"):
            continue
        value = env.get(name)
        if value is None or (op == ":?" and value == ""):
            reason, _unset = compose_interpolate(m.group("arg") or "", env)
            out.setdefault(
                name,
                f"required variable {name} is missing a value" + (f": {reason}" if reason else ""),
            )
    return out
