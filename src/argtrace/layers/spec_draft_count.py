"""A draft model named in ``--speculative-config`` without ``num_speculative_tokens`` (PA062).

vLLM's ``SpeculativeConfig`` takes the number of draft tokens from the draft's config.json when it is not
written: its ``n_predict`` (MTP, Medusa and MLP-speculator drafts carry one; vLLM sets it for the MTP
families from ``num_nextn_predict_layers``). An EAGLE, EAGLE-3 or plain language-model draft has none, so
the release refuses the launch at start-up: "A speculative model was provided, but `num_speculative_tokens`
was not provided" (``SpeculativeConfig.__post_init__``, vllm 0.21.0 on) or "num_speculative_tokens must be
provided with speculative model unless the draft model config contains an n_predict parameter."
(``_verify_args``, 0.8.5.post1 on; ``maybe_create_spec_config`` before). vllm PR#20375 (the EAGLE example of
the docs without the key) and vllm PR#44566 (an EAGLE-3 draft in the speculators format, whose proposal
count vLLM 0.33.0 does not read into the speculative config) hit it.

The refusal is read from the release's raise-site index (``frameworks/data/raise_sites``, generated from the
wheel by ``scripts/gen_schemas.py``): its file, line and message are the finding's; a release whose index has
no such site gives nothing. Judged only for the drafts whose config has no ``n_predict`` by construction:
``"method"`` written as ``eagle``, ``eagle3`` or ``draft_model`` (vllm/config/speculative.py's
SpeculativeMethod), or no method and a draft whose name says EAGLE (vLLM infers eagle/eagle3 from it). The
draft's config.json is not read: the finding says it rests on that. Pure: takes the report, returns findings.
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.model import Evidence, LayerResult, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the methods whose draft is an EAGLE head or a separate language model: no n_predict in its config.json
# (vLLM 0.33.0 vllm/config/speculative.py: n_predict is read from the draft's hf_config, and set only for
# the MTP families, Medusa and MLP speculators)
_NO_N_PREDICT = ("eagle", "eagle3", "draft_model")
# the raises, newest form first: (function, a literal piece of the message)
_SITES = (
    ("SpeculativeConfig.__post_init__", "`num_speculative_tokens` was not provided"),
    ("SpeculativeConfig._verify_args", "num_speculative_tokens must be provided"),
    ("SpeculativeConfig.maybe_create_spec_config", "num_speculative_tokens must be provided"),
)


def _site(release: str) -> Mapping[str, Any] | None:
    """The first refusal of ``release``'s raise-site index for a missing num_speculative_tokens."""
    from argtrace.resolver.raise_index import load_index

    sites = (load_index("vllm", release) or {}).get("sites") or []
    for function, piece in _SITES:
        for site in sites:
            if site.get("function") == function and piece in str(site.get("message") or ""):
                return site
    return None


def _judged_method(method: Any, draft: str) -> str | None:
    """The method when its draft has no n_predict: written as one of ``_NO_N_PREDICT``, or unwritten with a
    draft whose name says EAGLE (vLLM's own inference from the name); else None."""
    if isinstance(method, str):
        return method if method in _NO_N_PREDICT else None
    if method is None and "eagle" in draft.lower():
        return "eagle3" if "eagle3" in draft.lower() else "eagle"
    return None


def spec_draft_count(report: Report) -> LayerResult:
    """PA062 for a draft model without num_speculative_tokens under a method whose draft has no n_predict."""
    result = LayerResult()
    release = report.parsed_release("vllm")
    if release is None:
        return result  # (Report.parsed_release)
    model = report.setting("speculative_config.model")
    if model is None or model.intended is None or not isinstance(model.effective, str):
        return result
    if report.setting("speculative_config.num_speculative_tokens") is not None:
        return result
    method_setting = report.setting("speculative_config.method")
    method = _judged_method(method_setting.effective if method_setting else None, model.effective)
    if method is None:
        return result
    site = _site(release)
    if site is None:
        return result
    from argtrace.rules.parser import PA_DRAFT_COUNT_MISSING

    named = report.framework.version is not None
    assumed = "" if named else "; nothing names the release, the newest that takes these flags is assumed"
    where = f"{site.get('file')}:{site.get('line')}"
    article = "an" if method.startswith("e") else "a"
    at = model.last_at
    result.findings.append(
        PA_DRAFT_COUNT_MISSING.finding(
            f'--speculative-config names a draft model ("model": "{model.effective}") but no '
            f'"num_speculative_tokens": vllm {release} takes the count from the draft\'s config.json '
            f"(n_predict) when it is not written, and {article} {method} draft has none, so "
            f'{site.get("function")} ({where}) refuses the launch at start-up: "{site.get("message")}" '
            f"(assumed: the draft's config.json was not read{assumed})",
            at=at,
            evidence=[
                Evidence(
                    "parser",
                    at,
                    f"speculative_config.model={model.effective}, method={method}, no num_speculative_tokens",
                )
            ],
            setting="speculative_config",
        )
    )
    return result
