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
from argtrace.model import Evidence, Finding, LayerResult, Report, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the raise RS030 follows, as the message index names it
TRITON_FP8_SITE = ("vllm/v1/attention/backends/triton_attn.py", "TritonAttentionImpl.__init__")
TRITON_FP8_TEXT = "native FP8 (fp8e4nv)"
# FlashInfer builds for SM75 and newer, FlashAttention for SM80: below SM75 vLLM has only Triton left
NO_OTHER_BACKEND_BELOW = (7, 5)
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


def triton_fp8_releases() -> list[str]:
    """The vLLM releases whose Triton attention backend refuses an fp8 KV cache below SM89 (the message
    index's sites of that raise)."""
    from argtrace.resolver.message_store import sites

    out: set[str] = set()
    for site in sites("vllm"):
        if (site.file, site.function) == TRITON_FP8_SITE and TRITON_FP8_TEXT in site.template:
            out.update(site.at)
    from argtrace.resolver.message_store import sort_releases

    return sort_releases(out)


def fp8_kv_cache_on_gpu(report: Report, gpu: str) -> list[Finding]:
    """RS030: vLLM's Triton attention backend raises for an fp8 KV cache below SM89, and below SM75 no
    other backend is selected (vllm/platforms/cuda.py ``_get_backend_priorities``; FlashAttention's
    ``supports_compute_capability`` is SM80+, FlashInfer's SM75+ or SM80+)."""
    from argtrace.gpus import parse_gpu_spec
    from argtrace.rules import start_values as rules

    dtype = _effective(report, "kv_cache_dtype")
    if not isinstance(dtype, str) or not dtype.startswith("fp8"):
        return []
    try:
        profile = parse_gpu_spec(gpu).profile
    except ValueError:
        return []
    if profile.vendor != "nvidia" or profile.compute_capability >= NO_OTHER_BACKEND_BELOW:
        return []
    # the release analysed (a release nothing names is analysed as the newest bundled one: the verdict
    # then rests on that assumption, which check.settle_report_verdicts marks)
    version = report.framework.version or report.framework.analysed_with
    releases = triton_fp8_releases()
    if not releases or version not in releases:
        return []
    cc = ".".join(map(str, profile.compute_capability))
    span = f"{releases[0]}-{releases[-1]}"
    return [
        rules.RS030.finding(
            f"--kv-cache-dtype {dtype} on {profile.label} (compute capability {cc}): vllm {version} has no "
            "FlashAttention (SM80+) or FlashInfer (SM75+) backend for it, and the Triton attention backend "
            f'raises "FP8 KV cache is not supported by the Triton attention backend ... native FP8 '
            f'(fp8e4nv) requires SM89+" (TritonAttentionImpl.__init__, {TRITON_FP8_SITE[0]}; vllm {span})',
            setting="kv_cache_dtype",
            evidence=[Evidence("resolution", None, f"--gpu {gpu}: {profile.label}, compute capability {cc}")],
            fix=f"--kv-cache-dtype auto (or float16) on {profile.label}; an fp8 KV cache needs compute "
            "capability 8.9+",
        )
    ]


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


# the parser's load, whose refusal of an unknown name says it belongs to --enable-auto-tool-choice: in
# OpenAIServingChat.__init__ under `if self.enable_auto_tools:` (0.6-0.11), then in
# OpenAIServing._get_tool_parser and ParserManager.get_tool_parser, which return None unless
# enable_auto_tools (vllm/parser/parser_manager.py)
TOOL_PARSER_LOAD_TEXT = "--enable-auto-tool-choice requires tool_parser:"
# the chat server's refusals of a request without a tool parser: "auto" (every release), and from 0.14.1 any
# tool_choice but none (the condition ``tool_parsing_unavailable``)
AUTO_CHOICE_TEXT = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
FORCED_CHOICE_TEXT = "requires --tool-call-parser to be set"
ANY_CHOICE_CONDITION = "tool_parsing_unavailable"


def _releases_of(text: str, condition: str | None = None) -> list[str]:
    """The vLLM releases whose message index has a site printing ``text`` (under ``condition``)."""
    from argtrace.resolver.message_store import sites, sort_releases

    out: set[str] = set()
    for site in sites("vllm"):
        if text in site.template and (condition is None or any(condition in c for c in site.conditions)):
            out.update(site.at)
    return sort_releases(out)


