#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/sglang_deepep_deepgemm.json: where an SGLang release's DeepEP MoE
layer requires DeepGEMM, and on which GPUs the release enables DeepGEMM, read from the release's wheel by
AST (layers/deepep_deepgemm.py uses it, RS081).

With ``--moe-a2a-backend deepep`` each MoE layer is a ``DeepEPMoE`` (srt/layers/moe/ep_moe/layer.py), whose
constructor asserts ``deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM`` ("DeepEP {mode} mode requires deep_gemm")
when the DeepEP mode enables low latency (``auto``, the default, and ``low_latency``) on CUDA; later
releases assert it only for a quantized checkpoint (``quant_config is not None``). ``ENABLE_JIT_DEEPGEMM``
is computed once at import by ``_compute_enable_deep_gemm`` (srt/layers/deep_gemm_wrapper/configurer.py;
srt/layers/quantization/deep_gemm_wrapper/ before 0.5.4), which returns False below ``sm_version < 90``:
on an Ampere or Ada GPU the assertion fails while the model is built (sglang#12320: the deepep backend on
an RTX 6000 Ada). Recorded per release: the assertion's test, line and message, whether the test needs a
quantized checkpoint, the earlier ``return`` of the constructor and the tests that lead to it without
DeepGEMM (other runner backends, NPU/HIP paths), and the SM below which DeepGEMM is off. A release without
the assertion or the gate is recorded without ``assert_at``: layers/deepep_deepgemm.py says nothing for it.

  pip download sglang==0.5.16 --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_34_x86_64 --platform any -d /tmp/sw
  python scripts/gen_sglang_deepep_deepgemm.py [--check] /tmp/sw/sglang-*.whl
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/sglang_deepep_deepgemm.json"
GENERATOR = "scripts/gen_sglang_deepep_deepgemm.py"
LAYER = "sglang/srt/layers/moe/ep_moe/layer.py"
CONFIGURERS = (
    "sglang/srt/layers/deep_gemm_wrapper/configurer.py",
    "sglang/srt/layers/quantization/deep_gemm_wrapper/configurer.py",
)
_FLAG = "deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM"


def _gate(text: str) -> int | None:
    """The SM (90) below which ``_compute_enable_deep_gemm`` returns False on CUDA."""
    for fn in ast.walk(ast.parse(text)):
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "_compute_enable_deep_gemm"):
            continue
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Name)
                and node.left.id == "sm_version"
                and len(node.ops) == 1
                and isinstance(node.ops[0], ast.Lt)
                and isinstance(node.comparators[0], ast.Constant)
                and isinstance(node.comparators[0].value, int)
            ):
                return node.comparators[0].value
    return None


def _assertion(init: ast.FunctionDef) -> tuple[ast.If, ast.Assert] | None:
    """The ``if ...: assert ENABLE_JIT_DEEPGEMM, "... requires deep_gemm"`` of the constructor's body."""
    for node in init.body:
        if not isinstance(node, ast.If):
            continue
        for inner in node.body:
            if (
                isinstance(inner, ast.Assert)
                and ast.unparse(inner.test) == _FLAG
                and inner.msg is not None
                and "requires deep_gemm" in ast.unparse(inner.msg)
            ):
                return node, inner
    return None


def _escapes(init: ast.FunctionDef, before: int) -> list[str]:
    """The tests of the ``deprecate_flag = True`` branches that precede the constructor's ``return`` (before
    line ``before``) and do not need DeepGEMM: the launches that leave before the assertion without it."""
    returns = [
        n
        for n in init.body
        if isinstance(n, ast.If) and n.lineno < before and any(isinstance(s, ast.Return) for s in n.body)
    ]
    if not returns:
        return []
    out: list[str] = []
    for node in init.body:
        if not (isinstance(node, ast.If) and node.lineno < returns[0].lineno):
            continue
        branch: ast.stmt | None = node
        while isinstance(branch, ast.If):
            sets_true = any(
                isinstance(s, ast.Assign)
                and ast.unparse(s.targets[0]) == "self.deprecate_flag"
                and isinstance(s.value, ast.Constant)
                and s.value.value is True
                for s in branch.body
            )
            test = ast.unparse(branch.test)
            asserts = any(isinstance(s, ast.Assert) and ast.unparse(s.test) == _FLAG for s in branch.body)
            if sets_true and not asserts and _FLAG.split(".")[-1] not in test:
                out.append(test)
            orelse = branch.orelse
            branch = orelse[0] if len(orelse) == 1 and isinstance(orelse[0], ast.If) else None
    return out


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """What a release's modules (path -> text) say about DeepEP's need for DeepGEMM."""
    out: dict[str, Any] = {}
    configurer = next((p for p in CONFIGURERS if p in texts), None)
    layer = texts.get(LAYER)
    if configurer is None or layer is None:
        return out
    gate = _gate(texts[configurer])
    if gate is None:
        return out
    out["gate_sm"] = gate
    out["gate_at"] = configurer.removeprefix("sglang/")
    cls = next(
        (n for n in ast.walk(ast.parse(layer)) if isinstance(n, ast.ClassDef) and n.name == "DeepEPMoE"), None
    )
    init = None
    if cls is not None:
        init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    found = _assertion(init) if init is not None else None
    if init is None or found is None:
        return out
    branch, assertion = found
    test = ast.unparse(branch.test)
    if "enable_low_latency()" not in test:
        return out  # a test this reading does not know: say nothing
    out["assert_at"] = f"{LAYER.removeprefix('sglang/')}:{assertion.lineno}"
    out["assert_test"] = test
    out["needs_quantized"] = "quant_config is not None" in test
    out["escapes"] = _escapes(init, branch.lineno)
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="SGLang wheels")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    wanted = {LAYER, *CONFIGURERS}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), wanted.__contains__, "sglang")
        wheels[release] = wheel
        releases[release] = facts(texts)
    data = {
        "generated_by": GENERATOR,
        "source": "sglang wheels: DeepEPMoE.__init__'s assertion of deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM "
        "(srt/layers/moe/ep_moe/layer.py) and _compute_enable_deep_gemm's SM gate (srt/layers/"
        "deep_gemm_wrapper/configurer.py; srt/layers/quantization/deep_gemm_wrapper/ in older releases)",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
