"""Recording a server start: the environment it gets (``env``/``sudo``/``systemd-run``/``srun``/``stdbuf``
wrappers), the ``FoundServer`` with its argv, cwd and redirections, the words made from the script's missing
arguments or from variables not set here, and a loop's repeats folded into one start.

Moved out of :mod:`commands` (a pure move): the dispatch of a simple command there calls
:meth:`ServerRecords.record_server` when the command it runs is a server.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from argtrace.frameworks.detect import Detection
from argtrace.layers.shell import lexer as L
from argtrace.layers.shell import wordparts as W
from argtrace.layers.shell.conditions import Conditions
from argtrace.layers.shell.core import MAX_LOOP_SERVERS, ExpWord, FoundServer, Vanished, from_str, to_str
from argtrace.layers.shell.wrapped_env import wrapper_env
from argtrace.model_launch import FromUnset

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.slurm import Export

# A parameter a word or an assignment reads: `$1`, `${10}`, `"$@"`, `${#}`, `$NAME`, `${NAME:-x}`, `${#NAME}`
_PARAMETER = re.compile(r"\$\{?#?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#])")

# a variable of the shell's environment: (value, at, expansion, reason)
EnvEntry = tuple[str | None, str | None, str, str | None]


def _passwd() -> bytes | None:
    """/etc/passwd of the host the script runs on (sudo's target user's HOME and SHELL)."""
    from argtrace.layers.shell import hostfs  # the files of the host the script runs on (--host)

    try:
        return hostfs.read("/etc/passwd", 1 << 20)
    except OSError:
        return None


class ServerRecords(Conditions):
    """The server starts a script makes (``self.servers``), recorded by the simple-command dispatch."""

    def exported_value(self, name: str) -> str | None:
        """``exported_env().get(name)[0]`` without building the whole environment: each external command
        asks for PATH, and building it for every one was quadratic in a script's variables (issue 18)."""
        found: str | None = None
        present = False
        for scope in self.scopes:
            v = scope.get(name)
            if v is None:
                continue
            if v.exported and v.is_set:
                found, present = (v.scalar if v.known else None), True
            elif present and (not v.exported or not v.is_set):
                found, present = None, False
        return found

    def exported_env(self) -> dict[str, tuple[str | None, str | None, str, str | None]]:
        env: dict[str, tuple[str | None, str | None, str, str | None]] = {}
        for scope in self.scopes:
            for k, v in scope.items():
                if v.exported and v.is_set:
                    env[k] = (v.scalar if v.known else None, v.at, v.expansion or "", v.reason)
                elif k in env and not v.exported:
                    # a local or global that shadows without export: bash still exports the variable if the
                    # outer one was exported? (no: a local is not exported unless declared so)
                    del env[k]
                elif k in env and not v.is_set:
                    del env[k]
        return env

    def _srun_task_env(
        self, argv: list[ExpWord], det: Detection, env: dict[str, EnvEntry]
    ) -> dict[str, EnvEntry]:
        """The server's environment after ``srun --export`` (``layers/slurm.py``): what reaches each task."""
        from argtrace.layers.slurm import srun_export

        texts = [w.text for w in argv[: det.command_index]]
        values = {k: v[0] for k, v in env.items()}
        export = srun_export(texts, values)
        if export is None:
            return env
        at = argv[det.wrapper_at[det.wrappers.index("srun")]].at
        self._export_ignored(export, values, at)
        return export.apply(env, lambda text: (text, at, f"srun {export.at}", None))

    def _export_ignored(self, export: Export | None, env: Mapping[str, str | None], at: str) -> None:
        """``srun --export=ALL,NAME=value`` where NAME is already exported: the caller's value wins."""
        if export is None:
            return
        for name, text, value in export.ignored(env):
            self.emit("srun_export_ignored", at, name=name, text=text, value=value, export=export.at)

    def record_server(
        self,
        argv: list[ExpWord],
        prefix_env: dict[str, tuple[str | None, str, str, str | None]],
        redirs: list[tuple[str | None, str, str | None, str, L.RedirTok]],
        at: str,
        start: int,
        vanished: list[Vanished],
        det: Detection,
    ) -> None:
        env: dict[str, tuple[str | None, str | None, str, str | None]] = dict(self.exported_env())
        for pk, (v, vat, exp, reason) in prefix_env.items():
            env[pk] = (v, vat, exp, reason)
        if self.exec_clear_env:  # exec -c: bash hands the command an empty environment (its execve's envp)
            env = {}
        # `env` and `sudo` wrappers, in the order written: env -i/-u, sudo's reset, NAME=value words
        texts = [w.text or "" for w in argv]
        env = wrapper_env(argv, det, env, self.cwd, lambda: _passwd())
        if "systemd-run" in det.wrappers:  # the manager substitutes the ExecStart it is handed
            from argtrace.layers.shell.wrapenv import systemd_run_substitution

            argv, lost = systemd_run_substitution(argv, det, env)
            for item in lost:
                self.emit(
                    "systemd_run_unset",
                    item.at,
                    word=item.word,
                    name=item.name,
                    vanished=item.vanished,
                    flag=item.flag,
                )
        if "srun" in det.wrappers:
            env = self._srun_task_env(argv, det, env)
        if "stdbuf" in det.wrappers:
            _stdbuf_env(texts, env, argv)
        if self.direct_exec and "SHLVL" in env:
            lvl = env["SHLVL"]
            if lvl[0] is not None and lvl[0].lstrip("-").isdigit():
                env["SHLVL"] = (str(int(lvl[0]) - 1), lvl[1], lvl[2], lvl[3])
        line, _ = self.src.line_col(start)
        inherited = [*self.exec_fds.values(), *(r for frame in self.redirect_stack for r in frame)]
        srv = FoundServer(
            detection=det,
            argv=argv,
            env=env,
            at=at,
            line=line,
            cwd=self.cwd,
            backgrounded=self.bg_mark,
            conditional=self.spec[-1] if self.spec else None,
            redirects=[(fd, op, tgt, rat) for fd, op, tgt, rat, _r in redirs],
            inherited_redirects=inherited,
            in_pipeline=self.pipeline_depth > 0,
            vanished=vanished,
            source_label=self.src.label,
            offset=start,
            nohup="nohup" in det.wrappers,
        )
        if self.no_script_arguments:
            srv.from_missing_arguments = self._from_missing_arguments(argv, env, vanished)
        srv.from_unset_variables = self._from_unset_variables(argv, env)
        written = self.written_files()
        if written:
            srv.script_files = written
        if self.loops and self._repeats(srv):
            return
        srv.index = len(self.servers)
        self.servers.append(srv)
        if self.bg_mark:
            self.bg_servers.append(srv.index)

    def _from_missing_arguments(
        self,
        argv: list[ExpWord],
        env: Mapping[str, tuple[str | None, str | None, str, str | None]],
        vanished: list[Vanished],
    ) -> frozenset[str]:
        """The locations of the words, vanished words and environment values made from the script's
        arguments (``$1``, ``"$@"``, ``$#``), directly or through the variables they were assigned from, as
        the variables stand now. Called only when the script was given no arguments."""
        made: set[str] = set()
        for word in argv:
            if word.expansion != "literal" and self._reads_arguments(word.expansion):
                made.add(word.at)
        for v in vanished:
            if self._reads_arguments(v.raw):
                made.add(v.at)
        for _value, at, expansion, _reason in env.values():
            if at is not None and expansion and self._reads_arguments(expansion):
                made.add(at)
        return frozenset(made)

    def _from_unset_variables(
        self, argv: list[ExpWord], env: Mapping[str, tuple[str | None, str | None, str, str | None]]
    ) -> tuple[FromUnset, ...]:
        """The server words and environment values (by location) that a plain ``$NAME``/``${NAME}`` of a
        variable not set here went into, directly or through the variables they were assigned from, with
        those names: the word
        ``{"num_speculative_tokens":${SPEC_TOKENS}}`` is another value when the caller sets SPEC_TOKENS.
        Read from the word's parts (what single quotes keep literal is no expansion); an expansion with an
        operator (``${N:-8}``) decides its own value and is left out."""
        out: list[FromUnset] = []
        for i, word in enumerate(argv):
            if word.expansion == "literal" or any(f.at == word.at for f in out):
                continue
            names = tuple(dict.fromkeys(self._unset_in(word.expansion, assignment=False)))
            if not names:
                continue
            flag = argv[i - 1] if i > 0 else None
            if flag is not None and flag.text and flag.text.startswith("-") and "=" not in flag.text:
                value = to_str(word.text) if word.text is not None else None
                out.append(FromUnset(word.at, names, flag.at, value))
            else:
                out.append(FromUnset(word.at, names))
        for _value, at, expansion, _reason in env.values():  # CUDA_VISIBLE_DEVICES=$GPU_IDS, GPU_IDS unset
            if at is None or not expansion or expansion in ("environment", "bash"):
                continue
            names = tuple(dict.fromkeys(self._unset_in(expansion, assignment=True)))
            if names and not any(f.at == at for f in out):
                out.append(FromUnset(at, names))
        return tuple(out)

    def _unset_in(self, text: str, assignment: bool, seen: frozenset[str] = frozenset()) -> list[str]:
        if "$" not in text:
            return []  # no parameter to read (every W.Param starts at a `$`): the server's 3,400 exports
        try:
            parts = W.parse_word(from_str(text), assignment=assignment)
        except (ValueError, IndexError):  # a word the evaluator took but this reading does not: nothing said
            return []
        names: list[str] = []
        for part in parts:
            if not isinstance(part, W.Param):
                continue
            name = part.name
            if part.op is not None or part.length or part.indirect or part.index is not None:
                continue
            if not (name[:1].isalpha() or name[:1] == "_") or name in seen or len(seen) > 16:
                continue
            state = self.get_param(name)[0]
            if state == "unset":
                names.append(name)
                continue
            var = self.lookup(name)
            if state == "set" and var is not None and var.expansion not in (None, "environment", "bash"):
                names += self._unset_in(var.expansion or "", True, seen | {name})
        return names

    def _reads_arguments(self, text: str, seen: frozenset[str] = frozenset()) -> bool:
        for match in _PARAMETER.finditer(text):
            name = match.group(1)
            if name in ("@", "*", "#") or (name.isdigit() and name != "0"):
                return True
            if name in seen or len(seen) > 16:
                continue
            var = self.lookup(name)
            if var is not None and var.expansion and var.expansion not in ("environment", "bash"):
                if self._reads_arguments(var.expansion, seen | {name}):
                    return True
        return False

    def _repeats(self, srv: FoundServer) -> bool:
        """Inside a loop: True when ``srv`` is a start already recorded by this loop (the same command with
        the same words, environment and redirections), which is then marked repeated instead of added
        again; also when this command already started MAX_LOOP_SERVERS different servers in the loop."""
        inner = self.loops[-1]
        same_place = [
            s
            for s in self.servers[self.loops[0].first_server :]
            if s.offset == srv.offset and s.source_label == srv.source_label and s.at == srv.at
        ]
        key = _server_key(srv)
        for s in same_place:
            if _server_key(s) == key:
                s.loop = s.loop or inner.at
                return True
        if len(same_place) >= MAX_LOOP_SERVERS:
            same_place[-1].loop = same_place[-1].loop or inner.at
            self.emit("loop_servers", srv.at, limit=MAX_LOOP_SERVERS)
            for frame in self.loops:
                frame.stop = frame.unbounded = True  # what is left of these loops would fold the same way
            return True
        return False


