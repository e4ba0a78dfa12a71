"""Start-up, session 32 (issue 18, start32): what the cold first ``check`` did and did not need. A site
directory's distributions are matched for the name asked for only, with the same entries, matches and
order as matching every entry by the pattern."""

from __future__ import annotations

import os
import re
import sys
import sysconfig
from pathlib import Path

import pytest

from argtrace.frameworks import site_packages
from argtrace.remote.host import LocalHost

# entries the pattern's ``$`` and lazy name make tricky: a final newline, separators first and in runs,
# upper case, a -py tag, a single-file .egg-info, a name that is only a version, and modules beside them
TRICKY = [
    "sglang-0.5.9.dist-info",
    "SGLang-0.5.10.dist-info",
    "sglang.dist-info",
    "sglang-0.5.9.dist-info\n",
    "sglang-0.5.9.dist-info\n\n",
    "sglang_router-0.2.1.dist-info",
    "sglang-router-0.2.0-py3.10.egg-info",
    "Sglang__Router-0.1.egg-info",
    "_private-1.0.dist-info",
    ".hidden-1.0.dist-info",
    "-dash-1.0.egg-info",
    "--1.0.dist-info",
    "1-2.dist-info",
    "vllm-0.33.0.dist-info",
    "vllm",
    "sglang",
    "\u212aelvin-1.0.dist-info",  # KELVIN SIGN lowercases to "k": not the pattern's [A-Za-z]
    "kelvin-1.0.dist-info",
    "torch-2.13.0+cu128.dist-info",
    "x.dist-infox",
    "y.egg-info/",
]


def _indexed(entries: list[str]) -> dict[str, tuple[tuple[str, str | None, str | None, str | None], ...]]:
    """Every entry matched by the pattern, by normalised name, as the index before session 32 built it."""
    index: dict[str, list[tuple[str, str | None, str | None, str | None]]] = {}
    for entry in entries:
        m = site_packages._DIST_DIR.match(entry)
        if m:
            key = re.sub(r"[-_.]+", "-", m.group("name")).lower()
            index.setdefault(key, []).append((entry, m.group("name"), m.group("version"), m.group("kind")))
    return {name: tuple(found) for name, found in index.items()}


def _named(entries: list[str], wanted: str) -> tuple[tuple[str, str | None, str | None, str | None], ...]:
    found = site_packages._named_dist_dirs(entries, wanted)
    return tuple((entry, m.group("name"), m.group("version"), m.group("kind")) for entry, m in found)


def test_the_entries_of_one_name_are_those_of_the_whole_index() -> None:
    sites = [sysconfig.get_paths()["purelib"], *(p for p in sys.path if p.endswith("site-packages"))]
    listed = sorted({e for site in sites if os.path.isdir(site) for e in os.listdir(site)})
    for entries in (TRICKY, listed, TRICKY + listed):
        index = _indexed(entries)
        names = set(index) | {"sglang", "Sglang", "k", "kelvin", "", "-", "-dash", "1-2", "sglang-router"}
        assert len(index) >= 8
        for name in names:
            assert _named(entries, name) == index.get(name, ()), name
    index = _indexed(TRICKY)
    assert [e for e, *_ in index["sglang"]] == [
        "sglang-0.5.9.dist-info",
        "SGLang-0.5.10.dist-info",
        "sglang.dist-info",
        "sglang-0.5.9.dist-info\n",
    ]
    assert [e for e, *_ in index["sglang-router"]] == [
        "sglang_router-0.2.1.dist-info",
        "sglang-router-0.2.0-py3.10.egg-info",
        "Sglang__Router-0.1.egg-info",
    ]
    assert site_packages.normalise("Sglang__Router..x") == "sglang-router-x"


