"""A script that hands a launch file to the program that runs it: ``kubectl apply -f vllm.yaml``,
``kubectl create -f - <<EOF``, ``podman kube play pod.yaml``.

The file is the one the script itself wrote before (``cat <<EOF > vllm.yaml``, ``tee``, several ``>>``
writes appended in order), the here-document on the command's own stdin (``-f -``), or a file on disk
where the command runs. Its servers are read by the manifest reader (``manifest_read.analyze_manifest``) as
if the file had been checked on its own. A file written by one here-document is read under the script's
label with its lines where the here-document's body stands, so every finding points into the script and
an edit of the manifest is an edit of the script. What cannot be read (a URL, a directory, a file neither
written nor on disk) is said in the hop, never guessed.

This module owns telling a hand-off from its argv (``hand_off``), the files the script wrote from
here-documents (``note_write``) and the reading of each handed file (``follow_hand_off``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from argtrace.layers.shell import ScriptSource
from argtrace.layers.transport.context import TransportResult, _Context
from argtrace.model_launch import CommandIO

# kubectl(1) verbs that send a manifest's objects to the cluster (kubectl apply/create/replace --help)
_KUBECTL_VERBS = frozenset({"apply", "create", "replace"})
# kubectl's global options that take a value as the next word (kubectl options)
_KUBECTL_VALUED = frozenset(
    {
        "-n",
        "--namespace",
        "--context",
        "--kubeconfig",
        "--cluster",
        "--user",
        "-s",
        "--server",
        "--token",
        "--as",
        "--as-group",
        "--cache-dir",
        "--certificate-authority",
        "--client-certificate",
        "--client-key",
        "--request-timeout",
        "-l",
        "--selector",
        "-o",
        "--output",
        "--field-manager",
        "--dry-run",
    }
)


@dataclass(frozen=True)
class HandOff:
    """One command that hands launch files to their runner: how it is shown (``kubectl apply``), the file
    words it names (``-`` for its stdin) and a word it names that argtrace does not read (a kustomization,
    an option it does not know the arity of)."""

    via: str
    files: tuple[str, ...]
    unread: str | None = None
    compose: bool = False  # a compose file: ${NAME} filled from the command's environment and .env
    service: str | None = None  # the one service the command names (`docker compose up vllm`)


@dataclass(frozen=True)
class Written:
    """A file the script wrote from here-documents so far: its text and, when one here-document wrote all of
    it, the script line its body starts on."""

    text: str | None
    line: int | None


def hand_off(argv: Sequence[str | None]) -> HandOff | None:
    """The launch files ``argv`` hands to its runner, or None when it hands none."""
    base = (argv[0] or "").rsplit("/", 1)[-1] if argv else ""
    if base in ("kubectl", "oc"):
        return _kubectl(argv, base)
    if base in ("docker-compose", "podman-compose"):
        return _compose(argv, 1, base)
    if base in ("docker", "podman") and len(argv) > 1 and argv[1] == "compose":
        return _compose(argv, 2, f"{base} compose")
    if base == "podman" and len(argv) > 2 and (argv[1], argv[2]) in (("kube", "play"), ("play", "kube")):
        # podman-kube-play(1): `podman kube play [options] file.yml|-|URL`: `-` is its stdin
        files = [w for w in argv[3:] if w is not None and (w == "-" or not w.startswith("-"))]
        if len(files) != 1 or len(argv) - 3 != 1:
            return HandOff(f"podman {argv[1]} {argv[2]}", (), unread="options argtrace does not read")
        return HandOff(f"podman {argv[1]} {argv[2]}", (files[0],))
    return None


def _kubectl(argv: Sequence[str | None], base: str) -> HandOff | None:
    i = 1
    verb = None
    while i < len(argv):
        word = argv[i]
        if word is None:
            return None
        if word in _KUBECTL_VALUED:
            i += 2
            continue
        if not word.startswith("-"):
            verb = word
            break
        i += 1
    if verb not in _KUBECTL_VERBS:
        return None
    via = f"{base} {verb}"
    after = argv[i + 1] if i + 1 < len(argv) else None
    if verb == "create" and after is not None and not after.startswith("-"):
        return None  # `kubectl create secret ...`, `create namespace ...`: objects from words, not files
    files: list[str] = []
    unread = None
    j = i + 1
    while j < len(argv):
        word = argv[j]
        if word is None:
            unread = "a word not known statically"
            j += 1
            continue
        if word in ("-f", "--filename"):
            value = argv[j + 1] if j + 1 < len(argv) else None
            if value is None:
                unread = "a file not known statically"
            else:
                files.append(value)
            j += 2
            continue
        if word.startswith("--filename="):
            files.append(word.split("=", 1)[1])
        elif word.startswith("-f") and len(word) > 2 and not word.startswith("--"):
            files.append(word[2:])
        elif word in ("-k", "--kustomize") or word.startswith("--kustomize="):
            unread = "a kustomization (check its directory's kustomization.yaml)"
        elif word in _KUBECTL_VALUED:
            j += 1
        j += 1
    if not files and unread is None:
        return None
    return HandOff(via, tuple(files), unread)


# docker compose's options before the subcommand that take a value (docker compose --help)
_COMPOSE_VALUED = frozenset(
    {
        "-f",
        "--file",
        "-p",
        "--project-name",
        "--env-file",
        "--profile",
        "--project-directory",
        "--ansi",
        "--progress",
        "--parallel",
    }
)
# the subcommands that create containers from the file (docker compose up/create/run --help)
_COMPOSE_STARTS = frozenset({"up", "create", "run"})
# `up`'s options that take a value
_UP_VALUED = frozenset(
    {"--scale", "-t", "--timeout", "--wait-timeout", "--pull", "--exit-code-from", "--attach", "--no-attach"}
)


def _compose(argv: Sequence[str | None], start: int, via: str) -> HandOff | None:
    files: list[str] = []
    unread = None
    i = start
    while i < len(argv):
        word = argv[i]
        if word is None:
            return None
        if word in _COMPOSE_VALUED or (word.startswith("--") and word.split("=", 1)[0] in _COMPOSE_VALUED):
            option, _, value = word.partition("=")
            given = value if "=" in word else (argv[i + 1] if i + 1 < len(argv) else None)
            if option in ("-f", "--file"):
                if given is None:
                    unread = "a file not known statically"
                else:
                    files.append(given)
            elif option in ("--env-file", "--project-directory"):
                unread = f"{option} (argtrace reads the .env beside the file only)"
            i += 1 if "=" in word else 2
            continue
        if not word.startswith("-"):
            break
        i += 1
    if i >= len(argv) or argv[i] not in _COMPOSE_STARTS:
        return None
    verb = argv[i]
    services: list[str] = []
    j = i + 1
    while j < len(argv):
        word = argv[j]
        if word is None:
            unread = unread or "a word not known statically"
        elif word in _UP_VALUED:
            j += 1
        elif not word.startswith("-"):
            services.append(word)
            if verb == "run":
                if j + 1 < len(argv):
                    unread = unread or "the command `run` gives the service instead of its own"
                break
        j += 1
    if len(files) > 1:
        unread = unread or "several compose files merged"
    if not files:
        files = ["<default>"]
    return HandOff(
        f"{via} {verb}",
        tuple(files),
        unread,
        compose=True,
        service=services[0] if len(services) == 1 else None,
    )


def note_write(
    written: dict[str, Written], io: CommandIO | None, argv: Sequence[str | None], cwd: str
) -> None:
    """Record what ``cat <<EOF > FILE`` / ``cat <<EOF >> FILE`` / ``tee [-a] FILE <<EOF`` writes."""
    from argtrace.layers.shell import hostfs

    if io is None or not argv:
        return
    base = (argv[0] or "").rsplit("/", 1)[-1]
    targets: list[tuple[str, bool]] = []
    if base == "cat" and len(argv) == 1 and io.stdout is not None:
        targets.append((io.stdout, io.append))
    elif base in ("cat", "envsubst") and io.stdout is not None and io.output is not None:
        # `envsubst < pod.tmpl > pod.yaml`, `cat a.yaml b.yaml > all.yaml`: what it writes is known
        io = CommandIO(io.output, None, io.stdout, io.append)
        targets.append((io.stdout or "", io.append))
    elif base == "tee" and all(w is not None for w in argv):
        words = [w for w in argv[1:] if w is not None]
        append = any(w in ("-a", "--append") for w in words)
        targets.extend((w, append) for w in words if not w.startswith("-"))
    for target, append in targets:
        key = _key(target, cwd)
        before = written.get(key)
        if append and before is not None:
            text = None if before.text is None or io.stdin is None else before.text + io.stdin
            written[key] = Written(text, None)
        elif append and hostfs.exists(key):
            written[key] = Written(None, None)  # appended to a file the script did not write: not known
        else:
            written[key] = Written(io.stdin, io.stdin_line)


def _key(path: str, cwd: str) -> str:
    return posixpath.normpath(path if path.startswith("/") else posixpath.join(cwd, path))


def follow_hand_off(
    at: str,
    found: HandOff,
    io: CommandIO | None,
    env: dict[str, str | None] | None,
    cwd: str,
    written: dict[str, Written],
    ctx: _Context,
    result: TransportResult,
    source: ScriptSource,
    follow: Callable[..., TransportResult],
) -> None:
    """Read each file ``found`` hands on and add its servers and findings to ``result``."""
    from argtrace.layers.shell import hostfs
    from argtrace.layers.transport.manifest_read import analyze_manifest
    from argtrace.layers.transport.manifests import manifest_kind

    hop: dict[str, object] = {"at": at, "via": found.via, "files": []}
    if found.unread:
        hop["unread"] = found.unread
    result.hops.append(hop)
    files: list[dict[str, object]] = []
    hop["files"] = files
    for word in found.files:
        if word == "<default>":
            word = _default_compose_file(cwd, written)
        entry: dict[str, object] = {"file": word}
        files.append(entry)
        label, data, path, origin = _content(word, io, cwd, written, source)
        if data is None:
            if word.startswith(("http://", "https://")):
                entry["read"] = "a URL: not fetched"
            elif word == "-" and io is not None and io.piped_from is not None:
                entry["read"] = (
                    f"its stdin is the output of `{io.piped_from}`, which the script does not give "
                    "statically (only cat, echo, printf and envsubst of known text are followed): not read"
                )
            elif word == "-":
                entry["read"] = (
                    "its stdin is no here-document of the script (a pipe, or the caller's): not read"
                )
            elif hostfs.isdir(_key(word, cwd)):
                entry["read"] = "a directory: not read"
            elif word == "<default>":
                entry["read"] = (
                    f"none of {', '.join(_COMPOSE_DEFAULTS)} written by the script or where it runs"
                )
            else:
                entry["read"] = _not_found(word, cwd, source)
            continue
        kind = manifest_kind(data)
        if kind != ("compose" if found.compose else "kubernetes") and not (
            kind == "kustomize" and not found.compose
        ):
            entry["read"] = "not a compose file" if found.compose else "not a Kubernetes manifest"
            continue
        known, unknown = _compose_environment(env, ctx) if found.compose else (ctx.env, set())
        text = data.decode("utf-8", "replace")
        if blind := sorted(n for n in unknown if re.search(rf"\$\{{?{re.escape(n)}\b", text)):
            # compose fills these in with values only known when the script runs: not guessed
            names = ", ".join(blind)
            entry["read"] = f"not read: it uses {names}, set by the script to values not known statically"
            continue
        entry["read"] = origin
        dotenv = None
        if found.compose:
            from argtrace.layers.transport.envfiles import read_dotenv

            # compose's project directory is the first file's (.env is read there)
            dotenv = read_dotenv(posixpath.join(posixpath.dirname(_key(word, cwd)), ".env"), known)
        manifest = analyze_manifest(
            ScriptSource(label=label, data=data, path=path),
            env=known,
            service=found.service,
            dotenv=dotenv,
            follow=follow,
            release=ctx.release,
        )
        result.servers.extend(manifest.servers)
        # a name the script exports with a value not known here is set: compose does not find it unset
        result.findings.extend(manifest.findings)
        result.secrets.update(manifest.secrets)
        result.written.update(manifest.written)


# the file names `docker compose` looks for without -f, in its order (Compose specification, "Compose file")
_COMPOSE_DEFAULTS = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")


def _default_compose_file(cwd: str, written: dict[str, Written]) -> str:
    from argtrace.layers.shell import hostfs

    for name in _COMPOSE_DEFAULTS:
        key = _key(name, cwd)
        if key in written or hostfs.isfile(key):
            return name
    return "<default>"


def _not_found(word: str, cwd: str, source: ScriptSource) -> str:
    """Why a file word is not read; a relative file that lies beside the script is named, since the script
    may be meant to run from its own directory (bash runs it from the caller's, which argtrace follows)."""
    from argtrace.layers.shell import hostfs

    said = f"not written by the script nor found where it runs ({cwd})"
    if word.startswith("/") or source.path is None:
        return said
    beside = posixpath.join(posixpath.dirname(str(source.path)), word)
    if posixpath.normpath(beside) != _key(word, cwd) and hostfs.isfile(beside):
        here = posixpath.dirname(str(source.path)) or "."
        return (
            f"{said}; {word} is beside the script: check from its directory (cd {here} && argtrace check ...)"
        )
    return said


def _compose_environment(env: dict[str, str | None] | None, ctx: _Context) -> tuple[dict[str, str], set[str]]:
    """The values compose interpolates from (the command's environment as the script leaves it, else the
    one argtrace was given) and the names set there whose values are not known statically."""
    if env is None:
        return dict(ctx.env), set()
    return {k: v for k, v in env.items() if v is not None}, {k for k, v in env.items() if v is None}


def _content(
    word: str, io: CommandIO | None, cwd: str, written: dict[str, Written], source: ScriptSource
) -> tuple[str, bytes | None, Path | None, str]:
    """(label, bytes, real path, where the text came from) of a file word: the command's stdin, a file the
    script wrote, or the disk. A text one here-document wrote is labelled as the script, its lines moved
    down to the body's own."""
    from argtrace.layers.shell import hostfs

    if word == "-":
        if io is None or io.stdin is None:
            return word, None, None, ""
        label, data = _in_script(io.stdin, io.stdin_line, word, source)
        if io.piped_from is not None:
            what = f"the output of `{io.piped_from}` on stdin"
            return label, data, None, _where(what, io.stdin_line, source)
        return label, data, None, _where("the here-document on stdin", io.stdin_line, source)
    key = _key(word, cwd)
    if key in written:
        done = written[key]
        if done.text is None:
            return word, None, None, ""
        label, data = _in_script(done.text, done.line, word, source)
        return label, data, None, _where("written by the script", done.line, source)
    if not hostfs.isfile(key):
        return word, None, None, ""
    try:
        data = hostfs.read(key, 4 * 1024 * 1024)
    except OSError:
        return word, None, None, ""
    return word, data, Path(key), key


def _where(what: str, line: int | None, source: ScriptSource) -> str:
    return f"{what} at {source.label}:{line}" if line is not None else f"{what} ({source.label})"


def _in_script(text: str, line: int | None, word: str, source: ScriptSource) -> tuple[str, bytes]:
    data = text.encode("utf-8", "surrogateescape")
    if line is None:
        return f"{word} (written by {source.label})", data
    return source.label, b"\n" * (line - 1) + data
