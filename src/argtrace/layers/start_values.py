"""Values a server's start-up refuses or misreads (RS030-RS031, RS033-RS035, RS038, RS054), each judged by
the code that refuses or misreads them.

Runs after the other layers (``check.late_layers``), on the report's effective settings and ``--gpu``:

- RS030: an fp8 KV cache (``--kv-cache-dtype fp8*``) for vLLM on a GPU below compute capability 7.5, where
  only the Triton attention backend is left and its constructor raises. The releases are those whose
  message index (scripts/gen_messages.py) has that raise (``TritonAttentionImpl.__init__``); the GPU is
  the ``--gpu`` profile (never assumed).
- RS031: a ``--model-path``/``--model`` value that is not a local path and that huggingface_hub's
  ``validate_repo_id`` refuses, judged with the ``REPO_ID_REGEX`` scripts/gen_messages.py read from the
  newest indexed huggingface_hub wheel and the function's other tests (its documented rules).
- RS033: SGLang's ``--speculative-algorithm EAGLE`` with a draft whose name says it is an EAGLE-3 draft:
  the target's auxiliary hidden states the draft reads are captured under EAGLE3 only (sglang PR#21272).
- RS034, RS035: the model value's shape against what loads it (layers/model_refs.py): a Hugging Face cache's
  repo folder, a GGUF reference the release's loader does not take.
- RS038: vLLM's ``--tool-call-parser`` without ``--enable-auto-tool-choice``: the serving code builds the
  parser only under that flag (the releases are those whose message index has the parser's load, whose
  refusal names ``--enable-auto-tool-choice``), so the value is never used (vllm#55754).
- RS054: vLLM's ``--tokenizer-mode`` (a free string from 0.12.0) naming no tokenizer the release registers
  or translates (frameworks/vllm_tokenizer_modes.py, read from the wheels): the registry's lookup raises at
  start.
- RS079 (layers/parser_names.py): a ``--tool-call-parser``/``--reasoning-parser`` name the release registers
  no parser for (frameworks/vllm_parsers.py, read from the wheels): the serve command's check raises.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from argtrace import localfs
from argtrace.frameworks.model_refs import PATHLIKE
from argtrace.model import Evidence, Finding, LayerResult, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the settings that name the model, and how to call them (``vllm serve MODEL`` is ``model_tag``)
MODEL_SETTINGS = {
    "sglang": (("model_path", "--model-path"),),
    "vllm": (("model_tag", "the model"), ("model", "--model")),
}
MODELSCOPE_VARIABLES = ("VLLM_USE_MODELSCOPE", "SGLANG_USE_MODELSCOPE")


def start_values(report: Report, gpu: str | None) -> LayerResult:
    """Findings of RS030 and RS031 for the described server."""
    result = LayerResult()
    framework = report.framework.name
    if framework is None:
        return result
    env = dict(report.process.env) if report.process is not None else {}
    if framework == "vllm" and gpu:
        from argtrace.layers.start_values_vllm import fp8_kv_cache_on_gpu  # (vLLM's only: read for one)

        result.findings.extend(fp8_kv_cache_on_gpu(report, gpu))
    if framework in MODEL_SETTINGS:
        from argtrace.layers.model_refs import model_reference_findings

        found = model_reference_findings(report, framework, model_value(report, framework))
        result.findings.extend(found)
        if not found:  # one cause, one finding: a GGUF reference or a cache folder is not also "not an id"
            result.findings.extend(model_not_a_repo_id(report, framework, env))
    if framework == "sglang":
        result.findings.extend(eagle3_draft_under_eagle(report))
        if report.setting("speculative_algorithm") is not None:
            from argtrace.layers.lazy_spec import lazy_spec  # RS086

            result.findings.extend(lazy_spec(report))
            from argtrace.layers.eagle_tree import eagle_tree  # RS085, RS088

            result.findings.extend(eagle_tree(report))
        if gpu and report.setting("moe_a2a_backend") is not None:
            from argtrace.layers.deepep_deepgemm import deepep_deepgemm  # RS081

            result.findings.extend(deepep_deepgemm(report, gpu).findings)
        if gpu and (report.setting("attention_backend") or report.setting("prefill_attention_backend")):
            from argtrace.layers.trtllm_mla_prefill import trtllm_mla_prefill  # RS082

            result.findings.extend(trtllm_mla_prefill(report, gpu))
    if framework == "vllm":
        from argtrace.layers.start_values_vllm import (
            tokenizer_mode_not_registered,
            tool_parser_without_auto_choice,
            variables_for_settings,
        )

        result.findings.extend(tool_parser_without_auto_choice(report))
        result.findings.extend(tokenizer_mode_not_registered(report))
        from argtrace.layers.parser_names import parsers_not_registered  # RS079

        result.findings.extend(parsers_not_registered(report))
        result.findings.extend(variables_for_settings(report))
        from argtrace.layers.engine_overrides import engine_override_findings  # RS059, RS060

        result.findings.extend(engine_override_findings(report))
        from argtrace.layers.capture_sizes import lowered_capture_maximum  # RS069

        result.findings.extend(lowered_capture_maximum(report))
        from argtrace.layers.field_bounds import values_out_of_bounds  # RS070

        result.findings.extend(values_out_of_bounds(report))
    return result


def _effective(report: Report, name: str) -> Any:
    setting = report.setting(name)
    return setting.effective if setting is not None else None


def repo_id_problem(value: str, rule: Mapping[str, Any]) -> str | None:
    """Why huggingface_hub's ``validate_repo_id`` refuses ``value`` (its tests in its order), or None."""
    if value.count("/") > 1:
        return "more than one '/' (the form is 'repo_name' or 'namespace/repo_name')"
    flags = 0
    for name in rule.get("flags", []):
        flags |= int(getattr(re, str(name), 0))
    pattern = re.compile(str(rule["pattern"]), flags)
    matched = pattern.fullmatch(value) if rule.get("match") == "fullmatch" else pattern.match(value)
    if not matched:
        return (
            "characters or a shape REPO_ID_REGEX refuses (only letters, digits, '-', '_', '.'; not starting "
            "or ending with '-' or '.'; at most 96 characters)"
        )
    if "--" in value or ".." in value:
        return "'--' or '..'"
    if value.endswith(".git"):
        return "'.git' at the end"
    return None


