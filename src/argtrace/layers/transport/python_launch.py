"""A Python program (or Jupyter notebook) as a launch carrier: the server commands its calls start, read
statically with ``ast`` (the file is never imported or run).

This module owns finding the calls that start a server and writing each as the shell command it amounts
to, on the call's own line, so that the shell layer, the transport layer and the parser read it like any
script's command (``FILE:LINE`` points into the ``.py``/``.ipynb``). What each call does, from the
libraries' own code:

- ``subprocess.Popen/run/call/check_call/check_output(ARGS, shell=..., env=...)``, ``os.execv*``,
  ``asyncio.create_subprocess_exec``: a list is the argv itself (each item a word, quoted so the shell
  gives the same words back); every item must be a string (``TypeError: expected str, bytes or
  os.PathLike object, not int``: TP097); a string without ``shell=True`` is the program's name, spaces and
  all (``FileNotFoundError``: TP097). ``Popen`` does not wait (the command runs in the background, ``&``).
  ``env=`` a literal dict is the command's environment (``{**os.environ, ...}`` adds to the caller's).
- A string with ``shell=True``, ``os.system``, ``os.popen``, ``asyncio.create_subprocess_shell``,
  ``subprocess.getoutput``, a notebook's ``!cmd`` line or ``%%bash`` cell: ``/bin/sh -c TEXT``, so the
  text goes through the shell layer as written.
- SGLang's ``launch_server_cmd(COMMAND, host, port)`` (``sglang/utils.py``, 0.5.x): appends ``--port
  PORT`` (a free port it reserves when none is given) and runs ``execute_shell_command``, which is no
  shell: it replaces ``\\<newline>`` and ``\\`` by blanks, splits at whitespace (quotes are not read),
  takes leading ``KEY=VALUE`` words as the environment and ``Popen``s the rest.
- SGLang's ``popen_launch_server(model, base_url, timeout, api_key=None, other_args=...)``
  (``sglang/test/test_utils.py``): ``python3 -m sglang.launch_server --model-path MODEL *other_args
  --host HOST --port PORT [--api-key KEY]`` (its ``--device`` detected at run time is not added).
- SGLang's ``prepare_server_args(ARGV)`` (``sglang/srt/server_args.py``) parses a list of words with the
  server's parser, as ``python -m sglang.launch_server ARGV`` does before ``launch_server(server_args)``:
  the list is that command's arguments.
- ``sglang.Engine(**kwargs)`` builds ``ServerArgs(**kwargs)``; vLLM's ``LLM(model, ...)`` hands its
  parameters and ``**kwargs`` to ``EngineArgs``; ``EngineArgs``/``AsyncEngineArgs``/``ServerArgs``
  are dataclasses whose fields are the ``--field-name`` flags (``add_cli_args``). Each keyword is written as
  the flag the bundled schema gives its field (the parser's dests, renamed as ``from_cli_args`` renames
  them), so the parser checks it; a keyword that is no field of the class in the release read
  (``data/python_launch.json``, ``scripts/gen_python_launch.py``) nor of any bundled release is Python's
  ``TypeError`` (TP096); ``LLM``'s own parameters that are not ``EngineArgs`` fields are not server flags.

A value that is not a literal (a variable set by code, an f-string's field, ``os.environ[...]``, a call)
becomes a word of the variable ``PY_...`` whose value is unknown, with what it rests on (TP094); a call
whose command or keywords cannot be read at all is TP095. Not read: code that builds the call's arguments
in loops, functions' return values, imports from other files, ``multiprocessing`` targets, Ray actors,
``%run`` and other IPython magics, IPython's ``{var}``/``$var`` expansion in ``!`` lines.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from argtrace.layers.transport.python_source import PythonCode, python_code
from argtrace.layers.transport.python_values import Unknown, Values
from argtrace.model import Evidence, Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.transport.python_fields import KeywordWords

_SUBPROCESS = {"Popen", "run", "call", "check_call", "check_output"}
# a Modal image's package installs (modal.Image methods): the framework pinned there is the release run
_IMAGE_INSTALLS = ("pip_install", "uv_pip_install")
_FRAMEWORK_PIN = re.compile(r"(?i)^(sglang|vllm)(\[[^\]]*\])?===?\d")
_SHELL_FUNCS = {
    "os.system",
    "os.popen",
    "asyncio.create_subprocess_shell",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
}
_EXEC_FUNCS = {"os.execv", "os.execvp", "os.execve", "os.execvpe"}
_VLLM_CLASSES = {"LLM", "EngineArgs", "AsyncEngineArgs"}
_SGLANG_CLASSES = {"Engine", "ServerArgs", "Runtime"}
_ENTRY = {"sglang": ["python3", "-m", "sglang.launch_server"], "vllm": ["vllm", "serve"]}
# The same server started in the program's own interpreter, when the script names it: the release is the
# one installed there (vLLM's console script `vllm` is `vllm.entrypoints.cli.main:main`, its pyproject's
# [project.scripts]); `vllm serve` would be looked up on PATH instead, and PR007 said `vllm` is not found.
_IN_PROCESS = {"sglang": ["-m", "sglang.launch_server"], "vllm": ["-m", "vllm.entrypoints.cli.main", "serve"]}
_TOKEN = re.compile(r"\x00(\d+)\x00")


def _without_values(text: str) -> str:
    """An expression's source with the string literals that may be values left out: kept are a flag
    (``'--port'``) and a key or a call's first argument (``os.environ['PORT']``, ``getenv("PORT")``). A value
    may be a secret (a list ``['--api-key', 'sk-...']`` grown under an ``if``), and a variable named after
    it, cut at 40 characters, showed its head where no whole value is masked (the fuzzers of session 29)."""

    def keep(m: re.Match[str]) -> str:
        if re.match(r"\w{0,2}['\"]-", m[0]) or re.search(
            r"[\w\])][\[(]\s*$", text[max(0, m.start() - 8) : m.start()]
        ):
            return m[0]
        return "_"

    return _STRING_LITERAL.sub(keep, text)


# a Python string literal (a prefix, then single, double or triple quotes) in an expression's source text
_STRING_LITERAL = re.compile(
    r"""(?i:[rbuf]{0,2})(?:'{3}[\s\S]*?'{3}|"{3}[\s\S]*?"{3}|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
)


