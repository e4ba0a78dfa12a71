#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/sglang_trtllm_mla_prefill.json: which GPUs an SGLang release's TRTLLM
MLA backend can run its prefill on, read from the release's wheel and from the FlashInfer wheel it pins
(layers/trtllm_mla_prefill.py uses it, RS082).

SGLang's argument check accepts ``--attention-backend trtllm_mla`` on every Blackwell GPU ("TRTLLM MLA
backend is only supported on Blackwell GPUs (SM100/SM12x)", ``not is_blackwell_supported()`` in
srt/server_args.py, ``get_platform().is_blackwell`` in srt/arg_groups/overrides.py from 0.5.19). Its prefill
(``TRTLLMMLABackend``, srt/layers/attention/trtllm_mla_backend.py) calls
``flashinfer.prefill.trtllm_ragged_attention_deepseek``, whose TRT-LLM-gen runner checks the device first:
``FLASHINFER_CHECK(mSM == kSM_100 || mSM == kSM_103, "Unsupported architecture")`` in ``TllmGenFmhaRunner``'s
constructor (flashinfer/data/include/flashinfer/trtllm/fmha/fmhaRunner.cuh, flashinfer-python 0.6.7.post3
line 30; kSM_107 added by 0.7.2). So on an SM120/SM121 GPU the argument check passes and the first prefill
(the server's warm-up request) dies (sglang#24633: an RTX PRO 6000 on 0.5.10; sglang#17880: an RTX 6000D).

Recorded per SGLang release: where the backend calls the ragged prefill kernel (the method and line), the
probes of the argument check's test and where it raises, and the pinned ``flashinfer_python`` release
(METADATA's Requires-Dist); per FlashInfer release: the SM values the runner accepts and where. A release
whose backend does not call the kernel, or a FlashInfer release whose check is not found, is recorded without
them: layers/trtllm_mla_prefill.py says nothing for it.

  pip download sglang==0.5.10.post1 --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_34_x86_64 --platform any -d /tmp/sw
  pip download flashinfer-python==0.6.7.post3 --no-deps --only-binary=:all: -d /tmp/fi
  python scripts/gen_sglang_trtllm_mla_prefill.py [--check] --flashinfer /tmp/fi/*.whl -- /tmp/sw/sglang-*.whl
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/sglang_trtllm_mla_prefill.json"
GENERATOR = "scripts/gen_sglang_trtllm_mla_prefill.py"
BACKEND = "sglang/srt/layers/attention/trtllm_mla_backend.py"
CHECKS = ("sglang/srt/server_args.py", "sglang/srt/arg_groups/overrides.py")
KERNEL = "trtllm_ragged_attention_deepseek"
MESSAGE = "TRTLLM MLA backend is only supported"
RUNNER = "flashinfer/data/include/flashinfer/trtllm/fmha/fmhaRunner.cuh"
_PIN = re.compile(r"^Requires-Dist: flashinfer[_-]python(?:\[[^\]]*\])?\s*==\s*([0-9][^\s;,]*)", re.M)
_SM = re.compile(
    r"FLASHINFER_CHECK\(((?:\s*(?:\|\|)?\s*mSM\s*==\s*kSM_\d+)+)\s*,\s*\"Unsupported architecture\""
)


def _kernel_call(text: str) -> str | None:
    """``Class.method:line`` of the first call of ``flashinfer.prefill.trtllm_ragged_attention_deepseek``."""
    tree = ast.parse(text)
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and ast.unparse(node.func).endswith(f"prefill.{KERNEL}"):
                    return f"{cls.name}.{fn.name}:{node.lineno}"
    return None


def _probes(test: ast.expr) -> set[str]:
    """The device probes a test calls: ``is_blackwell_supported()``, ``get_platform().is_blackwell``."""
    found: set[str] = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("is_"):
            found.add(node.func.id)
        elif isinstance(node, ast.Attribute) and ast.unparse(node.value) == "get_platform()":
            found.add(node.attr)
    return found


def _argument_check(path: str, text: str) -> dict[str, Any] | None:
    """The probes (``is_blackwell_supported``, ``get_platform().is_blackwell``) of the ``if`` whose body
    raises "TRTLLM MLA backend is only supported ...", and where it raises."""
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.If):
            continue
        for inner in node.body:
            if isinstance(inner, ast.Raise) and MESSAGE in ast.unparse(inner):
                probes = sorted(_probes(node.test))
                return {
                    "check_at": f"{path.removeprefix('sglang/')}:{inner.lineno}",
                    "check_test": ast.unparse(node.test),
                    "check_probes": probes,
                }
    return None


def release_facts(texts: dict[str, str], metadata: str) -> dict[str, Any]:
    """What a release's modules (path -> text) and METADATA say about its TRTLLM MLA prefill."""
    out: dict[str, Any] = {}
    pin = _PIN.search(metadata)
    if pin is not None:
        out["flashinfer"] = pin.group(1)
    backend = texts.get(BACKEND)
    call = _kernel_call(backend) if backend is not None else None
    if call is not None:
        method, line = call.rsplit(":", 1)
        out["kernel_at"] = f"{BACKEND.removeprefix('sglang/')}:{line}"
        out["kernel_method"] = method
    for path in CHECKS:
        if path in texts and (check := _argument_check(path, texts[path])) is not None:
            out.update(check)
            break
    return out


def runner_facts(header: str) -> dict[str, Any]:
    """The SM values ``TllmGenFmhaRunner``'s constructor accepts, and the line of its check."""
    found = _SM.search(header)
    if found is None:
        return {}
    line = header.count("\n", 0, found.start()) + 1
    return {
        "runner_sms": sorted(int(s) for s in re.findall(r"kSM_(\d+)", found.group(1))),
        "runner_at": f"{RUNNER.removeprefix('flashinfer/data/include/')}:{line}",
    }


def _flashinfer(path: Path) -> tuple[str, dict[str, Any]]:
    release = path.name.split("-")[1]
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        header = archive.read(RUNNER).decode() if RUNNER in names else ""
    return release, runner_facts(header)


def _metadata(path: Path) -> str:
    with zipfile.ZipFile(path) as archive:
        name = next((n for n in archive.namelist() if n.endswith(".dist-info/METADATA")), None)
        return archive.read(name).decode() if name is not None else ""


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="SGLang wheels")
    ap.add_argument("--flashinfer", nargs="*", default=[], help="the flashinfer-python wheels they pin")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    wanted = {BACKEND, *CHECKS}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), wanted.__contains__, "sglang")
        wheels[release] = wheel
        releases[release] = release_facts(texts, _metadata(Path(path)))
    runners = dict(_flashinfer(Path(p)) for p in args.flashinfer)
    data = {
        "generated_by": GENERATOR,
        "source": (
            "sglang wheels: TRTLLMMLABackend's call of flashinfer.prefill.trtllm_ragged_attention_deepseek "
            "(srt/layers/attention/trtllm_mla_backend.py), the argument check raising 'TRTLLM MLA backend is "
            "only supported ...' (srt/server_args.py, srt/arg_groups/overrides.py) and METADATA's "
            "flashinfer_python pin; flashinfer-python wheels: TllmGenFmhaRunner's device check "
            "(include/flashinfer/trtllm/fmha/fmhaRunner.cuh)"
        ),
        "wheels": wheels,
        "releases": releases,
        "flashinfer": runners,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