# A value written as a path (frameworks/model_refs.py, shared with RS034/RS035)
_PATHLIKE = PATHLIKE
# a value still holding a variable, a template or a placeholder (`$MODEL`, `{{ .Values.model }}`, `<MODEL>`,
# an ellipsis `...` standing for what a post left out) is not the value the server gets
_UNRESOLVED = re.compile(r"[$`{}<>%*?\[\]\"'\s]|\.\.\.|\u2026")


def model_value(report: Report, framework: str) -> tuple[str, str, str] | None:
    """(setting, how to call it, value) of the model the server loads: the setting the command wrote
    (``--model X`` beside an empty positional), else the first set; None without a plain text value
    (a variable or placeholder left in it is not what the server gets)."""

    def given(name: str) -> bool:
        found = report.setting(name)
        return found is not None and found.intended is not None

    candidates = [(s, flag) for s, flag in MODEL_SETTINGS[framework] if given(s)] or [
        (s, flag) for s, flag in MODEL_SETTINGS[framework] if _effective(report, s) is not None
    ]
    if not candidates:
        return None
    setting, flag = candidates[0]
    value = _effective(report, setting)
    if not isinstance(value, str) or not value or _UNRESOLVED.search(value):
        return None
    return setting, flag, value


def model_not_a_repo_id(report: Report, framework: str, env: Mapping[str, str | None]) -> list[Finding]:
    """RS031: the model value is loaded from the Hub unless it is a local directory; an id the validator
    refuses fails before any download."""
    found = model_value(report, framework)
    if found is None:
        return []
    setting, flag, value = found
    if _PATHLIKE.search(value):
        return []
    from argtrace.frameworks.model_refs import releases_taking, repo_quant

    if repo_quant(value) and releases_taking(framework, "repo_quant"):
        return []  # a GGUF reference some releases load (RS035 judges the named release), not a repo id
    if value.count("/") > 1:
        return []  # `models/org/name`: far more often a relative local path than a mistyped repo id
    if any((env.get(name) or "").strip().lower() in ("1", "true", "yes") for name in MODELSCOPE_VARIABLES):
        return []
    if localfs.exists(value):
        return []
    from argtrace.resolver.message_store import repo_id_rule  # huggingface_hub's store: only for a Hub id

    rule = repo_id_rule()
    if rule is None:
        return []
    problem = repo_id_problem(value, rule)
    if problem is None:
        return []
    hint = ""
    if ":" in value:
        repo, _, revision = value.rpartition(":")
        if repo and repo_id_problem(repo, rule) is None:
            hint = f" ('{repo}' is a valid id: give the revision '{revision}' to --revision)"
    source = f"{rule['file']}:{rule.get('validator_line')} in huggingface_hub {rule['release']}"
    from argtrace.rules import start_values as rules  # here: most launches find nothing

    return [
        rules.RS031.finding(
            f"{flag} {value!r} is not a local directory here and not a valid Hugging Face repo id: "
            f"{problem}{hint}; huggingface_hub's validate_repo_id raises HFValidationError before any "
            f"download ({source}), unless a directory of that name exists where the server starts",
            setting=setting,
            evidence=[Evidence("resolution", None, f"{flag} {value}")],
        )
    ]


# an EAGLE-3 draft's name: `sglang-EAGLE3-Llama-3.1-Instruct-8B`, `kimi-k2.5-eagle3`, `Eagle3-Qwen3-8B`
_EAGLE3_NAME = re.compile(r"eagle3", re.I)


def eagle3_draft_under_eagle(report: Report) -> list[Finding]:
    """RS033: SGLang's EAGLE algorithm does not capture the three hidden states an EAGLE-3 draft's fc layer
    reads (``_resolve_eagle_aux_hidden_state``: ``eagle_use_aux_hidden_state`` under ``is_eagle3()``
    only), so the draft predicts garbage and the server runs slower than without it (sglang PR#21272). The
    draft's kind is assumed from its name."""
    algorithm = _effective(report, "speculative_algorithm")
    draft = _effective(report, "speculative_draft_model_path")
    if not isinstance(algorithm, str) or algorithm.upper() != "EAGLE" or not isinstance(draft, str):
        return []
    name = draft.rstrip("/\\").rsplit("/", 1)[-1]
    if not _EAGLE3_NAME.search(name) or _UNRESOLVED.search(name):
        return []
    release = f"sglang {report.framework.release}" if report.framework.release else "sglang"
    from argtrace.rules import start_values as rules  # here: most launches find nothing

    return [
        rules.RS033.finding(
            f"--speculative-algorithm {algorithm} with the draft {draft!r}, whose name says it is an EAGLE-3 "
            f"draft: {release} captures the three target hidden states an EAGLE-3 draft reads only under "
            "EAGLE3 (spec_aux_hidden_state.py), so the draft gets one, predicts garbage and every draft "
            "token is rejected: the server runs, slower than without speculation, with no error (sglang "
            "PR#21272; assumed from the draft's name, its config.json's architecture decides)",
            setting="speculative_algorithm",
            evidence=[Evidence("resolution", None, f"--speculative-draft-model-path {draft}")],
        )
    ]
