"""``argtrace check README.md``: the shell blocks of a Markdown page that start a server, as the script a
reader runs.

A Markdown page is not a script: its prose, headings and HTML comments are text, and only its fenced code
blocks (CommonMark 0.31, "Fenced code blocks": a line of three or more backticks or tildes whose info
string's first word names the language; inside a list item the fence is indented with the item's text)
hold commands. Read as bash, a
heading's ``(`` or a prose line's ``<N>`` are syntax errors and redirections (SH001, SH005), and a prose line
naming a flag is a command of its own (SH004): confident errors on a page whose launch is correct.

:func:`server_blocks_script` keeps the lines of each shell block (no language, ``bash``, ``sh``, ``shell``,
``zsh``, ``console``...) that names a server start, every other line blank, so line numbers stay the
page's. A page's blocks are snippets a reader copies one at a time, next to blocks for other tools (a
build, a benchmark client, an ssh set-up) whose placeholders (``<YOUR_IMAGE>``) are the reader's to fill:
a block that starts no server is left out. In a ``console`` block (or a block of ``$ `` prompts) the
prompt is taken off the commands and the lines without one, the output, are left out.

A variable a block reads and no kept block sets (``$MODEL_PATH``, ``$MASTER_IP``) is a placeholder the
reader fills (:func:`placeholders`): read as set to a value not known here, not as unset (an unset unquoted
word would vanish, SH007). So is a ``<name>`` in a kept block where bash would read redirections
(``--model <target-model-path>``, ``export TAG=<version>``): read as ``${name}`` (:func:`_filled`).

A page whose launch is a configuration, not a command (dstack's example pages: a ``yaml`` block holding
the service whose ``commands:`` start the server, next to ``$ dstack apply`` and its output in a shell
block), has no shell block that starts a server: :func:`server_yaml_blocks` gives its ``yaml`` blocks that
name a server start as one YAML stream, each block a document at the page's line numbers, for the manifest
readers (a dstack run, a compose file, a Kubernetes manifest), as the page's reader would save and apply it.

What it does not model: a variable a reader sets in an earlier block that starts no server (the launch
reads it as unknown), indented code blocks (four blanks, no fence), blocks inside HTML (``<details>``
around a fence is text CommonMark reads through, and so is this), and a page with both: its shell blocks
are the launch. A dstack run is one document: of several blocks (a page's NVIDIA and AMD tabs) the first
is read.
"""

from __future__ import annotations

import re

from argtrace.layers.shell.file_kinds import is_markdown as is_markdown  # (asked before this is imported)

# a fence: up to three blanks, then three or more backticks or tildes, then the info string
_FENCE = re.compile(r"^( *)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$")
# the info strings of shell code (GitHub linguist's names and aliases of Shell and ShellSession)
_SHELL = frozenset(
    {
        "",
        "bash",
        "sh",
        "shell",
        "zsh",
        "ksh",
        "console",
        "shell-session",
        "shellsession",
        "sh-session",
        "terminal",
    }
)
_YAML = frozenset({"yaml", "yml"})
_SESSION = frozenset({"console", "shell-session", "shellsession", "sh-session", "terminal"})
_PROMPT = re.compile(r"^\s*(?:\(\S+\)\s*)?[$#]\s")  # `$ cmd`, `(venv) $ cmd`, `# cmd` in a session
_SERVER = re.compile(
    r"vllm\s+serve|vllm\.entrypoints|sglang\.launch_server|sglang\s+serve|sglang_router|"
    r"sglang\.srt\.disaggregation|vllm-router|python3?\s+-m\s+vllm\b"
)
# vLLM's image runs `vllm serve` itself (its Dockerfile's ENTRYPOINT; layers/transport/containers.py's
# IMAGE_ENTRYPOINTS): `docker run ... vllm/vllm-openai:TAG --model M` (vLLM's Docker page) and a YAML
# service with `image: vllm/vllm-openai` start a server without naming it
_IMAGE = re.compile(r"vllm/vllm-openai(?:-rocm)?\b")
_CONTAINER_RUN = re.compile(r"\b(?:docker|podman|nerdctl)\s+(?:container\s+)?run\b")


