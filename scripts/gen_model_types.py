"""Generate src/argtrace/data/transformers_model_types.json: the model types (config.json ``model_type``) each
transformers release's AutoConfig knows, read from the wheels' ``models/auto/configuration_auto.py`` and
(5.x) ``auto_mappings.py`` (``CONFIG_MAPPING_NAMES`` and its updates, parsed, not imported); and the tokenizer
class names its AutoTokenizer maps model types to (``TOKENIZER_MAPPING_NAMES`` in
``models/auto/tokenization_auto.py``: 5.x's ``TokenizersBackend`` among them), for a tokenizer_config.json's
``tokenizer_class`` an older transformers does not have (LlamaFactory#10310); and the processor class names
its AutoProcessor maps model types to (``PROCESSOR_MAPPING_NAMES`` in ``models/auto/processing_auto.py``,
5.x's ``auto_mappings.py``), so that a call TypeError naming one (``Glm4vProcessor.__init__() got multiple
values for argument 'tokenizer'``, GLM-V#8) is known to be transformers' class.

``why`` reads it for Python's KeyError of a model type (``KeyError: 'qwen3'``: transformers' CONFIG_MAPPING
lookup before it turned into "does not recognize this architecture"): a type transformers knows from a later
release, or none does (the checkpoint's own code).

    python scripts/gen_model_types.py --wheel-dir /tmp/w     # transformers-*.whl there (pip download)
    python scripts/gen_model_types.py --wheel-dir /tmp/w --check
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated_json import write_or_check

OUT = Path(__file__).resolve().parents[1] / "src" / "argtrace" / "data" / "transformers_model_types.json"
RELEASES = ("4.46.3", "4.51.3", "4.57.6", "5.23.0")
_MODULE = "transformers/models/auto/configuration_auto.py"
_MAPPINGS = "transformers/models/auto/auto_mappings.py"
_TOKENIZERS = "transformers/models/auto/tokenization_auto.py"
_PROCESSORS = "transformers/models/auto/processing_auto.py"
_CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9]*(?:Tokenizer|Backend)[A-Za-z0-9]*")
_PROCESSOR_NAME = re.compile(r"[A-Z][A-Za-z0-9]*Processor")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def _keys(node: ast.AST) -> list[str]:
    """The string keys of a mapping literal: ``{...}``, ``OrderedDict([(k, v), ...])``, ``OrderedDict(**{...},
    **other)``."""
    if isinstance(node, ast.Dict):
        return [str(k.value) for k in node.keys if isinstance(k, ast.Constant)]
    if isinstance(node, ast.Call):
        out = [k for a in node.args for k in _keys(a)] + [k for kw in node.keywords for k in _keys(kw.value)]
        return out
    if isinstance(node, ast.List | ast.Tuple):
        return [
            str(e.elts[0].value)
            for e in node.elts
            if isinstance(e, ast.Tuple) and e.elts and isinstance(e.elts[0], ast.Constant)
        ]
    return []


def model_types(source: str) -> list[str]:
    """The keys ``CONFIG_MAPPING_NAMES`` gets in a source: its assignments and its ``.update(...)`` calls."""
    keys: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is not None and any(
                isinstance(t, ast.Name) and t.id == "CONFIG_MAPPING_NAMES" for t in targets
            ):
                keys.update(_keys(node.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "update"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "CONFIG_MAPPING_NAMES"
        ):
            keys.update(k for a in node.args for k in _keys(a))
    return sorted(keys)


def _is_table(node: ast.AST, table: str = "TOKENIZER_MAPPING_NAMES") -> bool:
    """``TOKENIZER_MAPPING_NAMES`` (or ``table``) or one of its items (``TABLE[model_type]``)."""
    if isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Name) and node.id == table


def tokenizer_classes(
    source: str, table: str = "TOKENIZER_MAPPING_NAMES", pattern: re.Pattern[str] = _CLASS_NAME
) -> list[str]:
    """The tokenizer class names ``TOKENIZER_MAPPING_NAMES`` maps to in a source: every class-like string in
    the values of its assignments, its items' assignments and its ``.update(...)`` calls (4.x: pairs of slow
    and fast names; 5.x: one name, ``"TokenizersBackend" if is_tokenizers_available() else None``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        value: ast.AST | None = None
        if isinstance(node, ast.Assign) and any(_is_table(t, table) for t in node.targets):
            value = node.value
        elif isinstance(node, ast.AnnAssign) and _is_table(node.target, table):
            value = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "update"
            and _is_table(node.func.value, table)
        ):
            value = ast.Tuple(elts=list(node.args), ctx=ast.Load())
        for inner in ast.walk(value) if value is not None else ():
            if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                if pattern.fullmatch(inner.value):
                    names.add(inner.value)
    return sorted(names)


def build(wheel_dir: Path) -> dict[str, object]:
    per: dict[str, list[int]] = {}
    classes: dict[str, list[int]] = {}
    processors: dict[str, list[int]] = {}
    for i, release in enumerate(RELEASES):
        wheel = wheel_dir / f"transformers-{release}-py3-none-any.whl"
        if not wheel.is_file():
            raise SystemExit(
                f"{wheel} missing: pip download --no-deps transformers=={release} -d {wheel_dir}"
            )
        names: set[str] = set()
        with zipfile.ZipFile(wheel) as z:
            for module in (_MODULE, _MAPPINGS):  # 5.x keeps the table in auto_mappings.py
                if module in z.namelist():
                    names.update(model_types(z.read(module).decode("utf-8")))
            found = tokenizer_classes(z.read(_TOKENIZERS).decode("utf-8"))
            procs: set[str] = set()
            for module in (_PROCESSORS, _MAPPINGS):  # 5.x keeps the table in auto_mappings.py
                if module in z.namelist():
                    source = z.read(module).decode("utf-8")
                    procs.update(tokenizer_classes(source, "PROCESSOR_MAPPING_NAMES", _PROCESSOR_NAME))
        if not names:
            raise SystemExit(f"{wheel}: no CONFIG_MAPPING_NAMES keys found")
        if not found:
            raise SystemExit(f"{wheel}: no TOKENIZER_MAPPING_NAMES classes found")
        if not procs:
            raise SystemExit(f"{wheel}: no PROCESSOR_MAPPING_NAMES classes found")
        for name in sorted(procs):
            processors.setdefault(name, []).append(i)
        for name in sorted(names):
            per.setdefault(name, []).append(i)
        for name in found:
            classes.setdefault(name, []).append(i)
    return {
        "generated_by": "scripts/gen_model_types.py",
        "modules": [_MODULE, _MAPPINGS, _TOKENIZERS, _PROCESSORS],
        "releases": sorted(RELEASES, key=_version_key),
        "model_types": per,
        "tokenizer_classes": classes,
        "processor_classes": processors,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--wheel-dir", type=Path, required=True)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    return write_or_check(OUT, build(args.wheel_dir), "scripts/gen_model_types.py", check=args.check)


if __name__ == "__main__":
    sys.exit(main())
