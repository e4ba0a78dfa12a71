"""``argtrace check Makefile``: a Makefile's recipes as the shell script make runs.

make does not hand a Makefile to a shell: it expands its own variables (``$(MODEL)``, ``${PORT}``, ``$$``
for a literal ``$``) and runs each recipe line (a line starting with a tab under a ``target:`` line) with
``/bin/sh -c`` (GNU make manual, "Recipe Execution", "How to Use Variables"). Read as a shell script, a
Makefile's ``$(MODEL)`` is a command substitution and its ``MODEL ?= x`` lines are commands, so every value
set in the Makefile is lost. :func:`recipes_script` turns the file into the script its recipes form: the
variables expanded as make expands them, every other line blank, so line numbers stay the Makefile's.

Each recipe line runs in a shell of its own (a subshell here, :func:`_own_shell`), unless ``.ONESHELL:``.
What it does not model: which target the user runs when none is named after the file (every recipe is read,
in file order), the prerequisites a named target runs first, ``make VAR=value`` on the command line, and make
functions other than ``$(shell ...)`` and those of ``_FUNCTIONS`` (the conditionals and a few string
functions, computed): an unknown value, written as a command substitution bash can parse.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from argtrace.layers.shell.file_kinds import is_makefile as is_makefile  # (asked before this is imported)

_ASSIGN = re.compile(
    r"^(?:(export|override)\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(\?=|::=|:::=|:=|\+=|!=|=)(.*)$"
)
_RULE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)(.*)$")
_EXPORT = re.compile(r"^export\s+([A-Za-z_][A-Za-z0-9_ ]*)\s*$")
_INCLUDE = re.compile(r"^-?s?include\s+(.+)$")


@dataclass
class MakeScript:
    """The recipes as one shell script (same line numbers as the Makefile)."""

    data: bytes
    # variables the recipes read that the Makefile does not set, when it includes another file (`-include
    # .env`): make takes them from that file, not read here, so they are unknown, not unset
    included: dict[str, str] = field(default_factory=dict)
    exported: dict[str, str] = field(default_factory=dict)  # `export NAME = value`: in every recipe's env


def _logical(lines: list[str], i: int) -> tuple[str, int]:
    """The line at ``i`` with its backslash continuations joined (make joins them with one blank), and the
    index after it."""
    text = lines[i]
    while text.endswith("\\") and i + 1 < len(lines):
        i += 1
        text = text[:-1].rstrip() + " " + lines[i].lstrip()
    return text, i + 1


def _strip_comment(text: str) -> str:
    return re.sub(r"(?<!\\)#.*$", "", text).rstrip()


class _Vars:
    def __init__(self, env: Mapping[str, str]) -> None:
        self.values: dict[str, str] = {}
        self.env = env
        self.unknown: set[str] = set()  # read, set neither here nor in the environment

    def assign(self, name: str, op: str, value: str) -> None:
        value = value.strip()
        if op == "?=" and (name in self.values or name in self.env):
            return
        if op == "+=" and name in self.values:
            self.values[name] = f"{self.values[name]} {value}"
        elif op in (":=", "::=", ":::="):
            self.values[name] = self.expand(value, "", "", shell=False)
        elif op == "!=":
            self.values[name] = f"$({value})"
        else:
            self.values[name] = value

    def expand(self, text: str, target: str, prereqs: str, *, shell: bool = True, depth: int = 0) -> str:
        """make's expansion of ``text``; in a recipe (``shell``) a variable make does not know is the
        environment's, written for the shell as ``${NAME}``."""
        out: list[str] = []
        i = 0
        while i < len(text):
            c = text[i]
            if c != "$" or i + 1 >= len(text):
                out.append(c)
                i += 1
                continue
            nxt = text[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
                continue
            if nxt in "({":
                close = ")" if nxt == "(" else "}"
                j, level = i + 2, 1
                while j < len(text) and level:
                    level += text[j] == nxt
                    level -= text[j] == close
                    j += 1
                inner = text[i + 2 : j - 1]
                out.append(self._reference(inner, target, prereqs, shell=shell, depth=depth))
                i = j
                continue
            out.append(self._reference(nxt, target, prereqs, shell=shell, depth=depth))
            i += 2
        return "".join(out)

    def _reference(self, inner: str, target: str, prereqs: str, *, shell: bool, depth: int) -> str:
        if inner == "@":
            return target
        if inner in ("<", "^", "?", "+"):
            return prereqs.split()[0] if inner == "<" and prereqs.split() else prereqs
        if inner.startswith("shell "):
            return "$(" + self.expand(inner[6:], target, prereqs, shell=shell, depth=depth + 1) + ")"
        name, _, rest = inner.partition(" ")
        if name in _FUNCTIONS and depth < 20:
            return _call(self, name, rest.lstrip(), target, prereqs, shell=shell, depth=depth + 1)
        if " " in inner or "," in inner or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", inner):
            return _not_computed(inner)
        if inner in self.values and depth < 20:
            return self.expand(self.values[inner], target, prereqs, shell=shell, depth=depth + 1)
        if inner in self.env:
            return self.env[inner]
        self.unknown.add(inner)
        return "${" + inner + "}" if shell else ""


# GNU make's functions computed here ("Functions for Conditionals", "Functions for String Substitution and
# Analysis"): their arguments are split at the commas outside parentheses, as make splits them
_FUNCTIONS = frozenset({"if", "or", "and", "strip", "subst", "firstword", "lastword", "words"})


def _not_computed(call: str) -> str:
    """A make function not computed here: an unknown value, written as a command substitution bash can parse
    (the function's own text, `$(if A,B,C)`, is no shell code)."""
    return "$(make-function '" + call.replace("'", "'\\''") + "')"


def _arguments(text: str) -> list[str]:
    out, level, start = [], 0, 0
    for k, c in enumerate(text):
        level += c in "({"
        level -= c in ")}"
        if c == "," and level == 0:
            out.append(text[start:k])
            start = k + 1
    out.append(text[start:])
    return out


def _call(self: _Vars, name: str, args: str, target: str, prereqs: str, *, shell: bool, depth: int) -> str:
    """The value of ``$(name args)``: a condition is make's own value of it (a variable neither in the
    Makefile nor in the environment argtrace was given is empty, as make reads it); the branch taken is
    expanded as the recipe reads it."""
    parts = _arguments(args)
    # what decides the value holds a value not computed here (`$(shell ...)`, another function, a recipe's
    # environment variable): so does the call
    unknown = _not_computed(f"{name} {args}")

    def value(k: int, *, in_shell: bool = False) -> str:
        if k >= len(parts):
            return ""
        return self.expand(parts[k], target, prereqs, shell=in_shell and shell, depth=depth)

    if name in ("if", "or", "and"):
        conditions = [value(k) for k in range(1 if name == "if" else len(parts))]
        if any("$" in c for c in conditions):
            return unknown
        if name == "if":
            return value(1, in_shell=True) if conditions[0].strip() else value(2, in_shell=True)
        if name == "or":
            return next((value(k, in_shell=True) for k, c in enumerate(conditions) if c.strip()), "")
        return value(len(parts) - 1, in_shell=True) if all(c.strip() for c in conditions) else ""
    texts = [value(k, in_shell=True) for k in range(len(parts))]
    if any("$" in t for t in texts):
        return unknown
    if name == "subst" and len(texts) >= 3:
        return texts[2].replace(texts[0], texts[1])
    words = texts[0].split()
    if name == "strip":
        return " ".join(words)
    if name == "words":
        return str(len(words))
    if name == "firstword":
        return words[0] if words else ""
    return words[-1] if words else ""  # lastword


def _own_shell(out: list[str], first: int, last: int) -> None:
    """Recipe line ``out[first..last]`` in a shell of its own, as make runs each (GNU make manual, "Recipe
    Execution": "each line of the recipe is run in a new sub-shell"): a subshell, so a ``cd`` or variable of
    one line does not reach the next (`cd cluster/head && ...` then `cd nemotron && bash launch.sh` of another
    target). Its leading blank (the tab) becomes ``(`` and ``)`` ends its last line, so lines and columns stay
    the Makefile's; a line whose end may be a comment's (a ``#``) or a continuation is left as it is."""
    if not out[first].startswith(" ") or "#" in out[last] or out[last].endswith("\\"):
        return
    out[first] = "(" + out[first][1:]
    out[last] += ")"


def recipes_script(data: bytes, env: Mapping[str, str], goals: Sequence[str] = ()) -> MakeScript:
    """The script a Makefile's recipes form (module docstring); ``goals``: the targets named after the file
    (`argtrace check Makefile serve`, as `make serve`): only their recipes, else every target's."""
    lines = data.decode("utf-8", "replace").split("\n")
    out = [""] * len(lines)
    variables = _Vars(env)
    exported: list[str] = []
    includes = False
    # first pass: the variables (make reads the whole file before it runs a recipe)
    i = 0
    while i < len(lines):
        if lines[i].startswith("\t"):
            i += 1
            continue
        text, after = _logical(lines, i)
        text = _strip_comment(text)
        assign = _ASSIGN.match(text)
        if assign:
            export, name, op, value = assign.groups()
            variables.assign(name, op, value)
            if export == "export":
                exported.append(name)
        elif (m := _EXPORT.match(text)) is not None:
            exported.extend(m.group(1).split())
        elif _INCLUDE.match(text):
            includes = True
        i = after
    # `.ONESHELL:` runs each recipe in one shell (GNU make manual, "Using One Shell")
    one_shell = any(re.match(r"\.ONESHELL\s*:", line) for line in lines)
    # second pass: each recipe line at its own line number, expanded as make expands it
    target = prereqs = ""
    in_rule = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("\t") and in_rule and (not goals or target in goals):
            first = True
            start = i
            while True:
                # the tab becomes a blank and so do the @-+ prefixes: the columns stay the Makefile's
                body = " " + lines[i][1:] if lines[i].startswith("\t") else lines[i]
                if first:
                    rest = body.lstrip(" @-+")
                    body = " " * (len(body) - len(rest)) + rest
                out[i] = variables.expand(body, target, prereqs)
                first = False
                if not lines[i].endswith("\\") or i + 1 >= len(lines):
                    break
                i += 1
            if not one_shell:
                _own_shell(out, start, i)
            i += 1
            continue
        text, after = _logical(lines, i)
        text = _strip_comment(text)
        rule = None if _ASSIGN.match(text) else _RULE.match(text)
        if rule:
            target, prereqs = rule.group(1).strip(), rule.group(2).split(";")[0].strip()
            in_rule = not target.startswith(".")
        elif text:
            in_rule = False
        i = after
    script = "\n".join(out)
    export_values = {
        name: variables.expand(variables.values[name], "", "", shell=False)
        for name in exported
        if name in variables.values
    }
    included = (
        dict.fromkeys(
            sorted(variables.unknown), "set by a file the Makefile includes, not read here (value unknown)"
        )
        if includes
        else {}
    )
    return MakeScript(script.encode(), included, export_values)
