#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/entrypoint_index.json: one flag list per entry point and release,
from the generated dumps of the frameworks' real parsers (nothing typed by hand).

Sources, each generated from the release's own code:

* ``vllm serve``, ``python -m vllm.entrypoints.openai.api_server``, ``python -m sglang.launch_server`` and
  ``sglang serve`` (the LLM server): the bundled schemas (``scripts/gen_schemas.py``); each schema's
  ``parser.entrypoints`` says which of these commands parse with it in that release, its ``lacks`` what
  the module's parser does not have of it, and ``parser.parse_method`` how it parses;
* ``python -m vllm.entrypoints.api_server`` (vLLM's demo server): ``data/vllm_demo_server.json``
  (``scripts/gen_vllm_demo_server.py``; its dumper stops the module's ``__main__`` block at
  ``parse_args``, so a demo that parsed with ``parse_known_args`` would have failed generation);
* ``sglang serve`` with a diffusion model: ``frameworks/data/sglang_diffusion_options.json``
  (``scripts/gen_sglang_diffusion_options.py``);
* ``python -m sglang_router.launch_server``: ``frameworks/data/sglang_router.json`` (the router's own
  options) plus the SGLang release's server options.

For each entry point: the releases it exists in, the option count per release, how it parses, and the
option strings with the releases (by position) that take each. An option string every release of the
entry point shares with its framework's main parser is still listed: the file answers "does this entry
point take --x in release R" without loading a schema.

    python scripts/gen_entrypoint_index.py
    python scripts/gen_entrypoint_index.py --check
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.frameworks.schema import Schema, bundled_versions, load_schema, version_key  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "entrypoint_index.json"
DATA = ROOT / "src" / "argtrace" / "frameworks" / "data"


def _strings(schema: Schema) -> set[str]:
    return {s for spec in schema.options for s in spec.option_strings}


def _runs(positions: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for p in sorted(positions):
        if runs and runs[-1][0] + runs[-1][1] == p:
            runs[-1][1] += 1
        else:
            runs.append([p, 1])
    return runs


class Entry:
    def __init__(self, framework: str, name: str, command: str, parse: str, source: str) -> None:
        self.framework, self.name, self.command, self.parse, self.source = (
            framework,
            name,
            command,
            parse,
            source,
        )
        self.releases: list[str] = []
        self.counts: dict[str, int] = {}
        self.flags: dict[str, list[str]] = {}
        self.missing: dict[str, str] = {}  # release -> why the entry point does not start there
        self.models = ""
        self.where = ""  # where the newest release builds the parser or parses (file:line)
        self.package = ""  # a package released apart from the framework (sglang-router)
        # the program names argparse prints before "error:" (``prog``): the console script's name, a
        # module's file name under ``python -m``, and a prog the release's parser sets itself
        first = command.split()[0] if not command.startswith("python -m ") else None
        module = command.split()[2] if command.startswith("python -m ") else None
        self.progs: set[str] = {first} if first else {module.rsplit(".", 1)[-1] + ".py"} if module else set()

    def add(self, version: str, strings: set[str]) -> None:
        self.releases.append(version)
        self.counts[version] = len(strings)
        for s in strings:
            self.flags.setdefault(s, []).append(version)

    def as_json(self) -> dict[str, Any]:
        index = {v: i for i, v in enumerate(self.releases)}
        return {
            "framework": self.framework,
            "command": self.command,
            "parse": self.parse,
            # whether a word no option takes stops the launch ("refused") or is dropped unseen ("dropped")
            "unknown": "refused"
            if "refuses" in self.parse or self.parse.startswith("parse_args")
            else "dropped",
            "source": self.source,
            "releases": self.releases,
            "option_counts": self.counts,
            "missing": self.missing,
            "progs": sorted(self.progs),
            "where": self.where,
            **({"models": self.models} if self.models else {}),
            **({"package": self.package} if self.package else {}),
            # runs of release positions, [first, how many] each: most flags live in one run of releases
            "flags": {f: _runs([index[v] for v in vs]) for f, vs in sorted(self.flags.items())},
        }


def main_parser_entries(framework: str) -> list[Entry]:
    if framework == "vllm":
        names = {
            "vllm serve": "vllm serve",
            "python -m vllm.entrypoints.openai.api_server": "vllm.entrypoints.openai.api_server",
        }
    else:
        names = {"python -m sglang.launch_server": "sglang.launch_server", "sglang serve": "sglang serve"}
    entries: dict[str, Entry] = {}
    for version in sorted(bundled_versions(framework, include_user=False), key=version_key):
        schema = load_schema(framework, version)
        parse = str(schema.parser_info.get("parse_method") or "parse_args")
        strings = _strings(schema)
        listed = {str(e.get("command")): e for e in schema.parser_info.get("entrypoints") or ()}
        for command, name in names.items():
            entry = entries.setdefault(
                name,
                Entry(
                    framework,
                    name,
                    command,
                    "parse_args" if parse.startswith("parse_args") else parse,
                    f"the bundled schemas ({framework}-RELEASE.json, scripts/gen_schemas.py)",
                ),
            )
            e = listed.get(command)
            if e is None or e.get("error"):
                entry.missing[version] = str((e or {}).get("error") or "not among the release's entry points")
                continue
            prog = str(schema.parser_info.get("prog") or "")
            # a prog the release sets (not the dumper's file name), for the command it names or the one
            # whose parser is built where the schema's is (sglang's prepare_server_args)
            if (
                prog
                and not prog.startswith("dump_")
                and (prog == command or e.get("where") == schema.parser_info.get("built_by"))
            ):
                entry.progs.add(prog)
            entry.where = str(schema.parser_info.get("built_by") or e.get("where") or "")
            lacks = {str(x) for x in e.get("lacks") or ()}
            entry.add(version, strings - lacks)
    return list(entries.values())


def demo_entry() -> Entry:
    from argtrace.frameworks.vllm_demo import _table, demo_schema

    entry = Entry(
        "vllm",
        "vllm.entrypoints.api_server",
        "python -m vllm.entrypoints.api_server",
        "parse_args",
        "data/vllm_demo_server.json (scripts/gen_vllm_demo_server.py)",
    )
    for version, release in sorted(_table()["releases"].items(), key=lambda kv: version_key(kv[0])):
        if not release.get("ships"):
            entry.missing[version] = "No module named vllm.entrypoints.api_server"
            continue
        if release.get("crash"):
            entry.missing[version] = (
                f"its __main__ block raises before parsing: {release['crash']['exception']}"
            )
            continue
        entry.where = str((release.get("parser") or {}).get("entrypoints", [{}])[0].get("where") or "")
        demo = demo_schema(load_schema("vllm", version))
        assert demo is not None
        entry.add(version, _strings(demo))
    return entry


def diffusion_entry() -> Entry:
    from argtrace.frameworks.sglang_diffusion import release_data

    entry = Entry(
        "sglang",
        "sglang serve (diffusion)",
        "sglang serve (a diffusion model)",
        "parse_known_args, then ServerArgs.from_cli_args refuses the words left (an error)",
        "frameworks/data/sglang_diffusion_options.json (scripts/gen_sglang_diffusion_options.py)",
    )
    entry.models = "diffusion"  # sglang/cli/serve.py dispatches here for a diffusion model only
    for version, release in sorted(release_data().items(), key=lambda kv: version_key(kv[0])):
        entry.where = str(release.get("read_from") or "")
        entry.add(version, set(release["options"]))
    return entry


def router_entry() -> Entry:
    data = json.loads((DATA / "sglang_router.json").read_text())
    own = {s for o in data["options"] for s in o["flags"]}
    entry = Entry(
        "sglang",
        "sglang_router.launch_server",
        "python -m sglang_router.launch_server",
        "parse_args",
        f"frameworks/data/sglang_router.json ({data['package']}, scripts/gen_router_schema.py) plus "
        "the SGLang release's server options",
    )
    entry.package = str(data["package"])
    for version in sorted(bundled_versions("sglang", include_user=False), key=version_key):
        entry.add(version, own | _strings(load_schema("sglang", version)))
    return entry


def build() -> dict[str, Any]:
    entries = [
        *main_parser_entries("vllm"),
        demo_entry(),
        *main_parser_entries("sglang"),
        diffusion_entry(),
        router_entry(),
    ]
    return {
        "generated_by": "scripts/gen_entrypoint_index.py",
        "entrypoints": {e.name: e.as_json() for e in entries},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--counts", action="store_true", help="print each entry point's option count per release")
    a = ap.parse_args()
    data = build()
    if a.counts:
        for e in data["entrypoints"].values():
            counts = e["option_counts"]
            span = f"{e['releases'][0]}..{e['releases'][-1]}" if e["releases"] else "none"
            print(
                f"{e['command']}: {len(e['releases'])} releases ({span}), options "
                f"{min(counts.values())}-{max(counts.values())}; missing in {len(e['missing'])}"
            )
            print("   " + ", ".join(f"{v}={n}" for v, n in counts.items()))
    text = json.dumps(data, indent=None, separators=(",", ":"), sort_keys=False) + "\n"
    if a.check:
        same = OUT.exists() and OUT.read_text() == text
        print("equal" if same else f"{OUT} differs")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT}: {len(data['entrypoints'])} entry points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