def _starts_server(body: list[str], *, yaml: bool) -> bool:
    """Whether a block starts a server: it names one, or runs (a shell block's `docker run`) or declares
    (a YAML block's `image:`) vLLM's image, whose entrypoint is the server."""
    if any(_SERVER.search(line) for line in body):
        return True
    if not any(_IMAGE.search(line) for line in body):
        return False
    if yaml:
        return any(line.lstrip().startswith(("image:", "- image:")) and _IMAGE.search(line) for line in body)
    return _CONTAINER_RUN.search("\n".join(body)) is not None


_READ = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
# where a simple command starts: a line, or after a control operator or a compound command's keyword
_COMMAND_START = re.compile(r"\n|;|&&|\|\||[|&(){}]|\b(?:then|do|else|elif)\b")
_DECLARE = re.compile(r"(?:export|local|readonly|declare|typeset)(?:\s+-\w+)*\s+")
# one assignment word (its value quoted or bare) and the blanks after it
_ASSIGNMENT = re.compile(r"""([A-Za-z_][A-Za-z0-9_]*)\+?=(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s"';&|]+)*\s*""")
_NAME_WORD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\s+|$)")


def _assigned(code: str) -> set[str]:
    """The variables the code sets: the assignment words a simple command starts with (``A=1 B=2 cmd``) and
    those ``export``/``local``/``readonly`` name. An ``NAME=VALUE`` after a command's first word is one of
    its arguments (``docker run -e NAME="$NAME"``), not an assignment (bash(1), SIMPLE COMMAND EXPANSION)."""
    names: set[str] = set()
    for segment in _COMMAND_START.split(code.replace("\\\n", " ")):
        rest = segment.lstrip()
        declared = _DECLARE.match(rest)
        if declared:
            rest = rest[declared.end() :]
        while rest:
            found = _ASSIGNMENT.match(rest) or (_NAME_WORD.match(rest) if declared else None)
            if found is None:
                break
            names.add(found.group(1))
            rest = rest[found.end() :]
    return names


_PAGE_WHY = "not set on the page: a placeholder its reader sets before running the block (value unknown)"


def placeholders(script: bytes, why: str = _PAGE_WHY) -> dict[str, str]:
    """The variables the kept blocks read and never set, each with why its value is not known (``why``: a
    page's placeholder by default; a running container's environment for ``docker exec``/``kubectl exec``)."""
    text = script.decode("utf-8", "replace")
    code = "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))
    assigned = _assigned(code)
    return {name: why for name in sorted(set(_READ.findall(code)) - assigned)}


def _block_lines(info: str, body: list[str]) -> list[str]:
    """The commands of one block, a line each (blank where a line is not one)."""
    session = info in _SESSION or (
        info == "" and any(_PROMPT.match(line) and line.lstrip().startswith("$") for line in body)
    )
    if not session:
        return body
    out = []
    for line in body:
        m = _PROMPT.match(line)
        # a `$ ` prompt's command and the lines it continues onto are commands; the rest is output
        if m and line.lstrip().startswith("$"):
            out.append(line[m.end() :])
        elif out and out[-1].rstrip().endswith("\\"):
            out.append(line)
        else:
            out.append("")
    return out


# a documentation placeholder where bash would read a redirection (hazards.py's SH005 pattern: `<name>` not
# after `<`, a word character, `$` or a backslash), and the variables bash itself sets, which its name must
# not become
_ANGLE = re.compile(r"(?<![<\w$\\])<([A-Za-z][A-Za-z0-9_./:-]*)>")
_SHELL_OWN = frozenset({"HOME", "PATH", "PWD", "OLDPWD", "USER", "SHELL", "HOSTNAME", "IFS", "UID", "RANDOM"})