def tool_parser_without_auto_choice(report: Report) -> list[Finding]:
    """RS038: ``--tool-call-parser NAME`` without ``--enable-auto-tool-choice``. vLLM validates the pair one
    way only (``--enable-auto-tool-choice requires --tool-call-parser``, a TypeError at start-up); the other
    way the server starts and the parser is never built, so the value the user wrote is lost."""
    from argtrace.rules import start_values as rules

    parser = _effective(report, "tool_call_parser")
    if not isinstance(parser, str) or not parser or _effective(report, "enable_auto_tool_choice") is True:
        return []
    version = report.framework.version or report.framework.analysed_with
    loads = _releases_of(TOOL_PARSER_LOAD_TEXT)
    if not version or version not in loads:
        return []
    refusals = f'a request with tool_choice "auto" is refused ({AUTO_CHOICE_TEXT})'
    if version in _releases_of(FORCED_CHOICE_TEXT, ANY_CHOICE_CONDITION):
        # the message names --tool-call-parser though it was given: the parser was not built (vllm#55754)
        refusals += (
            f', and one with "required" or a named tool too (tool_choice="required" {FORCED_CHOICE_TEXT})'
        )

    setting = report.setting("tool_call_parser")
    at = next((o.at for o in setting.history if o.at), None) if setting is not None else None
    return [
        rules.RS038.finding(
            f"--tool-call-parser {parser} without --enable-auto-tool-choice: vllm {version} builds the "
            "tool-call parser only when --enable-auto-tool-choice is set (ParserManager.get_tool_parser in "
            "vllm/parser/parser_manager.py, OpenAIServingChat.__init__ in older releases; vllm "
            f"{loads[0]}-{loads[-1]}), so {parser} is never loaded: the model's tool calls come back as "
            f"text and {refusals}",
            at=at,
            setting="tool_call_parser",
            fix=f"add --enable-auto-tool-choice (with --tool-call-parser {parser}), or drop "
            "--tool-call-parser if the server takes no tool calls",
        )
    ]


def tokenizer_mode_not_registered(report: Report) -> list[Finding]:
    """RS054: ``--tokenizer-mode WORD`` that the release neither registers a tokenizer for nor translates
    before the registry's lookup: argparse takes the word (0.12.0 on) and the start-up lookup raises."""
    from argtrace.frameworks.entrypoints import describe_span
    from argtrace.frameworks.vllm_tokenizer_modes import releases_taking, tokenizer_modes
    from argtrace.rules import start_values as rules

    word = _effective(report, "tokenizer_mode")
    version = report.framework.version or report.framework.analysed_with
    modes = tokenizer_modes(version) if isinstance(word, str) and word and version else None
    if modes is None or modes.takes(str(word)):
        return []
    others = releases_taking(str(word))
    taken = ", ".join(sorted({*modes.translated, *modes.registered}))
    message = (
        f"--tokenizer-mode {word}: vllm {version} registers no tokenizer of that name (it registers "
        f"{', '.join(modes.registered)} and reads {', '.join(modes.translated)} before the lookup), so "
        "loading "
        f'the tokenizer raises "No tokenizer registered for tokenizer_mode={str(word)!r}" at start '
        f"({modes.refusal_at}) unless a plugin registers it"
    )
    if others:
        span = describe_span("vllm", others)
        message += f"; vllm {span} register {word}"
        fix = f"run a release that registers {word} (vllm {span}), or give one vllm {version} takes: {taken}"
    else:
        fix = f"give one of the modes vllm {version} takes: {taken}"
    setting = report.setting("tokenizer_mode")
    at = next((o.at for o in setting.history if o.at), None) if setting is not None else None
    # nothing names the release and another release takes the word: the launch may well run one of those,
    # so the analysed release's refusal is a note (a word no release takes stays a warning)
    severity: Severity | None = "info" if report.framework.version is None and others else None
    return [rules.RS054.finding(message, at=at, setting="tokenizer_mode", fix=fix, severity=severity)]


def variables_for_settings(report: Report) -> list[Finding]:
    """RS065: a ``VLLM_*`` variable in the server's environment that the release's front end reads in place
    of a flag (frameworks/vllm_env_fallbacks.py): a note when the flag is not given (the variable sets the
    setting), an error when both are and the release reads the variable first (the flag's value is lost)."""
    from argtrace.frameworks.vllm_env_fallbacks import fallbacks
    from argtrace.rules import start_values as rules

    version = report.framework.version or report.framework.analysed_with
    env = dict(report.process.env) if report.process is not None else {}
    server = report.servers[0] if report.servers else None
    out: list[Finding] = []
    for fb in fallbacks(version) if version else ():
        if not env.get(fb.variable):
            continue
        setting = report.setting(fb.dest)
        given = setting is not None and any(o.at for o in setting.history)
        shown = (setting.flag if setting is not None else None) or "--" + fb.dest.replace("_", "-")
        origin = server.env.get(fb.variable) if server is not None else None
        at = (origin.origin.at if origin is not None else None) or (server.at if server else None)
        if not given:
            out.append(
                rules.RS065.finding(
                    f"{fb.variable} is set, and vllm {version} reads it when {shown} is not given "
                    f"({fb.where}): it sets the server's {fb.dest}"
                    + (
                        "; every /v1 request must then carry that key in its Authorization header, or the "
                        "server answers 401"
                        if fb.dest == "api_key"
                        else ""
                    ),
                    at=at,
                    setting=fb.dest,
                    fix=f"unset {fb.variable} where the server starts, if it should not take it",
                )
            )
        elif fb.first == "variable":
            out.append(
                rules.RS065.finding(
                    f"{fb.variable} is set and vllm {version} reads it before {shown} ({fb.where}: the "
                    f"variable first): the value given to {shown} is lost",
                    at=at,
                    setting=fb.dest,
                    fix=f"unset {fb.variable}, or run vLLM 0.8.5 or later (the flag is read first there)",
                    severity="error",
                )
            )
    return out