@dataclass
class PythonLaunch:
    """The shell text the calls amount to (each on its call's line), the variables standing for values
    not known statically (name -> why), the transport findings and one entry per call read."""

    script: bytes
    unknown: dict[str, str] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    notebook: bool = False
    # the one registry image a Modal app's image is built from (`modal.Image.from_registry(REF)`): the
    # servers it starts run in it, so its tag is the release's evidence as a container's image is
    image: str | None = None

    @property
    def section(self) -> dict[str, Any]:
        return {"python": {"notebook": self.notebook, "calls": self.calls}}


def read_python_launch(
    label: str,
    data: bytes,
    *,
    release: str | None = None,
    shell_reads: bool = False,
    interpreter: str | None = None,
    argv: Sequence[str] | None = None,
) -> PythonLaunch:
    """The server starts of the Python program or notebook ``data``.

    ``shell_reads``: the program is run by a shell script argtrace reads (``python3 serve.py A``), whose
    environment and arguments are the program's: its ``os.environ[...]``, ``os.getenv(...)`` and
    ``sys.argv[N]`` reads are written as the shell expansions that give the same value (``${NAME}``,
    ``${NAME-default}``, ``${N}``) for the script's evaluator to fill, and a ``Popen`` start is written
    without ``&``: the program, not the shell, holds the process (layers/shell/pythonfile.py). ``argv``:
    the program's own words when the script gives them all, read by its argparse parser
    (python_argparse.py)."""
    from argtrace.model import UsageError

    code = python_code(label, data)
    try:
        tree = ast.parse(code.text, filename=label)
    except SyntaxError as exc:
        raise UsageError(
            f"{label}:{exc.lineno}: Python cannot parse this file ({exc.msg}): argtrace reads a Python "
            "launch with Python's own parser, so nothing in it was checked"
        ) from exc
    except (RecursionError, MemoryError, ValueError) as exc:
        raise UsageError(f"{label}: Python cannot parse this file ({type(exc).__name__})") from None
    reader = _Reader(label, tree, code, release, shell_reads, interpreter, argv)
    try:
        reader.read()
    except RecursionError:  # an expression nested deeper than Python's own stack: no launch reads so
        raise UsageError(f"{label}: an expression nested too deeply for argtrace to read") from None
    return reader.launch()


