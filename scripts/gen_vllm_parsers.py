#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_parsers.json: the tool-call and reasoning parser names each bundled
vLLM release registers, and where its start-up refuses another name, read from the release's own source.

``--tool-call-parser`` never has argparse choices (its metavar lists the names and "or name registered in
--tool-parser-plugin"), and ``--reasoning-parser`` has none from 0.11.2 ("Choices need to be validated after
parsing to include plugins"): the check is the serve command's validation before the engine starts
(``validate_api_server_args``, ``KeyError: 'invalid tool call parser: NAME (chose from { ... })'`` and its
reasoning twin). A name counts as registered when the release's code registers it:

- ``ToolParserManager.register_module(...)`` / ``ReasoningParserManager.register_module(...)`` calls and
  decorators (a name or a list of names, or ``name=``), and ``register_lazy_module(NAME, ...)`` calls with a
  literal name, anywhere in the wheel;
- the keys of a module-level ``{NAME: (module, class)}`` table whose name says it lists tool or reasoning
  parsers (``_TOOL_PARSERS_TO_REGISTER``, ``_REASONING_PARSERS_TO_REGISTER``).

For each kind the release's refusal is recorded (file:line of the ``raise`` whose text says "invalid tool call
parser" / "invalid reasoning parser" in the API server's validation, not the batch runner's), and the switches
the test guarding it also reads (``enable_auto_tool_choice``; ``enable_reasoning`` in 0.7.3). A kind whose
flag keeps argparse choices in the release's schema is not read (argparse refuses the word). Nothing is typed
by hand.

    python scripts/gen_vllm_parsers.py [--wheels DIR] [--check]
"""

from __future__ import annotations

import argparse
import ast
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test

from argtrace.frameworks.schema import bundled_versions, load_schema, version_key  # noqa: E402
from argtrace.resolver import environments  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_parsers.json"
GENERATOR = "scripts/gen_vllm_parsers.py"
# kind -> (the manager class, the word a registry table's name holds, the refusal's text, the flag)
KINDS = {
    "tool": ("ToolParserManager", "TOOL_PARSER", "invalid tool call parser", "--tool-call-parser"),
    "reasoning": (
        "ReasoningParserManager",
        "REASONING_PARSER",
        "invalid reasoning parser",
        "--reasoning-parser",
    ),
}
# the batch runner validates the same names again; the server's own refusal is the one a launch meets
NOT_THE_SERVER = ("run_batch",)
# the switches a refusal's guard may read: without them the name is never checked
SWITCHES = ("enable_auto_tool_choice", "enable_reasoning")


def _names(node: ast.AST) -> list[str]:
    """A literal name, or the literal names of a list or tuple."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def registered_calls(source: str, manager: str) -> set[str]:
    """Names given to ``MANAGER.register_module(...)`` or ``MANAGER.register_lazy_module(...)``."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value
        if node.func.attr not in ("register_module", "register_lazy_module") or not (
            isinstance(owner, ast.Name) and owner.id == manager
        ):
            continue
        if node.args:
            out.update(_names(node.args[0]))
        for kw in node.keywords:
            if kw.arg in ("name", "module_name", "names"):
                out.update(_names(kw.value))
    return out


def registry_table(source: str, word: str) -> set[str]:
    """The keys of module-level ``{NAME: (module, class)}`` tables whose name holds ``word``."""
    out: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        else:
            continue
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if not isinstance(value, ast.Dict) or not any(word in n.upper() for n in names):
            continue
        keys = [k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        if keys and len(keys) == len(value.keys) and all(isinstance(v, ast.Tuple) for v in value.values):
            out.update(keys)
    return out


def refusals(source: str, text: str) -> list[tuple[int, tuple[str, ...]]]:
    """(line, the switches the guarding ``if`` reads) of each ``raise`` whose text holds ``text``."""
    out: list[tuple[int, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.If):
            continue
        for stmt in node.body:
            for inner in ast.walk(stmt):
                if isinstance(inner, ast.Raise) and text in ast.unparse(inner):
                    test = ast.unparse(node.test)
                    out.append((inner.lineno, tuple(s for s in SWITCHES if s in test)))
    return sorted(set(out))


def read_wheel(wheel: Path, kinds: list[str]) -> dict[str, Any]:
    """Each kind's registered names and refusal, from one wheel."""
    found: dict[str, dict[str, Any]] = {k: {"registered": set(), "refusals": []} for k in kinds}
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(n for n in zf.namelist() if n.startswith("vllm/") and n.endswith(".py")):
            text = zf.read(name).decode("utf-8", "replace")
            for kind in kinds:
                manager, word, refusal, _ = KINDS[kind]
                record = found[kind]
                if manager in text or word in text.upper():
                    record["registered"] |= registered_calls(text, manager) | registry_table(text, word)
                if refusal in text and not any(n in name for n in NOT_THE_SERVER):
                    record["refusals"] += [(name, line, needs) for line, needs in refusals(text, refusal)]
    out: dict[str, Any] = {}
    for kind, record in found.items():
        if not record["refusals"] or not record["registered"]:
            continue  # nothing refuses a name at start (or nothing registers one): not judged
        # the serve command's own check runs before any configuration object is built (0.11.2-0.12.0 also
        # check in StructuredOutputsConfig): the entry point's refusal is the one a launch meets
        sites = sorted(record["refusals"], key=lambda s: ("/entrypoints/" not in s[0], s[0], s[1]))
        name, line, needs = sites[0]
        out[kind] = {
            "registered": sorted(record["registered"]),
            "at": f"{name}:{line}",
            "needs": list(needs),
        }
    return out


def kinds_to_read(version: str) -> list[str]:
    """The kinds whose flag the release's schema takes as a free word (no argparse choices)."""
    schema = load_schema("vllm", version)
    out = []
    for kind, (_, _, _, flag) in KINDS.items():
        option = schema.option(flag)
        if option is not None and not option.choices:
            out.append(kind)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels", type=Path, default=None)
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    for version in sorted(bundled_versions("vllm", include_user=False), key=version_key):
        kinds = kinds_to_read(version)
        if not kinds:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            found = sorted(args.wheels.glob(f"vllm-{version}-*.whl")) if args.wheels else []
            wheel = found[0] if found else environments.download_wheel("vllm", version, Path(tmp))
            record = read_wheel(wheel, kinds)
        if record:
            releases[version] = record
        print(f"vllm {version}: { {k: len(v['registered']) for k, v in record.items()} }", file=sys.stderr)
    data = {"format": 1, "generated_by": GENERATOR, "releases": releases}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
