"""The MoE all-to-all backend a vLLM launch names, and whether the release uses it (RS068, RS072).

vLLM dispatches the tokens of a mixture-of-experts layer through its all-to-all backend
(``--all2all-backend``; ``VLLM_ALL2ALL_BACKEND`` in the releases that read the variable) only when
``FusedMoEParallelConfig.use_all2all_kernels`` holds: expert parallelism (``--enable-expert-parallel`` over
more than one rank) and data (or prefill-context) parallelism above 1 (vllm 0.33.0
model_executor/layers/fused_moe/config.py:1035; sequence-parallel MoE needs data parallelism too,
``ParallelConfig.use_sequence_parallel_moe``). Without expert parallelism the experts are split by tensor
parallelism instead, and a DeepEP backend written for expert parallelism is never used
(vllm-project/vime PR#186: ``deepep_high_throughput`` without expert parallelism, the FP8 experts split over
TP 8 and refused by their block size) -> RS068. And a backend the release has removed (pplx and naive,
vllm PR#33724) is replaced in ``ParallelConfig.__post_init__`` with a warning (llm-d PR#855) -> RS072.

Each release's code is read by scripts/gen_vllm_all2all.py into frameworks/data/vllm_all2all.json; a
release it does not hold (no wheel read) gives nothing. Pure: takes the report, returns findings.
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.model import Evidence, LayerResult, Report, as_int
from argtrace.package_data import release_facts as package_release_facts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_VARIABLE = "VLLM_ALL2ALL_BACKEND"


_TABLE = "frameworks/data/vllm_all2all.json"  # written by scripts/gen_vllm_all2all.py


def release_facts(release: str) -> Mapping[str, Any] | None:
    """What scripts/gen_vllm_all2all.py read from ``release``'s wheel, or None (not read)."""
    return package_release_facts(_TABLE, release)


def _named(report: Report, release: str) -> tuple[str, str | None, str] | None:
    """(the backend, where it is written, how) the launch names: the flag, else the variable where the
    release reads it."""
    setting = report.setting("all2all_backend")
    if setting is not None and setting.intended is not None and isinstance(setting.effective, str):
        at = setting.last_at
        return setting.effective, at, f"--all2all-backend {setting.effective}"
    server = report.described_server()
    word = server.env.get(_VARIABLE) if server is not None else None
    if word is None or not word.value:
        return None
    origin = word.origin
    if origin.expansion in ("environment", "bash") or (origin.at is None and origin.expansion is None):
        return None  # inherited from the caller's environment, not written by the launch
    from argtrace.frameworks.release_index import release_index

    if release not in release_index("vllm").releases_knowing_env(_VARIABLE):
        return None  # a release that does not read it: PR001 says so
    here = report.process.at if report.process is not None else None
    return word.value, origin.at or here, f"{_VARIABLE}={word.value}"


def moe_all2all(report: Report) -> LayerResult:
    """RS068 for an all-to-all backend the launch's parallel layout never uses, RS072 for one the release
    replaces."""
    result = LayerResult()
    release = report.parsed_release("vllm")
    if release is None:
        return result  # (Report.parsed_release)
    facts = release_facts(release)
    if not facts:
        return result
    named = _named(report, release)
    if named is None:
        return result
    backend, at, written = named
    from argtrace.rules.start_values import RS068, RS072

    gone = facts.get("removed")
    if isinstance(gone, Mapping) and backend in (gone.get("backends") or ()):
        instead = gone.get("instead")
        result.findings.append(
            RS072.finding(
                f"{written} is lost: vllm {release} no longer has the {backend} backend and replaces it with "
                f"{instead} (ParallelConfig.__post_init__, {gone.get('where')}: "
                f'"{str(gone.get("warning") or "").replace("%s", backend)}")',
                at=at,
                evidence=[Evidence("parser", at, f"all2all_backend={backend}")],
                setting="all2all_backend",
                fix=f"choose a backend vllm {release} has (--all2all-backend {instead} is what it runs), or "
                "remove the setting",
            )
        )
        return result
    gate = facts.get("used_when")
    if not isinstance(gate, Mapping) or gate.get("form") not in ("ep_and_dp_or_pcp", "ep_and_dp"):
        return result
    ep = report.setting("enable_expert_parallel")
    expert_parallel = bool(ep is not None and ep.effective is True)
    sizes = {
        name: as_int(s.effective) if (s := report.setting(name)) is not None else 1
        for name in ("data_parallel_size", "prefill_context_parallel_size", "tensor_parallel_size")
    }
    if any(v is None for v in sizes.values()):
        return result  # a size the parser did not read as a number: not judged
    dp = sizes["data_parallel_size"] or 1
    pcp = sizes["prefill_context_parallel_size"] or 1
    tp = sizes["tensor_parallel_size"] or 1
    across = dp > 1 or (pcp > 1 and gate.get("form") == "ep_and_dp_or_pcp")
    if expert_parallel and across:
        return result
    where = gate.get("where")
    if not expert_parallel:
        why = (
            "without --enable-expert-parallel the experts are split by tensor parallelism"
            + (f" over TP {tp}" if tp > 1 else "")
            + ", and the backend is never used"
        )
        fix = (
            "add --enable-expert-parallel (with --data-parallel-size above 1: the backend dispatches tokens "
        )
        fix += "between the DP ranks), or remove the backend"
    else:
        why = (
            "with expert parallelism over one data-parallel rank the experts are reached without an "
            "all-to-all dispatch, and the backend is never used"
        )
        fix = "give --data-parallel-size above 1 (the backend dispatches tokens between the DP ranks), or "
        fix += "remove the backend"
    result.findings.append(
        RS068.finding(
            f"{written} has no effect: vllm {release} uses an all-to-all backend only with expert "
            f"parallelism and more than one data-parallel rank (FusedMoEParallelConfig.use_all2all_kernels, "
            f"{where}); {why}",
            at=at,
            evidence=[
                Evidence(
                    "parser",
                    at,
                    f"all2all_backend={backend}, enable_expert_parallel={expert_parallel}, "
                    f"data_parallel_size={dp}, tensor_parallel_size={tp}",
                )
            ],
            setting="all2all_backend",
            fix=fix,
        )
    )
    return result