STDBUF_LIB = "/usr/libexec/coreutils/libstdbuf.so"  # Debian/Ubuntu coreutils


def _server_key(s: FoundServer) -> tuple[Any, ...]:
    """What makes two server starts the same start (for folding the iterations of a loop)."""
    return (
        tuple((w.text, w.at) for w in s.argv),
        tuple(sorted((k, v[0]) for k, v in s.env.items())),
        s.cwd,
        s.backgrounded,
        s.conditional,
        tuple(s.redirects),
        tuple(s.inherited_redirects),
    )


def _stdbuf_env(
    texts: list[str], env: dict[str, tuple[str | None, str | None, str, str | None]], argv: list[ExpWord]
) -> None:
    """``stdbuf -oL cmd`` runs cmd with LD_PRELOAD=libstdbuf.so and _STDBUF_O=L (coreutils' mechanism)."""
    i = next((k for k, t in enumerate(texts) if t.rsplit("/", 1)[-1] == "stdbuf"), -1)
    if i < 0:
        return
    from argtrace.frameworks.wrappers import options_of, scan_options

    spec = options_of("stdbuf")
    at = argv[i].at
    if spec is not None:  # getopt_long as stdbuf reads it: -oL, -o L, --output=L, --out L
        for name, mode in scan_options(texts, i + 1, spec).seen:
            if name[0] in "ioe" and mode is not None:
                env[f"_STDBUF_{name[0].upper()}"] = (mode, at, "stdbuf", None)
    old = env.get("LD_PRELOAD")
    value = STDBUF_LIB if not old or old[0] is None else f"{old[0]}:{STDBUF_LIB}"
    env["LD_PRELOAD"] = (value, at, "stdbuf", None)