def test_a_lookup_keeps_the_listing_and_each_name_asked(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    (site / "sglang-0.5.9.dist-info").mkdir(parents=True)
    (site / "sglang_router-0.2.1.dist-info").mkdir()
    (site / "numpy-2.0.0.dist-info").mkdir()
    os.utime(site, (1_600_000_000, 1_600_000_000))
    files = site_packages.HostFiles(LocalHost())
    found = site_packages._find(files, [str(site)], "sglang")
    assert found is not None and (found.name, found.version) == ("sglang", "0.5.9")
    router = site_packages._find(files, [str(site)], "SGLang_Router")
    assert router is not None and (router.name, router.version) == ("sglang_router", "0.2.1")
    assert site_packages._find(files, [str(site)], "vllm") is None
    stamp, listing, names = site_packages._DIST_INDEX[str(site)]
    assert stamp == 1_600_000_000 * 10**9
    assert listing == ["numpy-2.0.0.dist-info", "sglang-0.5.9.dist-info", "sglang_router-0.2.1.dist-info"]
    assert {name: [e for e, _ in found] for name, found in names.items()} == {
        "sglang": ["sglang-0.5.9.dist-info"],
        "sglang-router": ["sglang_router-0.2.1.dist-info"],
        "vllm": [],
    }


SECRET_TEXTS = [
    "HF_TOKEN=hf_abcdefghijklmnop python -m sglang.launch_server --api-key sk-123456 --port 30000",
    "--api-key is a vLLM flag",
    "'hf_token': 'abc123', \"api_key\" : xyz789",
    "X-Api-Key: s3cr3t-value\nAuthorization: Bearer tok",
    "'--api-key', 'k9k9k9k9'",
    "MAX_TOKENS=8 --tp 2",
    "nothing to see",
    "",
]


def test_the_secret_values_of_a_text_are_searched_once_and_the_same() -> None:
    from argtrace import secret_detection as sd

    for text in SECRET_TEXTS:
        searched = tuple(sd._search_secret_values(text)) if sd._may_hold_named(text) else ()
        assert sd._secret_values_at(text) == searched
        assert sd._secret_values_at(text) == searched  # kept
    assert sd._secret_values_at(SECRET_TEXTS[0]) == ((9, 28, "hf_abcdefghijklmnop"), (70, 79, "sk-123456"))
    assert sd._secret_values_at("--api-key is a vLLM flag") == ()
    assert sd.secrets_in_text(SECRET_TEXTS[0]) == {"hf_abcdefghijklmnop", "sk-123456"}
    assert sd.redact_text(SECRET_TEXTS[0]) == sd.redact_text(SECRET_TEXTS[0])
    assert "sk-123456" not in sd.redact_text(SECRET_TEXTS[0])


BASH_SCRIPTS = [
    b"#!/bin/bash\nx=1\necho $x\n",
    b"#!/bin/bash\nif true; then\n  echo a\n",
    b"#!/bin/bash\nshopt -s extglob\ncase $1 in @(a|b)) echo ab;; esac\n",
    b"#!/bin/bash\necho 'unterminated\n",
    b"#!/bin/bash\nfor i in 1 2; do\n  echo $i\ndone\n)\n" + b"x=1\n" * 20_000,
    b"",
]


def test_bash_n_started_without_subprocess_answers_as_popen(monkeypatch: pytest.MonkeyPatch) -> None:
    from argtrace.layers.shell import syntax

    spawned = [syntax.bash_syntax_errors(data, "s.sh") for data in BASH_SCRIPTS]
    assert spawned[0] == [] and spawned[5] == []
    assert spawned[1] == [syntax.SyntaxProblem(4, "syntax error: unexpected end of file")]
    assert spawned[2] == []
    assert spawned[3] == [syntax.SyntaxProblem(2, "unexpected EOF while looking for matching `''")]
    assert spawned[4] == [
        syntax.SyntaxProblem(5, "syntax error near unexpected token `)'"),
        syntax.SyntaxProblem(5, "`)'"),
    ]
    calls: list[int] = []
    real = syntax._Spawned.start

    def counted(argv: list[str], stdin: int, env: dict[str, str]) -> syntax._Spawned | None:
        calls.append(stdin)
        return real(argv, stdin, env)

    monkeypatch.setattr(syntax._Spawned, "start", staticmethod(counted))
    assert [syntax.bash_syntax_errors(data, "s.sh") for data in BASH_SCRIPTS] == spawned
    assert len(calls) == len(BASH_SCRIPTS)
    monkeypatch.delattr(os, "posix_spawn")  # Popen starts it where posix_spawn is missing: the same answers
    monkeypatch.setattr(syntax._Spawned, "start", real)
    assert [syntax.bash_syntax_errors(data, "s.sh") for data in BASH_SCRIPTS] == spawned


def test_bash_n_past_its_deadline_is_killed_and_answers_none(monkeypatch: pytest.MonkeyPatch) -> None:
    from argtrace.layers.shell import syntax

    pending = syntax.start_bash_syntax_check(b"x=1\n", "s.sh", timeout=-1.0)
    assert isinstance(pending._proc, syntax._Spawned)
    pid = pending._proc.pid
    assert pending.result() is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, 0)  # reaped


