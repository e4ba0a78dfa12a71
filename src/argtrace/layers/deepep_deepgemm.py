"""DeepEP's low-latency mode on a GPU the release enables no DeepGEMM for (RS081).

With ``--moe-a2a-backend deepep`` each MoE layer of an SGLang server is a ``DeepEPMoE``
(srt/layers/moe/ep_moe/layer.py), whose constructor asserts ``deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM``
("DeepEP {mode} mode requires deep_gemm") when the DeepEP mode enables low latency (``--deepep-mode auto``,
the default, or ``low_latency``) on CUDA. ``ENABLE_JIT_DEEPGEMM`` is False below SM 90
(``_compute_enable_deep_gemm``, srt/layers/deep_gemm_wrapper/configurer.py), so on an Ampere or Ada GPU the
server dies while the model is built (sglang#12320: the deepep backend on an RTX 6000 Ada, SM89). From
0.5.12.post1 the assertion holds for a quantized checkpoint only (``quant_config is not None``).

What each release asserts is read from its wheel (scripts/gen_sglang_deepep_deepgemm.py, frameworks/data/
sglang_deepep_deepgemm.json). Judged only with ``--gpu`` naming an NVIDIA GPU and no ``--moe-runner-backend``
other than auto (other runners take other paths in the constructor). A warning: the GPU is the one ``--gpu``
names, not the node's. Where the release asserts for quantized checkpoints only and the launch writes no
``--quantization``, the checkpoint's own quantization decides: a note. When nothing names the release and the
one the analysis assumes would not assert, a note names the releases read that would.
"""

from __future__ import annotations

from functools import lru_cache

from argtrace.model import Evidence, Finding, LayerResult, Report
from argtrace.package_data import bundled_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# quantization methods whose layer may take the flashinfer_cutedsl path before the assertion (0.5.5 on)
_CUTEDSL = ("modelopt_fp4", "modelopt_mixed")


@lru_cache(maxsize=1)
def _releases() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = bundled_json("frameworks/data/sglang_deepep_deepgemm.json")["releases"]
    return data


def _effective(report: Report, name: str) -> object:
    setting = report.setting(name)
    if setting is None or setting.unknown_to_framework:
        return None
    return setting.effective


def deepep_deepgemm(report: Report, gpu: str | None) -> LayerResult:
    """RS081 for an SGLang server whose DeepEP MoE layers assert DeepGEMM on a GPU below the release's
    DeepGEMM gate."""
    result = LayerResult()
    if report.framework.name != "sglang" or (report.sections.get("parser") or {}).get("exit_status"):
        return result
    if report.written_value("moe_a2a_backend") != "deepep" or not gpu:
        return result
    mode = _effective(report, "deepep_mode") or "auto"
    if mode not in ("auto", "low_latency"):
        return result
    if report.written_value("moe_runner_backend") not in (None, "auto"):
        return result
    from argtrace.layers.device_refusals import _device

    device = _device(gpu)
    if device is None or device.vendor != "nvidia":
        return result
    quantization = report.written_value("quantization")
    if quantization in _CUTEDSL:
        return result
    sm = device.major * 10 + device.minor
    setting = report.setting("moe_a2a_backend")
    at = setting.last_at if setting is not None else None
    release = report.framework.release
    named = report.framework.version is not None
    facts = _releases().get(release or "")
    label = f"{device.label} (compute capability {device.major}.{device.minor})"
    asserts = facts is not None and _asserts(facts, sm)
    if facts is not None and asserts and (not facts["needs_quantized"] or quantization is not None):
        result.findings.append(_finding(release or "", facts, label, str(mode), at, named=named))
        return result
    # a release nothing names: the ones read that assert for any checkpoint (one finding names them)
    others = [
        r
        for r in report.framework.accepted_by or ()
        if r != release
        and (f := _releases().get(r)) is not None
        and _asserts(f, sm)
        and not f["needs_quantized"]
    ]
    if not named and others:
        result.findings.append(_others_note(release or "", others, label, str(mode), at))
    elif facts is not None and asserts:
        result.findings.append(_quantized_note(release or "", facts, label, str(mode), at))
    return result