def _filled(line: str) -> str:
    """A kept line with each ``<name>`` placeholder outside single quotes read as ``${name}``, a variable no
    block sets: the page's reader puts a value there (``--model <target-model-path>``), as for a page's
    ``$MODEL_PATH`` (:func:`placeholders`); read as bash it was a redirection that took the next word
    (SH005, the value's flag left without one, shellcheck's SC2261)."""
    if "<" not in line:
        return line

    def var(m: re.Match[str]) -> str:
        if line.count("'", 0, m.start()) % 2:
            return m.group(0)  # inside single quotes: the text itself
        name = re.sub(r"\W", "_", m.group(1))
        return "${" + (name + "_" if name in _SHELL_OWN else name) + "}"

    return _ANGLE.sub(var, line)


def server_blocks_script(data: bytes) -> bytes:
    """The page as the script of its shell blocks that start a server (module docstring)."""
    return _blocks(data, yaml=False)


def server_yaml_blocks(data: bytes) -> bytes | None:
    """The page's ``yaml`` blocks that start a server as one YAML stream (module docstring): each block a
    document whose ``---`` is its opening fence's line, every other line blank; None for a page with none."""
    stream = _blocks(data, yaml=True)
    return stream if stream.strip() else None


# an alias a block defines (`alias drun='docker run ...'`), and a line's first word after its prompt
_ALIAS = re.compile(r"^\s*alias\s+([A-Za-z_][A-Za-z0-9_.-]*)=", re.M)
_FIRST_WORD = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.-]*)(?:\s|$)")


def _aliases_used(blocks: list[tuple[int, str, list[str]]]) -> set[int]:
    """The blocks (by their first line) that define an alias a server block runs (`drun ... python3 -m
    sglang.launch_server`, SGLang's AMD page): a reader types the page's commands into an interactive shell,
    where bash expands aliases (bash(1), ALIASES), so the alias's block is part of the launch."""
    defined = {start: set(_ALIAS.findall("\n".join(body))) for start, _info, body in blocks}
    used: set[str] = set()
    for _start, info, body in blocks:
        if _starts_server(body, yaml=False):
            used.update(m.group(1) for line in _block_lines(info, body) if (m := _FIRST_WORD.match(line)))
    return {start for start, names in defined.items() if names & used}


def _blocks(data: bytes, *, yaml: bool) -> bytes:
    lines = data.decode("utf-8", "replace").split("\n")
    out = [""] * len(lines)
    if not yaml:
        return _shell_blocks(lines, out)
    for start, info, body in _fenced(lines):
        if info.split("{", 1)[0] in _YAML and _starts_server(body, yaml=True):
            out[start - 1] = "---"  # the opening fence's line
            for n, line in enumerate(body):
                out[start + n] = line
    return "\n".join(out).encode("utf-8")


def _fenced(lines: list[str]) -> list[tuple[int, str, list[str]]]:
    """Each fenced block: its first line's index, its info string (lower case) and its lines, the fence's
    indentation taken off. A block ends at a closing fence of the same character, at least as long, with
    nothing after it; its lines lose the fence's indentation (a block inside a list item)."""
    found: list[tuple[int, str, list[str]]] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3).lower()
        start = end = i + 1
        while end < len(lines):
            close = lines[end].strip()
            if close.startswith(fence) and set(close) == {fence[0]}:
                break
            end += 1
        body = [
            line[indent:] if line[:indent].strip() == "" else line.lstrip(" ") for line in lines[start:end]
        ]
        found.append((start, info, body))
        i = end + 1
    return found


def _shell_blocks(lines: list[str], out: list[str]) -> bytes:
    """The shell blocks that start a server, and those defining an alias one runs (:func:`_aliases_used`);
    with such an alias, ``shopt -s expand_aliases`` on the page's first line (never a command: a block's
    lines follow its fence), as the reader's interactive shell has it."""
    blocks = [(start, info, body) for start, info, body in _fenced(lines) if info.split("{", 1)[0] in _SHELL]
    aliases = _aliases_used(blocks)
    for start, info, body in blocks:
        if start in aliases or _starts_server(body, yaml=False):
            for n, line in enumerate(_block_lines(info, body)):
                out[start + n] = _filled(line)
    if aliases and out and not out[0]:
        out[0] = "shopt -s expand_aliases"
    return "\n".join(out).encode("utf-8")