class _Reader:
    def __init__(
        self,
        label: str,
        tree: ast.Module,
        code: PythonCode,
        release: str | None,
        shell_reads: bool = False,
        interpreter: str | None = None,
        argv: Sequence[str] | None = None,
    ) -> None:
        self.label = label
        self.shell_reads = shell_reads
        # a program that changes its own environment (`load_dotenv()`, `os.environ[...] = ...`) reads what
        # the script did not give it: its environment reads stay the program's unknowns
        self.env_reads = shell_reads and not changes_environment(tree)
        # the interpreter the script runs the program with (`python3`, `/opt/venv/bin/python`): its
        # `sys.executable`, as the shell finds that word
        self.interpreter = interpreter
        self.tree = tree
        self.code = code
        self.release = release
        arguments = None
        if argv is not None:  # argparse only for a program whose words the script gives
            from argtrace.layers.transport.python_argparse import ProgramArguments

            arguments = ProgramArguments(argv)
        self.values = Values(tree, arguments)
        self.imports = _imports(tree)
        self.commands: list[tuple[int, int, str]] = []
        self.unknown: dict[str, str] = {}
        self.findings: list[Finding] = []
        self.calls: list[dict[str, Any]] = []
        self.nested: set[int] = set()  # ServerArgs(...) handed to Engine(server_args=...): read once
        self.said: set[tuple[str, int]] = set()  # the unknown values TP094 has named
        self.images: set[str] = set()  # `modal.Image.from_registry(...)` references

    # -- the calls --------------------------------------------------------------------------------------

    def read(self) -> None:
        for line, column, text in self.code.shell:
            self.commands.append((line, column, text))
            self.calls.append({"at": f"{self.label}:{line}", "call": "IPython shell escape", "shell": text})
        calls = sorted(
            (n for n in ast.walk(self.tree) if isinstance(n, ast.Call)),
            key=lambda n: (n.lineno, n.col_offset),
        )
        for call in calls:
            if id(call) in self.nested:
                continue
            if isinstance(call.func, ast.Attribute) and call.func.attr in _IMAGE_INSTALLS:
                self._image_install(call)
                continue
            if isinstance(call.func, ast.Attribute) and call.func.attr == "from_registry" and call.args:
                ref = self.values.value(call.args[0], call.lineno)
                if isinstance(ref, str):
                    self.images.add(ref)
                continue
            name = self._dotted(call.func)
            if name is None:
                continue
            self._call(call, name)

    def _image_install(self, call: ast.Call) -> None:
        """A Modal image's ``.pip_install("vllm==0.13.0", ...)``/``.uv_pip_install(...)``: the packages the
        server's image is built with, written as the ``pip install`` it runs, so a pinned framework is the
        release's evidence as a script's pip line is (``frameworks/release.py``); only a pin of SGLang or
        vLLM is written, nothing else of the image is a command of the launch."""
        words: list[str] = []
        for arg in call.args:
            value = self.values.value(arg, call.lineno)
            for item in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(item, str):
                    words.append(item)
        pins = [w for w in words if _FRAMEWORK_PIN.match(w)]
        if pins:
            method = call.func.attr if isinstance(call.func, ast.Attribute) else "pip_install"
            self._command(call, method, "pip install " + " ".join(shlex.quote(w) for w in pins), False)

    def _call(self, call: ast.Call, name: str) -> None:
        last = name.rsplit(".", 1)[-1]
        if name.startswith("subprocess.") and last in _SUBPROCESS:
            self._subprocess(call, name)
        elif name in _SHELL_FUNCS:
            self._shell_string(call, name, self._arg(call, 0, "cmd"), background=name.endswith("popen"))
        elif name in _EXEC_FUNCS:
            self._argv_call(call, name, self._arg(call, 1, "args"), background=False)
        elif name == "asyncio.create_subprocess_exec":
            self._exec_varargs(call, name)
        elif last == "launch_server_cmd":
            self._launch_server_cmd(call, name)
        elif last == "popen_launch_server":
            self._popen_launch_server(call, name)
        elif name.startswith("sglang") and last == "prepare_server_args":
            self._prepare_server_args(call, name)
        elif name.startswith("sglang") and last in _SGLANG_CLASSES:
            self._engine(call, name, "sglang", last)
        elif name.startswith("vllm") and last in _VLLM_CLASSES:
            self._engine(call, name, "vllm", last)

    def _dotted(self, func: ast.AST) -> str | None:
        """``sgl.Engine`` -> ``sglang.Engine`` through the file's imports; None for other expressions."""
        parts: list[str] = []
        while isinstance(func, ast.Attribute):
            parts.append(func.attr)
            func = func.value
        if not isinstance(func, ast.Name):
            return None
        base = self.imports.get(func.id)
        if base is None:
            # a bare name the file does not import: only the SGLang helpers, whose names are their own
            return func.id if func.id in ("launch_server_cmd", "popen_launch_server") and not parts else None
        return ".".join([base, *reversed(parts)])

    @staticmethod
    def _arg(call: ast.Call, index: int, keyword: str) -> ast.AST | None:
        if len(call.args) > index and not any(isinstance(a, ast.Starred) for a in call.args[: index + 1]):
            return call.args[index]
        return next((k.value for k in call.keywords if k.arg == keyword), None)

    def _at(self, node: ast.AST) -> str:
        return f"{self.label}:{getattr(node, 'lineno', 0)}:{getattr(node, 'col_offset', 0) + 1}"

    # -- subprocess and friends -------------------------------------------------------------------------

    def _subprocess(self, call: ast.Call, name: str) -> None:
        args = self._arg(call, 0, "args")
        shell = next((k.value for k in call.keywords if k.arg == "shell"), None)
        shell_value = self.values.value(shell) if shell is not None else False
        background = name.endswith("Popen")
        if args is None:
            return
        value = self.values.value(args)
        if shell_value is True or isinstance(shell_value, Unknown):
            if isinstance(value, (list, tuple)) and value:
                # POSIX: with shell=True a list's first item is the command, the rest the shell's $0, $1...
                self._shell_string(
                    call, name, args.elts[0] if isinstance(args, ast.List) else args, background
                )
            else:
                self._shell_string(call, name, args, background)
            return
        if isinstance(value, str):
            if not _starts_server(value.split()):
                return
            from argtrace.rules.pylaunch import TP097

            self._finding(
                TP097.finding(
                    f"{name}() is given the command as one string without shell=True: Python runs the "
                    "program "
                    f"named by the whole string ({value[:60]!r}...), spaces included, and raises "
                    "FileNotFoundError, so no server starts",
                    at=self._at(args),
                    evidence=[Evidence("transport", self._at(args), ast.unparse(args)[:200])],
                    fix="Pass the words as a list (`shlex.split(...)`), or add shell=True to run the string "
                    "with /bin/sh",
                )
            )
            return
        self._argv_call(call, name, args, background=background)

    def _exec_varargs(self, call: ast.Call, name: str) -> None:
        self._argv_call(call, name, ast.List(elts=list(call.args), ctx=ast.Load()), background=True)

    def _argv_call(self, call: ast.Call, name: str, args: ast.AST | None, *, background: bool) -> None:
        if args is None:
            return
        value = self.values.value(args, call.lineno)
        if isinstance(value, Unknown):
            if _mentions_server(args, self.values, call.lineno):
                self._not_read(call, f"the command of {name}() is `{value.text}`: {value.why}")
            return
        if not isinstance(value, (list, tuple)):
            return
        words = list(value)
        if not _starts_server([w for w in words if isinstance(w, str)]):
            return
        bad = [w for w in words if not isinstance(w, (str, bytes, Unknown))]
        if bad:
            from argtrace.rules.pylaunch import TP097

            shown = ", ".join(repr(b) for b in bad[:3])
            self._finding(
                TP097.finding(
                    f"{name}() is given argv items that are not strings ({shown}): Python raises `TypeError: "
                    f"expected str, bytes or os.PathLike object, not {type(bad[0]).__name__}` before the "
                    "server starts",
                    at=self._at(args),
                    evidence=[Evidence("transport", self._at(args), ast.unparse(args)[:200])],
                    fix=f"Write each item as a string: {', '.join(repr(str(b)) for b in bad[:3])}",
                )
            )
        env = self._env(call)
        text = " ".join([*env, *(self._word(w, call.lineno) for w in words)])
        self._command(call, name, text, background)

    def _env(self, call: ast.Call) -> list[str]:
        node = next((k.value for k in call.keywords if k.arg == "env"), None)
        if node is None:
            return []
        value = self.values.value(node, call.lineno)
        if not isinstance(value, dict):
            return []
        return [
            f"{key}={self._word(item if isinstance(item, (str, Unknown)) else str(item), call.lineno)}"
            for key, item in value.items()
            if isinstance(key, str) and re.fullmatch(r"[A-Za-z_]\w*", key)
        ]

    def _shell_string(self, call: ast.Call, name: str, node: ast.AST | None, background: bool) -> None:
        if node is None:
            return
        text = self._text(node, call.lineno)
        if text is None:
            if _mentions_server(node, self.values, call.lineno):
                self._not_read(
                    call, f"the command of {name}() is `{ast.unparse(node)[:80]}`, built when it runs"
                )
            return
        if not ("sglang" in text or "vllm" in text or "docker" in text or "ssh" in text):
            return
        self._command(call, name, text, background, node=node)

    def _text(self, node: ast.AST, line: int, depth: int = 0) -> str | None:
        """A string expression as shell text, its unknown parts as ``${PY_...}``; None for no string."""
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    parts.append(str(part.value))
                elif isinstance(part, ast.FormattedValue):
                    inner = self.values.value(part.value, line)
                    if (
                        isinstance(inner, (str, int, float))
                        and not isinstance(inner, bool)
                        and part.format_spec is None
                    ):
                        parts.append(str(inner))
                    else:
                        why = (
                            inner
                            if isinstance(inner, Unknown)
                            else Unknown(
                                ast.unparse(part.value),
                                "an f-string field known only when the program runs",
                                line,
                            )
                        )
                        parts.append("${" + self._placeholder(why) + "}")
            return "".join(parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self._text(node.left, line, depth + 1), self._text(node.right, line, depth + 1)
            return None if left is None or right is None else left + right
        joined = self._joined(node, line)
        if joined is not None:
            return joined
        value = self.values.value(node, line)
        if isinstance(value, str):
            return value
        if isinstance(value, Unknown) and isinstance(node, ast.Name) and depth < 8:
            # `cmd = f"... --model-path {model} ..."` with `model` read from the environment: the name's one
            # expression as text, its unknown fields as ``${PY_...}``
            written = self.values.only_expression(node.id, line)
            if written is not None:
                return self._text(written[1], written[0], depth + 1)
        return None

    def _joined(self, node: ast.AST, line: int) -> str | None:
        """``SEP.join(WORDS)`` of a list the file builds, some of its words known only when the program
        runs (a Modal app's `HF_HUB_OFFLINE={...}` word, words added under an `if` of an environment
        variable): the known words as written and each unknown one as ``${PY_...}``, unquoted as the
        joined text leaves it (an f-string word keeps its known text around the field); None when it is
        not such a join or no word is unknown (the plain value reads it)."""
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "join"
            and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str)
            and len(node.args) == 1
            and not node.keywords
        ):
            return None
        items = self.values.value(node.args[0], line)
        if not isinstance(items, (list, tuple)) or not any(isinstance(i, Unknown) for i in items):
            return None
        words: list[str] = []
        for item in items:
            if isinstance(item, Unknown):
                try:
                    written = ast.parse(item.text, mode="eval").body
                except SyntaxError:
                    written = None
                text = self._text(written, item.line) if isinstance(written, ast.JoinedStr) else None
                words.append(text if text is not None else "${" + self._placeholder(item) + "}")
            elif isinstance(item, (str, int, float)) and not isinstance(item, bool):
                words.append(str(item))
            else:
                return None
        return node.func.value.value.join(words)

    def _entry(self, framework: str) -> list[str]:
        """The command words of a server this program runs in its own process (``LLM(...)``,
        ``Engine(...)``, ``prepare_server_args``): its interpreter's, when the script that runs the program
        names it."""
        if self.interpreter:
            return [self.interpreter, *_IN_PROCESS[framework]]
        return list(_ENTRY[framework])

    # -- SGLang's helpers -------------------------------------------------------------------------------

    def _prepare_server_args(self, call: ast.Call, name: str) -> None:
        """``prepare_server_args(ARGV)`` parses ARGV with the server's own parser: what
        ``python -m sglang.launch_server ARGV`` does before it starts the server (sglang/launch_server.py:
        ``server_args = prepare_server_args(sys.argv[1:])``, then ``launch_server(server_args)``)."""
        node = self._arg(call, 0, "argv")
        value = self.values.value(node, call.lineno) if node is not None else None
        if not isinstance(value, (list, tuple)) or not all(isinstance(w, (str, Unknown)) for w in value):
            return  # sys.argv[1:] or a value built when it runs: the program's own arguments, not read here
        words = [self._word(w, call.lineno) for w in value]
        self._command(call, name, " ".join([*self._entry("sglang"), *words]), False)

    def _launch_server_cmd(self, call: ast.Call, name: str) -> None:
        node = self._arg(call, 0, "command")
        if node is None:
            return
        tokens: list[Unknown] = []
        text = self._tokens(node, call.lineno, tokens)
        if text is None:
            self._not_read(call, f"the command of {name}() is `{ast.unparse(node)[:80]}`, built when it runs")
            return
        port_node = self._arg(call, 2, "port")
        port = self.values.value(port_node, call.lineno) if port_node is not None else None
        if port is None:
            port = Unknown("port", "the free port launch_server_cmd reserves when it runs", call.lineno)
        if isinstance(port, Unknown):
            tokens.append(port)
            port_text = f"\x00{len(tokens) - 1}\x00"
        else:
            port_text = str(port)
        # sglang/utils.py execute_shell_command: no shell; blanks for `\<newline>` and `\`, then str.split()
        full = f"{text} --port {port_text}".replace("\\\n", " ").replace("\\", " ")
        parts = full.split()
        env: list[str] = []
        while parts and "=" in parts[0] and not parts[0].startswith(("-", "/")):
            key, _, value = parts[0].partition("=")
            if not (key and key.replace("_", "").isalnum()):
                break
            env.append(f"{key}={self._token_word(value, tokens)}")
            parts.pop(0)
        words = [self._token_word(p, tokens) for p in parts]
        self._command(call, name, " ".join([*env, *words]), background=True)

    def _tokens(self, node: ast.AST, line: int, tokens: list[Unknown]) -> str | None:
        if isinstance(node, ast.JoinedStr):
            out = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out.append(str(part.value))
                    continue
                assert isinstance(part, ast.FormattedValue)
                inner = self.values.value(part.value, line)
                if (
                    isinstance(inner, (str, int, float))
                    and not isinstance(inner, bool)
                    and part.format_spec is None
                ):
                    out.append(str(inner))
                    continue
                tokens.append(
                    inner
                    if isinstance(inner, Unknown)
                    else Unknown(
                        ast.unparse(part.value), "an f-string field known only when the program runs", line
                    )
                )
                out.append(f"\x00{len(tokens) - 1}\x00")
            return "".join(out)
        value = self.values.value(node, line)
        return value if isinstance(value, str) else None

    def _token_word(self, part: str, tokens: list[Unknown]) -> str:
        pieces = _TOKEN.split(part)
        if len(pieces) == 1:
            return shlex.quote(part)
        out = []
        for i, piece in enumerate(pieces):
            if i % 2:
                out.append("${" + self._placeholder(tokens[int(piece)]) + "}")
            elif piece:
                out.append(
                    piece.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
                )
        return '"' + "".join(out) + '"'

    def _popen_launch_server(self, call: ast.Call, name: str) -> None:
        model = self.values.value(self._arg(call, 0, "model"), call.lineno)
        base_url = self.values.value(self._arg(call, 1, "base_url"), call.lineno)
        other_node = self._arg(call, 4, "other_args")
        other = self.values.value(other_node, call.lineno) if other_node is not None else []
        api_key_node = self._arg(call, 3, "api_key")
        api_key = self.values.value(api_key_node, call.lineno) if api_key_node is not None else None
        words: list[Any] = ["python3", "-m", "sglang.launch_server", "--model-path", model]
        if isinstance(other, (list, tuple)):
            # popen_launch_server: `*[str(x) for x in other_args]`
            words += [w if isinstance(w, Unknown) else str(w) for w in other]
        elif other is not None:
            text = other.text if isinstance(other, Unknown) else ast.unparse(other_node) if other_node else ""
            words.append(
                Unknown(
                    text, other.why if isinstance(other, Unknown) else "not a list", call.lineno, many=True
                )
            )
        if isinstance(base_url, str) and base_url.count(":") == 2:
            _scheme, host, port = base_url.split(":")
            words += ["--host", host[2:], "--port", port]
        else:
            why = (
                base_url
                if isinstance(base_url, Unknown)
                else Unknown("base_url", "not a literal URL", call.lineno)
            )
            # host and port both come from the one URL: one unknown value, one TP094
            words += ["--host", Unknown(why.text, why.why, call.lineno)]
            words += ["--port", Unknown(why.text, why.why, call.lineno)]
        if api_key:
            words += ["--api-key", api_key]
        env = self._env(call)
        text = " ".join([*env, *(self._word(w, call.lineno) for w in words)])
        self._command(call, name, text, background=True)

    # -- Python classes whose fields are flags ----------------------------------------------------------

    def _engine(self, call: ast.Call, name: str, framework: str, cls: str) -> None:
        from argtrace.layers.transport.python_fields import keyword_words

        for keyword in call.keywords:
            if keyword.arg == "server_args" and isinstance(keyword.value, ast.Call):
                return  # Engine(server_args=ServerArgs(...)): the inner call is read on its own
        for keyword in call.keywords:
            if isinstance(keyword.value, ast.Call):
                inner = self._dotted(keyword.value.func)
                if inner is not None and inner.rsplit(".", 1)[-1] in ("ServerArgs", "EngineArgs"):
                    self.nested.add(id(keyword.value))
        entry = self._entry(framework)
        words: list[str] = [shlex.quote(w) for w in entry]
        pairs: list[tuple[str, Any, ast.AST]] = []
        if call.args:
            first = "model" if framework == "vllm" else "model_path"
            if isinstance(call.args[0], ast.Starred):
                self._not_read(call, f"{name}() takes `{ast.unparse(call.args[0])}` as positional arguments")
                return
            pairs.append((first, self.values.value(call.args[0], call.lineno), call.args[0]))
        for keyword in call.keywords:
            if keyword.arg is None:
                spread = self.values.value(keyword.value, call.lineno)
                if not isinstance(spread, dict):
                    why = spread.why if isinstance(spread, Unknown) else "not a dict"
                    self._not_read(
                        call, f"{name}() takes its keywords from `**{ast.unparse(keyword.value)}` ({why})"
                    )
                    return
                pairs += [(str(k), v, keyword.value) for k, v in spread.items()]
            else:
                pairs.append((keyword.arg, self.values.value(keyword.value, call.lineno), keyword.value))
        read: dict[str, Any] = {"at": self._at(call), "call": name, "keywords": [], "not_flags": []}
        for key, value, node in pairs:
            result = keyword_words(framework, cls, key, value, self.release, named=self.release is not None)
            if result.refused is not None:
                from argtrace.rules.pylaunch import TP096

                self._finding(
                    TP096.finding(
                        f"{name}() is given the keyword `{key}`: {result.refused}",
                        at=self._at(node) if hasattr(node, "lineno") else self._at(call),
                        evidence=[Evidence("transport", self._at(call), f"{key}={ast.unparse(node)[:120]}")],
                        fix=result.fix,
                        basis="schema",
                        severity="warning" if result.severity == "warning" else "error",
                    )
                )
                continue
            if result.not_flag:
                read["not_flags"].append(key)
                continue
            read["keywords"].append(key)
            if result.string_for_sequence:
                self._string_for_sequence(call, name, cls, key, node, result)
            if framework == "vllm" and key == "model" and result.words:
                # `vllm serve MODEL`: the model is the positional (`--model` is refused from vLLM 0.9 on,
                # vllm#17944)
                words.insert(len(entry), self._word(result.words[1], call.lineno))
                continue
            for word in result.words:
                words.append(self._word(word, call.lineno))
        # Engine runs in this process: nothing else runs until it returns (not a background start)
        self._command(call, name, " ".join(words), background=False, read=read)

    def _string_for_sequence(
        self,
        call: ast.Call,
        name: str,
        cls: str,
        key: str,
        node: ast.AST,
        words: KeywordWords,
    ) -> None:
        """PA053: a bare string for a field the class annotates as a sequence of values."""
        from argtrace.layers.transport.python_fields import class_of
        from argtrace.rules.pylaunch import PA053

        flag, value = str(words.words[0]), words.value
        items = ", ".join(repr(c) for c in value[:4]) + (", ..." if len(value) > 4 else "")
        at = self._at(node) if hasattr(node, "lineno") else self._at(call)
        self._finding(
            PA053.finding(
                f"{name}() is given {key}={value!r}, a string, where {class_of(cls)}.{key} is annotated as a "
                f"sequence of values: the class keeps the string as given (no argparse runs, nothing splits "
                f"it), so the release's code that iterates {key} sees its characters ({items}), not the "
                f"values {words.as_list} that `{flag} {value}` gives on the command line",
                at=at,
                evidence=[Evidence("transport", at, f"{key}={ast.unparse(node)[:120]}")],
                basis="framework-code",
                fix=f"Write {key}=[...]: a list, one item per value (as {flag} takes them)"
                + (
                    f"; {value!r} itself is not one of {flag}'s values (PA009 lists them)"
                    if words.not_a_choice
                    else f": {words.as_list}"
                ),
            )
        )

    # -- writing the shell command ----------------------------------------------------------------------

    def _word(self, word: Any, line: int) -> str:
        if isinstance(word, Unknown) and word.text == "sys.executable" and self.interpreter:
            return shlex.quote(self.interpreter)
        if isinstance(word, Unknown):
            return '"${' + self._placeholder(word) + '}"'
        if isinstance(word, bytes):
            word = word.decode("utf-8", "replace")
        return shlex.quote(str(word))

    def _placeholder(self, unknown: Unknown) -> str:
        """The inside of the ``${...}`` that stands for ``unknown`` in the shell text."""
        if self.shell_reads and (expansion := shell_expansion(unknown.text)) is not None:
            if self.env_reads or expansion[0] in "@0123456789":
                return expansion
        base = re.sub(r"\W+", "_", _without_values(unknown.text)).strip("_")[:40] or "value"
        name = f"PY_{base}"
        why = f"{unknown.why} (the Python value `{unknown.text}`, {self.label}:{unknown.line})"
        if name in self.unknown and self.unknown[name] != why:
            name = f"{name}_{len(self.unknown)}"
        self.unknown[name] = why
        if (unknown.text, unknown.line) not in self.said:  # one value, one TP094 (host and port of one URL)
            self.said.add((unknown.text, unknown.line))
            from argtrace.rules.pylaunch import TP094

            at = f"{self.label}:{unknown.line}"
            self._finding(
                TP094.finding(
                    f"`{unknown.text}` in a Python launch is not known before the program runs: "
                    f"{unknown.why}; "
                    "the server's words made from it are not checked",
                    at=at,
                    evidence=[Evidence("transport", at, unknown.text[:200])],
                )
            )
        return name

    def _command(
        self,
        call: ast.Call,
        name: str,
        text: str,
        background: bool,
        node: ast.AST | None = None,
        read: dict[str, Any] | None = None,
    ) -> None:
        line = call.lineno
        column = getattr(node or call, "col_offset", 0) + (1 if node is not None else 0)
        shell_job = background and not self.shell_reads  # under a shell script the program holds the Popen
        self.commands.append((line, column, text + (" &" if shell_job else "")))
        entry = read or {"at": self._at(call), "call": name}
        entry["shell"] = text
        self.calls.append(entry)

    def _not_read(self, call: ast.Call, message: str) -> None:
        from argtrace.rules.pylaunch import TP095

        self._finding(
            TP095.finding(
                f"{message}: argtrace cannot read what it starts, so a server it starts is not checked",
                at=self._at(call),
                evidence=[Evidence("transport", self._at(call), ast.unparse(call)[:200])],
            )
        )
        self.calls.append({"at": self._at(call), "call": ast.unparse(call.func), "not_read": message})

    def _finding(self, finding: Finding) -> None:
        self.findings.append(finding)

    # -- the result -------------------------------------------------------------------------------------

    def launch(self) -> PythonLaunch:
        lines: dict[int, str] = {}
        for line, column, text in sorted(self.commands, key=lambda c: (c[0], c[1])):
            target = line
            while target in lines:
                target += 1
            pieces = text.split("\n")
            # a multi-line command keeps its lines; one moved off its own line loses its column
            first = (" " * column if target == line else "") + pieces[0]
            for offset, piece in enumerate([first, *pieces[1:]]):
                lines[target + offset] = piece
        last = max(lines, default=0)
        script = "\n".join(lines.get(n, "") for n in range(1, last + 1)) + "\n"
        return PythonLaunch(
            script=script.encode(),
            unknown=self.unknown,
            findings=self.findings,
            calls=self.calls,
            notebook=self.code.notebook,
            image=next(iter(self.images)) if len(self.images) == 1 else None,
        )


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dotted name it stands for (``sgl`` -> ``sglang``, ``Popen`` ->
    ``subprocess.Popen``)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _starts_server(words: Sequence[str]) -> bool:
    """Whether a command may start a server or carry one (docker, ssh...): the rest of argtrace decides."""
    return any("sglang" in w or "vllm" in w for w in words) or bool(
        words and words[0].rsplit("/", 1)[-1] in ("docker", "podman", "ssh", "bash", "sh", "torchrun")
    )