def _asserts(facts: dict[str, Any], sm: int) -> bool:
    return "assert_at" in facts and sm < int(facts["gate_sm"])


def _fix(mode: str) -> str:
    return (
        "run on a Hopper or newer GPU (DeepGEMM needs SM 90), or drop --moe-a2a-backend deepep (or use "
        f"--deepep-mode normal, which this assertion does not test, instead of {mode})"
    )


def _evidence(release: str, facts: dict[str, Any], mode: str, at: str | None) -> list[Evidence]:
    return [
        Evidence("parser", at, f"moe_a2a_backend=deepep, deepep_mode={mode}"),
        Evidence(
            "resolution",
            f"sglang {release}: {facts['assert_at']}, {facts['gate_at']}",
            f"DeepEPMoE asserts ENABLE_JIT_DEEPGEMM when {facts['assert_test']}; "
            f"_compute_enable_deep_gemm returns False below SM {facts['gate_sm']}",
        ),
    ]


def _finding(
    release: str, facts: dict[str, Any], label: str, mode: str, at: str | None, *, named: bool
) -> Finding:
    from argtrace.rules.start_values import RS081

    assumed = "" if named else " (assumed: nothing names the release; the newest that takes these flags)"
    which = "each quantized MoE layer" if facts["needs_quantized"] else "each MoE layer"
    return RS081.finding(
        f"sglang {release} cannot build DeepEP MoE layers in {mode} mode on {label}: with --moe-a2a-backend "
        f'deepep {which} asserts DeepGEMM ("DeepEP DeepEPMode.{mode.upper()} mode requires deep_gemm", '
        f"sglang/{facts['assert_at']}), which the release turns off below SM {facts['gate_sm']} "
        f"(_compute_enable_deep_gemm, sglang/{facts['gate_at']}): the server dies while the model is "
        f"built{assumed}",
        at=at,
        evidence=_evidence(release, facts, mode, at),
        setting="moe_a2a_backend",
        fix=_fix(mode),
        severity=None if named else "warning",
        basis=None if named else "assumed",
    )


def _quantized_note(release: str, facts: dict[str, Any], label: str, mode: str, at: str | None) -> Finding:
    from argtrace.rules.start_values import RS081

    return RS081.finding(
        f"if the checkpoint is quantized (FP8, W4A8, ...), sglang {release} cannot build its DeepEP MoE "
        f'layers in {mode} mode on {label}: each quantized MoE layer asserts DeepGEMM ("DeepEP '
        f'DeepEPMode.{mode.upper()} mode requires deep_gemm", sglang/{facts["assert_at"]}), which the '
        f"release turns off below SM {facts['gate_sm']} (sglang/{facts['gate_at']}); an unquantized one "
        "skips the assertion",
        at=at,
        evidence=_evidence(release, facts, mode, at),
        setting="moe_a2a_backend",
        fix=_fix(mode),
        severity="info",
        basis="assumed",
    )


def _others_note(release: str, others: list[str], label: str, mode: str, at: str | None) -> Finding:
    from argtrace.layers.disagg_spec import _span
    from argtrace.rules.start_values import RS081

    return RS081.finding(
        f'if this runs sglang {_span(others)}, its DeepEP MoE layers assert DeepGEMM in {mode} mode ("DeepEP '
        f'DeepEPMode.{mode.upper()} mode requires deep_gemm"), which is off below SM '
        f"{_releases()[others[-1]]['gate_sm']}: on {label} the "
        f"server dies while the model is built; sglang {release}, which the analysis assumes, asserts it for "
        "a quantized checkpoint only (--quantization, or the checkpoint's own)",
        at=at,
        evidence=[Evidence("parser", at, f"moe_a2a_backend=deepep, deepep_mode={mode}")],
        setting="moe_a2a_backend",
        fix=_fix(mode),
        severity="info",
        basis="assumed",
    )
