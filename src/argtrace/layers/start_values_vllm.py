"""The vLLM-only values of layers/start_values.py (RS030, RS038, RS054 and the variables a setting is
read from), moved here so a check of an SGLang launch does not read them (unrun37); the module docstring
of start_values.py describes each rule."""

from __future__ import annotations

from argtrace.model import Evidence, Finding, Report, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the raise RS030 follows, as the message index names it
TRITON_FP8_SITE = ("vllm/v1/attention/backends/triton_attn.py", "TritonAttentionImpl.__init__")
TRITON_FP8_TEXT = "native FP8 (fp8e4nv)"
# FlashInfer builds for SM75 and newer, FlashAttention for SM80: below SM75 vLLM has only Triton left
NO_OTHER_BACKEND_BELOW = (7, 5)


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