def test_a_check_of_the_example_imports_no_subprocess() -> None:
    import subprocess

    example = str(Path(__file__).resolve().parent.parent / "examples" / "launch_mtp.sh")
    code = (
        "import site, sys; sys.path.extend(site.getsitepackages())\n"  # -S: no .pth file's imports
        "import contextlib, io, json\n"
        "before = set(sys.modules)\n"
        "from argtrace.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    main(['check', '--format', 'json', '--no-shellcheck', '--no-resolve',\n"
        f"          {example!r}, '0', '30000'])\n"
        "codes = [f['code'] for f in json.loads(out.getvalue())['findings']]\n"
        "print(' '.join(codes))\n"
        "new = set(sys.modules) - before\n"
        "print(' '.join(m for m in ('subprocess', 'signal', 'selectors', 'locale') if m in new))\n"
    )
    src = str(Path(__file__).resolve().parent.parent / "src")
    env = dict(os.environ, PYTHONPATH=src, ARGTRACE_WARM="0")
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, check=True
    )
    codes, imported = [*done.stdout.split("\n"), "", ""][:2]
    assert codes.split() and "SH004" in codes.split()
    import gettext

    # locale: imported by gettext.find only where the interpreter has a catalogue directory (gettext_once)
    assert imported == ("locale" if os.path.isdir(gettext._default_localedir) else "")  # type: ignore[attr-defined]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="lists descriptors through /proc")
def test_bash_n_gets_descriptors_0_to_2_only_and_the_default_sigpipe() -> None:
    import time

    from argtrace.layers.shell import syntax

    read, write = os.pipe()
    os.set_inheritable(write, True)  # as a caller's pipe argtrace was started with
    script = os.memfd_create("script")
    try:
        shown = "ls /proc/self/fd >&2; grep SigIgn /proc/self/status >&2"  # ls's and grep's own
        spawned = syntax._Spawned.start(["/bin/sh", "-c", shown], script, {"PATH": "/usr/bin:/bin"})
        assert spawned is not None
        status, text = spawned.wait(time.monotonic() + 30) or (None, b"")
    finally:
        for fd in (read, write, script):
            os.close(fd)
    *fds, _, ignored = text.decode().split()
    assert status == 0
    assert sorted(fds) == ["0", "1", "2", "3"]  # 3: the directory ls lists
    assert not int(ignored, 16) & (1 << 12)  # SIGPIPE (13): back to its default, as Popen gives it


def test_gettext_find_answers_as_find_without_a_catalogue_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gettext

    from argtrace import gettext_once

    real = gettext.find
    catalogues = tmp_path / "locale"
    (catalogues / "fr" / "LC_MESSAGES").mkdir(parents=True)
    (catalogues / "fr" / "LC_MESSAGES" / "messages.mo").write_bytes(b"")
    a_file = tmp_path / "file"
    a_file.write_text("")
    directories = [None, str(catalogues), str(tmp_path / "none"), str(a_file), str(a_file / "below"), ""]
    for language in (None, "fr_FR.UTF-8", "C.UTF-8", "de:fr", "xx@euro"):
        for variable in gettext_once.LANGUAGE_VARIABLES:
            monkeypatch.delenv(variable, raising=False)
        if language is not None:
            monkeypatch.setenv("LANGUAGE", language)
        for localedir in directories:
            for all_ in (False, True):
                for languages in (None, ["fr"]):
                    find = gettext_once.Find(real)
                    expected = real("messages", localedir, languages, all_)
                    assert find("messages", localedir, languages, all_) == expected
                    assert find("messages", localedir, languages, all_) == expected  # kept
    monkeypatch.setenv("LANGUAGE", "fr")
    assert gettext_once.Find(real)("messages", str(catalogues)) == str(
        catalogues / "fr/LC_MESSAGES/messages.mo"
    )
    assert gettext_once.Find(real)("messages", str(tmp_path / "none"), all=True) == []
