"""SGLang's TRTLLM MLA backend prefilling on a Blackwell GPU FlashInfer's TRT-LLM-gen runner refuses (RS082).

SGLang's argument check accepts ``--attention-backend trtllm_mla`` on every Blackwell GPU ("TRTLLM MLA
backend is only supported on Blackwell GPUs (SM100/SM12x)": ``not is_blackwell_supported()``,
srt/server_args.py; ``get_platform().is_blackwell``, srt/arg_groups/overrides.py). The backend's prefill
(``TRTLLMMLABackend``, srt/layers/attention/trtllm_mla_backend.py) calls
``flashinfer.prefill.trtllm_ragged_attention_deepseek``, whose ``TllmGenFmhaRunner`` accepts SM100/SM103
only (``FLASHINFER_CHECK(mSM == kSM_100 || mSM == kSM_103, "Unsupported architecture")``, flashinfer-python
0.6.7.post3's include/flashinfer/trtllm/fmha/fmhaRunner.cuh:30; SM107 added by 0.7.2). On an SM120 RTX PRO
6000 or RTX 50xx the argument check passes and the first prefill, the server's warm-up request, dies
(sglang#24633 on 0.5.10; sglang#17880 on an RTX 6000D).

What each release calls, the probes of its check and the FlashInfer it pins, and what each pinned FlashInfer
accepts, are read from the wheels (scripts/gen_sglang_trtllm_mla_prefill.py, frameworks/data/
sglang_trtllm_mla_prefill.json). Judged only with ``--gpu`` naming an NVIDIA GPU the release's own check
accepts (one it refuses is RS036's), for the prefill backend the launch writes
(``--prefill-attention-backend``, else ``--attention-backend``). A warning: the GPU is the one ``--gpu``
names, and the FlashInfer installed is assumed to be the one the release pins. A release nothing names is
analysed as the newest bundled one (PR011): the finding then says it rests on that assumption.
"""

from __future__ import annotations

from functools import lru_cache

from argtrace.model import Evidence, Finding, Report
from argtrace.package_data import bundled_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_BACKEND = "trtllm_mla"


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    data: dict[str, Any] = bundled_json("frameworks/data/sglang_trtllm_mla_prefill.json")
    return data


def _accepted_majors(probes: list[str]) -> frozenset[int] | None:
    """The compute-capability majors the argument check's probes accept (device_refusals' table); None when a
    probe is not known there."""
    from argtrace.layers.device_refusals import _MAJORS, _PLATFORM

    majors: set[int] = set()
    for probe in probes:
        known = _MAJORS.get(_PLATFORM.get(probe, probe))
        if known is None:
            return None
        majors |= known[0]
    return frozenset(majors) if majors else None


def trtllm_mla_prefill(report: Report, gpu: str) -> list[Finding]:
    """RS082 for an SGLang server whose TRTLLM MLA prefill runs on a GPU the pinned FlashInfer's TRT-LLM-gen
    runner refuses."""
    if report.framework.name != "sglang" or (report.sections.get("parser") or {}).get("exit_status"):
        return []
    written = "prefill_attention_backend"
    backend = report.written_value(written)
    if backend is None:
        written = "attention_backend"
        backend = report.written_value(written)
    if backend != _BACKEND:
        return []
    from argtrace.layers.device_refusals import _device

    device = _device(gpu)
    release = report.framework.release or ""
    read = _read_release(release)
    facts = _data()["releases"].get(read or "") or {}
    runner = _data()["flashinfer"].get(facts.get("flashinfer") or "") or {}
    if device is None or device.vendor != "nvidia" or "kernel_at" not in facts or "runner_sms" not in runner:
        return []
    majors = _accepted_majors(list(facts.get("check_probes") or ()))
    if majors is None or device.major not in majors:
        return []  # the release's own check refuses the GPU (RS036), or what it accepts is not known
    sm = device.major * 10 + device.minor
    if sm in runner["runner_sms"]:
        return []
    setting = report.setting(written)
    at = setting.last_at if setting is not None else None
    said = release if read == release else f"{release} (read from {read}, the bundled release of its family)"
    return [_finding(report, said, facts, runner, device.label, (device.major, device.minor), written, at)]


def _read_release(release: str) -> str | None:
    """``release`` when its wheel was read, else the read release of its family (0.5.10 -> 0.5.10.post1)."""
    releases = _data()["releases"]
    if release in releases or not release:
        return release or None
    from argtrace.frameworks.schema import nearest_bundled, release_family, version_key

    family = sorted(
        (r for r in releases if release_family("sglang", r) == release_family("sglang", release)),
        key=version_key,
    )
    return nearest_bundled("sglang", release, family) if family else None


def _finding(
    report: Report,
    release: str,
    facts: dict[str, Any],
    runner: dict[str, Any],
    label: str,
    capability: tuple[int, int],
    written: str,
    at: str | None,
) -> Finding:
    from argtrace.rules.start_values import RS082

    named = report.framework.version is not None
    assumed = "" if named else " (assumed: nothing names the release; the newest that takes these flags)"
    flag = "--" + written.replace("_", "-")
    sms = "/".join(f"SM{s}" for s in runner["runner_sms"])
    major, minor = capability
    pin = facts["flashinfer"]
    return RS082.finding(
        f"sglang {release} accepts {flag} {_BACKEND} on {label} (compute capability {major}.{minor}; its "
        f"check refuses only non-Blackwell GPUs, sglang/{facts['check_at']}), but the TRTLLM MLA prefill "
        f"({facts['kernel_method']}, sglang/{facts['kernel_at']}) calls FlashInfer's "
        f"trtllm_ragged_attention_deepseek, whose TllmGenFmhaRunner accepts {sms} only (flashinfer-python "
        f"{pin}, the release's pin: {runner['runner_at']}): the first prefill, the server's warm-up request, "
        f'dies with "Unsupported architecture"{assumed}',
        at=at,
        evidence=[
            Evidence("parser", at, f"{written}={_BACKEND}"),
            Evidence(
                "resolution",
                f"sglang {release}: {facts['kernel_at']}, {facts['check_at']}; flashinfer-python {pin}: "
                f"{runner['runner_at']}",
                f"{facts['kernel_method']} calls flashinfer.prefill.trtllm_ragged_attention_deepseek; the "
                f"argument check raises when {facts['check_test']}; TllmGenFmhaRunner checks mSM in {sms}",
            ),
        ],
        setting=written,
        fix=(
            f"prefill with a backend that is not a TRT-LLM one (--prefill-attention-backend flashinfer or "
            f"triton), or drop {flag} {_BACKEND}; on an {sms} GPU it runs"
        ),
        severity=None if named else "warning",
        basis=None if named else "assumed",
    )
