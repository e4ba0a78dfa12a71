#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_router.json: the flags of the ``vllm-router`` console script
of PyPI's ``vllm-router`` package (vllm-project/router, a Rust router descended from sgl-router), per
release, from its wheels and sdists.

Its ``vllm_router/launch_router.py`` (``vllm-router = vllm_router.launch_router:main`` in every release's
entry_points.txt) builds ``argparse.ArgumentParser(...)`` (``-h`` and prefix matching included), calls
``RouterArgs.add_cli_args(parser, use_router_prefix=False)`` and ``parse_args``. This script runs that
``add_cli_args`` (``vllm_router/router_args.py`` extracted from the archive: it imports only the standard
library) on an empty parser in a subprocess and records each option's strings, action, nargs and choices,
in the shape ``scripts/gen_router_schema.py`` gives ``smg_launch``.

PyPI's ``vllm-router`` is not production-stack's router: production-stack's pyproject.toml also names its
distribution ``vllm-router`` with a console script ``vllm-router = vllm_router.app:main``, but it publishes
no release on PyPI (its router ships in container images). Its parser is read from the git repository
instead (``--production-stack GIT_DIR``, a clone of https://github.com/vllm-project/production-stack): at
each release tag (``vllm-stack-X``), the ``parser.add_argument(...)`` / ``group.add_argument(...)`` calls
of ``def parse_args`` in ``src/vllm_router/parsers/parser.py`` (``src/vllm_router/router.py`` before
0.1.1), read by AST (the module imports the router's own packages, so it is not run): option strings,
action, nargs and choices where they are constants. Key ``production_stack``.

  pip download --no-deps vllm-router==0.1.9 vllm-router==0.1.10 ... -d /tmp/wh
  python scripts/gen_vllm_router_schema.py /tmp/wh/vllm_router-* --production-stack /path/to/repo.git
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_router_schema import _DUMP, _per_release, _version_key

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/frameworks/data/vllm_router.json"


def _read(archive: Path, name: str) -> bytes:
    """``vllm_router/<name>`` of a wheel, or ``py_src/vllm_router/<name>`` of an sdist."""
    if archive.name.endswith(".whl"):
        with zipfile.ZipFile(archive) as z:
            return z.read(f"vllm_router/{name}")
    with tarfile.open(archive) as t:
        member = next(m for m in t.getmembers() if m.name.endswith(f"py_src/vllm_router/{name}"))
        f = t.extractfile(member)
        assert f is not None
        return f.read()


def _entry_point(archive: Path) -> str:
    """The ``vllm-router`` console script's target in the archive's entry_points.txt."""
    if archive.name.endswith(".whl"):
        with zipfile.ZipFile(archive) as z:
            text = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt")))
    else:
        with tarfile.open(archive) as t:
            member = next(m for m in t.getmembers() if m.name.endswith("egg-info/entry_points.txt"))
            f = t.extractfile(member)
            assert f is not None
            text = f.read()
    for line in text.decode().splitlines():
        if line.replace(" ", "").startswith("vllm-router="):
            return line.split("=", 1)[1].strip()
    raise SystemExit(f"{archive.name}: no vllm-router console script")


def release_options(archive: Path) -> tuple[str, list[dict[str, object]]]:
    version = archive.name.split("-")[1].removesuffix(".tar.gz")
    target = _entry_point(archive)
    if target != "vllm_router.launch_router:main":
        raise SystemExit(f"{archive.name}: vllm-router runs {target}, not launch_router:main")
    with tempfile.TemporaryDirectory() as tmp:
        pkg = Path(tmp) / "vllm_router"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        (pkg / "router_args.py").write_bytes(_read(archive, "router_args.py"))
        dumped = subprocess.run(
            [sys.executable, "-c", _DUMP, tmp, "vllm_router.router_args", "router"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
    return version, [o for o in json.loads(dumped.stdout) if o["flags"]]


_ACTIONS = {"store_true": "_StoreTrueAction", "store_false": "_StoreFalseAction", "append": "_AppendAction"}


def _constant(node: ast.expr | None) -> object:
    try:
        return ast.literal_eval(node) if node is not None else None
    except ValueError:
        return None  # a name or call (``choices=list(...)``): not known here, not checked


def parse_args_options(source: str) -> list[dict[str, object]]:
    """The ``*.add_argument(...)`` calls in ``def parse_args`` of production-stack's router, by AST."""
    out: list[dict[str, object]] = [
        {"flags": ["-h", "--help"], "dest": "help", "action": "_HelpAction", "nargs": 0, "choices": None}
    ]
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.FunctionDef) and node.name == "parse_args"):
            continue
        for call in ast.walk(node):
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "add_argument"
            ):
                continue
            flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if not flags or not flags[0].startswith("-"):
                continue
            kw = {k.arg: k.value for k in call.keywords}
            action = _constant(kw.get("action"))
            choices = _constant(kw.get("choices"))
            out.append(
                {
                    "flags": flags,
                    "dest": flags[-1].lstrip("-").replace("-", "_"),
                    "action": _ACTIONS.get(str(action), "_StoreAction"),
                    "nargs": _constant(kw.get("nargs")),
                    "choices": [str(c) for c in choices] if isinstance(choices, (list, tuple)) else None,
                }
            )
    return out


# the refusals of production-stack's router, by their messages in its code (string constants, by AST)
_STATIC_REQUIRED = "Static backends must be provided when using static service discovery."
_SAME_LENGTH = "URLs and models should have the same length"  # StaticServiceDiscovery.__init__'s assert


def _constants(source: str) -> set[str]:
    return {
        n.value
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def _url_regex(source: str) -> str | None:
    """The pattern ``validate_url`` (utils.py) compiles: ``parse_static_urls`` skips a URL it refuses."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == "validate_url":
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.args:
                    if call.func.attr in ("compile", "match") and isinstance(call.args[0], ast.Constant):
                        return str(call.args[0].value)
    return None


def _show(git_dir: str, tag: str, path: str) -> str | None:
    shown = subprocess.run(["git", "-C", git_dir, "show", f"{tag}:{path}"], capture_output=True, text=True)
    return shown.stdout if shown.returncode == 0 else None


def static_checks(git_dir: str, tags: list[str]) -> dict[str, object]:
    """Per tag: does the router refuse static discovery without --static-backends/--static-models, assert
    as many URLs as models, and which pattern keeps a static URL."""
    required, same, regexes = [], [], {}
    for tag in tags:
        names = subprocess.run(
            ["git", "-C", git_dir, "ls-tree", "-r", "--name-only", tag, "src/vllm_router"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        found: set[str] = set()
        for name in names:
            if name.endswith(".py"):
                found |= _constants(_show(git_dir, tag, name) or "")
        version = tag.removeprefix("vllm-stack-")
        if _STATIC_REQUIRED in found:
            required.append(version)
        if _SAME_LENGTH in found:
            same.append(version)
        regex = _url_regex(_show(git_dir, tag, "src/vllm_router/utils.py") or "")
        if regex is not None:
            regexes[version] = regex
    newest = regexes[max(regexes, key=_version_key)]
    return {
        "static_required": required,
        "same_length": same,
        "url_regex": newest,
        "url_regex_releases": [v for v, r in regexes.items() if r == newest],
    }


def production_stack(git_dir: str) -> dict[str, object]:
    """releases (tags ``vllm-stack-X``, as X), flags and options of production-stack's router parser."""
    tags = subprocess.run(
        ["git", "-C", git_dir, "tag", "--list", "vllm-stack-*"], capture_output=True, text=True, check=True
    ).stdout.split()
    read = []
    for tag in sorted(tags, key=lambda t: _version_key(t.removeprefix("vllm-stack-"))):
        for path in ("src/vllm_router/parsers/parser.py", "src/vllm_router/router.py"):
            shown = subprocess.run(
                ["git", "-C", git_dir, "show", f"{tag}:{path}"], capture_output=True, text=True
            )
            if shown.returncode == 0 and "def parse_args" in shown.stdout:
                read.append((tag.removeprefix("vllm-stack-"), parse_args_options(shown.stdout)))
                break
    return {
        "source": "https://github.com/vllm-project/production-stack",
        **_per_release(read),
        **static_checks(git_dir, sorted(tags, key=lambda t: _version_key(t.removeprefix("vllm-stack-")))),
    }


def main() -> int:
    args = sys.argv[1:]
    stack: dict[str, object] | None = None
    if "--production-stack" in args:
        i = args.index("--production-stack")
        stack = production_stack(args[i + 1])
        del args[i : i + 2]
    read = sorted((release_options(Path(a)) for a in args), key=lambda r: _version_key(r[0]))
    data = {
        "package": f"vllm-router {read[-1][0]}",
        "generated_by": "scripts/gen_vllm_router_schema.py",
        "console_script": "vllm_router.launch_router:main",
        **_per_release(read),
    }
    if stack is not None:
        data["production_stack"] = stack
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}: {len(data['flags'])} flags of vllm-router {', '.join(v for v, _ in read)}")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
