"""A draft tensor-parallel size the release's drafter never reads (PA057).

vLLM's ``--speculative-config`` takes ``draft_tensor_parallel_size`` (1 or the target's
``--tensor-parallel-size``) and ``SpeculativeConfig`` builds a ``draft_parallel_config`` from it, but in the
V1 engine only the separate draft model's proposer (``"method": "draft_model"``) reads that configuration: an
EAGLE, EAGLE-3 or MTP drafter is built inside the target's model runner and runs with the target's
tensor-parallel size whatever the key says (vllm#31345 on 0.13.0: ``"draft_tensor_parallel_size": 1`` under
TP 4, the EAGLE-3 head still split four ways; vllm PR#31886 and PR#31705 tried to honour it). The value the
user wrote is lost, without a word -> PA057.

Which code reads the draft's parallel configuration is read from each release's wheel by
scripts/gen_vllm_draft_tp.py into frameworks/data/vllm_draft_tp.json; a release it does not hold gives
nothing. Pure: takes the report, returns findings.
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.model import Evidence, LayerResult, Report, as_int
from argtrace.package_data import release_facts as package_release_facts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_KEY = "speculative_config.draft_tensor_parallel_size"
# the method whose proposer builds its own parallel configuration from the key (vllm/v1/spec_decode/
# draft_model.py); every other method's drafter shares the target's
_OWN_PARALLEL = "draft_model"


_TABLE = "frameworks/data/vllm_draft_tp.json"  # written by scripts/gen_vllm_draft_tp.py


def release_facts(release: str) -> Mapping[str, Any] | None:
    """What scripts/gen_vllm_draft_tp.py read from ``release``'s wheel, or None (not read)."""
    return package_release_facts(_TABLE, release)


def _on_ascend(report: Report) -> bool:
    """Whether the launch sets Ascend NPU variables (ASCEND_*, HCCL_*): a vllm-ascend launch, whose own
    EAGLE proposer honours the key since vllm-ascend PR#5519 (0.13.0: PR#5804)."""
    server = report.described_server()
    names = server.env if server is not None else {}
    return any(name.startswith(("ASCEND_", "HCCL_")) for name in names)


def spec_draft_tp(report: Report) -> LayerResult:
    """PA057 for a ``draft_tensor_parallel_size`` other than the target's under a drafter that shares the
    target's tensor-parallel group."""
    from argtrace.layers.spec_draft_count import spec_draft_count

    result = spec_draft_count(report)  # PA062: a draft model without num_speculative_tokens
    release = report.parsed_release("vllm")
    if release is None:
        return result  # (Report.parsed_release)
    facts = release_facts(release)
    if not facts or not facts.get("draft_model_only"):
        return result
    if _on_ascend(report):
        return result  # vllm-ascend's EAGLE proposer builds a TP-1 group for the key (vllm-ascend PR#5519)
    key = report.setting(_KEY)
    method = report.setting("speculative_config.method")
    if key is None or key.intended is None or method is None or not isinstance(method.effective, str):
        return result  # no method written: vLLM infers it from the draft's name, not judged
    if method.effective == _OWN_PARALLEL:
        return result
    draft = as_int(key.effective)
    tp_setting = report.setting("tensor_parallel_size")
    tp = as_int(tp_setting.effective) if tp_setting is not None else 1
    if draft is None or tp is None or draft == tp:
        return result
    at = key.last_at
    readers = [str(r.get("where")) for r in facts.get("readers") or () if isinstance(r, Mapping)]
    where = (
        f"only the draft model's proposer reads it ({', '.join(readers)})"
        if readers
        else "no code of its V1 engine reads it"
    )
    from argtrace.rules.parser import PA_DRAFT_TP_LOST

    result.findings.append(
        PA_DRAFT_TP_LOST.finding(
            f'"draft_tensor_parallel_size": {draft} in --speculative-config has no effect: the '
            f"{method.effective} drafter of vllm {release} is built inside the target's model runner and "
            f'runs with --tensor-parallel-size {tp}; {where}, for "method": "{_OWN_PARALLEL}"',
            at=at,
            evidence=[
                Evidence(
                    "parser",
                    at,
                    f"speculative_config.method={method.effective}, draft_tensor_parallel_size={draft}, "
                    f"tensor_parallel_size={tp}",
                )
            ],
            setting=_KEY,
            fix=f"remove draft_tensor_parallel_size (the {method.effective} draft is split as the target "
            f"is), or write {tp}",
        )
    )
    return result