def _mentions_server(node: ast.AST, values: Values, line: int) -> bool:
    """Whether an unreadable command's text shows a server (a string of it names sglang or vLLM)."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
            if "sglang" in inner.value or "vllm" in inner.value:
                return True
        if isinstance(inner, ast.Name):
            value = values.value(inner, line)
            if isinstance(value, (list, tuple)) and any(
                isinstance(v, str) and ("sglang" in v or "vllm" in v) for v in value
            ):
                return True
    return False


# a name bash can expand (bash(1), DEFINITIONS: "name"), and a default bash's `${NAME-WORD}` takes as it is
# (no expansion, quote or `}` in WORD)
_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PLAIN_DEFAULT = re.compile(r"[A-Za-z0-9_./:,@%+=~-]*\Z")
_GETENV = frozenset({"os.getenv", "getenv", "os.environ.get", "environ.get"})


def shell_expansion(text: str) -> str | None:
    """The shell expansion (inside ``${...}``) that gives a program run by a shell what ``text`` reads:
    ``os.environ['M']`` -> ``M?``, ``os.getenv('M', 'x')`` -> ``M-x`` (Python's default when the name is
    unset, as bash's ``-``), ``sys.argv[2]`` -> ``2``; None for any other expression."""
    try:  # a starred element of a list (`[..., *sys.argv[1:]]`) is written with its star
        node = ast.parse(text.removeprefix("*"), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        key, target = node.slice.value, ast.unparse(node.value)
        if target in ("os.environ", "environ") and isinstance(key, str) and _SHELL_NAME.match(key):
            return f"{key}?"  # unset: a KeyError stops the program, as `${NAME?}` stops a script
        if target == "sys.argv" and isinstance(key, int) and not isinstance(key, bool) and 0 <= key <= 9:
            return str(key)
        return None
    if ast.unparse(node) == "sys.argv[1:]":
        return "@"  # the program's own words, each one word, as `"$@"` gives them
    if not (isinstance(node, ast.Call) and ast.unparse(node.func) in _GETENV and not node.keywords):
        return None
    if not 1 <= len(node.args) <= 2 or not all(isinstance(a, ast.Constant) for a in node.args):
        return None
    key = node.args[0].value  # type: ignore[attr-defined]
    if not (isinstance(key, str) and _SHELL_NAME.match(key)):
        return None
    if len(node.args) == 1:
        return key
    default = node.args[1].value  # type: ignore[attr-defined]
    if (
        isinstance(default, bool)
        or not isinstance(default, (str, int))
        or not _PLAIN_DEFAULT.match(str(default))
    ):
        return None
    return f"{key}-{default}"


# what changes a Python program's own environment (os.environ is the process environment: a write to it, or
# python-dotenv's load_dotenv, which sets what the .env file names unless it is set)
_ENV_WRITERS = frozenset(
    {"load_dotenv", "dotenv.load_dotenv", "os.putenv", "os.unsetenv", "putenv", "unsetenv"}
)
_ENV_METHODS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"})


def changes_environment(tree: ast.AST) -> bool:
    """Whether the program writes to its own environment anywhere (an assignment, a deletion or a mutating
    call on ``os.environ``, ``putenv``/``unsetenv``, ``load_dotenv``)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript) and ast.unparse(target.value) in (
                    "os.environ",
                    "environ",
                ):
                    return True
        elif isinstance(node, ast.Call):
            func = ast.unparse(node.func)
            if func in _ENV_WRITERS:
                return True
            owner, _dot, method = func.rpartition(".")
            if owner in ("os.environ", "environ") and method in _ENV_METHODS:
                return True
    return False
