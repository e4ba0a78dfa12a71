"""The model class config.json names against what the launch asks of it, from the release's model table
(``frameworks/model_caps.py``, generated from the wheels by ``scripts/gen_model_caps.py``): RS047 (an
architecture the release does not register), RS048 (``--enable-lora`` on a vLLM class without LoRA
support), RS049 (pipeline parallelism on a vLLM class without it), RS050 (``--limit-mm-per-prompt`` on a
vLLM class that takes no multimodal input).

Each rule follows one check of the framework's own code, which runs at start-up (read in the wheels):

- vLLM resolves config.json's ``architectures`` in ``_ModelRegistry.inspect_model_cls``/``resolve_model_cls``
  (``model_executor/models/registry.py``): the first registered one wins; an unregistered one is tried
  through the Transformers backend (``_try_resolve_transformers``, 0.7 on) when the installed transformers
  has the class; else ``_raise_for_unsupported`` raises ``Model architectures [...] are not supported for
  now`` (or ``was supported in vLLM until vX`` for a removed one). SGLang's ``get_model_architecture``
  (``srt/model_loader/utils.py``) does the same with ``resolve_transformers_arch``. Whether the installed
  transformers has a class is not in the launch, so with a Transformers fallback RS047 is a note.
- ``--enable-lora``: V1's ``LoRAModelRunnerMixin.load_lora_model`` raises ``X does not support LoRA yet.``
  when ``supports_lora(model)`` is false (V0's ``GPUModelRunnerBase.load_model`` asserts the same).
- ``--pipeline-parallel-size`` > 1: ``ModelConfig.verify_with_parallel_config`` raises ``Pipeline
  parallelism is not supported for this model`` when ``is_pp_supported_model`` is false.
- ``--limit-mm-per-prompt``: ``ModelConfig._init_multimodal_config`` raises "`limit_mm_per_prompt` is only
  supported for multimodal models." in 0.6.3-0.9.2; later releases build no multimodal config for a
  text-only class and drop the limits without a word (a note).

SGLang has no per-class LoRA check (its LoRA manager wraps whichever layers match); its pipeline-parallel
gate is ModelRunner's assert that the model's ``forward`` takes ``pp_proxy_tensors`` when ``--pp-size`` > 1
(RS049, for the releases whose table has the flag: those read with it). Nothing is said when config.json
has no ``architectures``, when ``--model-impl``/``--hf-overrides`` may change the class, when a class's
flags could not be read (a base class outside the model packages, a platform-dependent import), or when
the release is not covered.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from argtrace import localfs
from argtrace.model import Evidence, Finding, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RELEASE_OPTION = "--framework-version"


def model_caps_rules(report: Report, model_dir: Path | None, rules: Any) -> list[Finding]:
    """RS047-RS050 for a launch whose config.json is readable and names its architectures."""
    framework = report.framework.name
    if framework not in ("vllm", "sglang") or model_dir is None:
        return []
    archs = _architectures(model_dir)
    if not archs or _class_may_change(report):
        return []
    from argtrace.frameworks import model_caps

    chosen = _release(report, framework, model_caps)
    if chosen is None:
        return []
    table, stand_in = chosen
    path = model_dir if localfs.is_file(model_dir) else model_dir / "config.json"
    evidence = [Evidence("resolution", str(path), json.dumps({"architectures": archs}))]
    found = next((a for a in archs if table.model(a) is not None), None)
    out: list[Finding] = []
    if found is None:
        if not any(table.convertible(a) for a in archs):
            out.extend(_unregistered(report, table, archs, evidence, rules, model_caps))
    elif framework == "vllm":
        cls = table.model(found)
        if cls is not None and cls.known:
            out.extend(_lora(report, table, cls, evidence, rules))
            out.extend(_pp(report, table, cls, evidence, rules))
            out.extend(_mm(report, table, cls, evidence, rules))
            if stand_in == "" and not out:
                out.extend(_in_other_releases(report, table, found, evidence, rules, model_caps))
    elif framework == "sglang":
        cls = table.model(found)
        if cls is not None and cls.known:
            out.extend(_sglang_pp(report, table, cls, evidence, rules, model_caps))
    if stand_in and found is None:
        out = _between_registries(out, framework, stand_in, table.version, archs, model_caps)
    if stand_in is not None:
        out = [_rests_on_release(f, framework, table.version, stand_in) for f in out]
    return out


def _between_registries(
    out: list[Finding], framework: str, named: str, older: str, archs: list[str], model_caps: Any
) -> list[Finding]:
    """RS047 read from the covered release before the named one is a note when the covered release after it
    registers the architecture: the registry changed between the two, so the named release's is not known
    (vllm#15676: Gemma 3 on 0.8.2, between 0.7.3 without Gemma3ForConditionalGeneration and 0.8.5.post1
    with it; vLLM added it in 0.8.0)."""
    from argtrace.frameworks.schema import version_key

    newer = [r for r in model_caps.releases(framework) if version_key(r) > version_key(named)]
    if not newer:
        return out
    after = model_caps.release(framework, min(newer, key=version_key))
    if not any(after.model(a) is not None for a in archs):
        return out
    return [
        replace(
            f,
            severity="info",
            message=f"{f.message}; {framework} {named} lies between {older} and {after.version}, which "
            "registers it, so whether it does is not known",
        )
        if f.code == "RS047"
        else f
        for f in out
    ]


def _in_other_releases(
    report: Report, table: Any, arch: str, evidence: list[Evidence], rules: Any, model_caps: Any
) -> list[Finding]:
    """With no release known and the analysed one fine: the covered releases whose class lacks what the
    launch asks (LoRA, pipeline parallelism) refuse it there; a note naming them (which release runs is not
    known)."""
    asks = []
    if _effective(report, "enable_lora") is True:
        asks.append(("lora", "--enable-lora", rules.RS048, "enable_lora"))
    pp = _effective(report, "pipeline_parallel_size")
    if isinstance(pp, int) and not isinstance(pp, bool) and pp > 1:
        asks.append(("pp", f"--pipeline-parallel-size {pp}", rules.RS049, "pipeline_parallel_size"))
    out = []
    for flag, words, rule, setting in asks:
        refusing = [
            version
            for version, cls in model_caps.history("vllm", arch)
            if cls.known and flag not in cls.flags and model_caps.refuses("vllm", version, flag)
        ]
        if not refusing:
            continue
        what = "SupportsLoRA" if flag == "lora" else "SupportsPP"
        shown = _ranges(refusing, model_caps.releases("vllm"))
        out.append(
            rule.finding(
                f"{words}: {arch} does not implement {what} in vllm {shown}, which refuse the launch at "
                "start-up "
                f"({table.refusals[flag].function if flag in table.refusals else 'its check'}); "
                f"{table.version}, the release analysed, supports it. Which release runs is not known",
                severity="info",
                setting=setting,
                fix=f"run a release where {arch} implements {what} (vllm {table.version} does), and name it "
                "with --framework-version",
                evidence=evidence,
            )
        )
    return out


def _ranges(versions: list[str], order: tuple[str, ...]) -> str:
    """``0.6.6.post1-0.9.2, 0.11.0``: runs of consecutive covered releases."""
    runs: list[list[str]] = []
    for v in versions:
        i = order.index(v)
        if runs and order.index(runs[-1][-1]) == i - 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _architectures(model_dir: Path) -> list[str]:
    from argtrace.layers.memory.config import ConfigError, load_config

    path = model_dir if localfs.is_file(model_dir) else model_dir / "config.json"
    try:
        raw = load_config(path)
    except ConfigError:
        return []
    archs = raw.get("architectures")
    if not isinstance(archs, list):
        return []
    return [a for a in archs if isinstance(a, str) and a]


def _effective(report: Report, name: str) -> Any:
    setting = report.setting(name)
    return setting.effective if setting is not None else None


def _class_may_change(report: Report) -> bool:
    """``--model-impl`` other than auto/sglang/vllm picks another class; ``--hf-overrides`` may rename the
    architecture; the class config.json names is then not the one that runs."""
    impl = _effective(report, "model_impl")
    if impl not in (None, "auto", "vllm", "sglang"):
        return True
    overrides = _effective(report, "hf_overrides") or _effective(report, "json_model_override_args")
    return bool(overrides) and "architectures" in str(overrides)


def _release(report: Report, framework: str, model_caps: Any) -> tuple[Any, str | None] | None:
    """The covered release's table and, when it stands in for another (the named release is not covered,
    or nothing showed which release runs), the release it stands for (or ``""`` for an unknown one)."""
    from argtrace.frameworks.schema import version_key

    covered = model_caps.releases(framework)
    if not covered:
        return None
    version = report.framework.version
    known = bool(version) and report.framework.source not in (None, "none")
    if known and version in covered:
        return model_caps.release(framework, version), None
    if known and version:
        # a post release of the named one (0.6.6.post1 for 0.6.6) is that release with fixes on top: its
        # registry stands in better than the release before (0.6.5 lacks the DeepseekV3ForCausalLM that
        # 0.6.6 added)
        post = [r for r in covered if r.startswith(f"{version}.post")]
        if post:
            return model_caps.release(framework, min(post, key=version_key)), version
        older = [r for r in covered if version_key(r) <= version_key(version)]
        if not older:
            return None
        return model_caps.release(framework, older[-1]), version
    analysed = report.framework.release
    use = analysed if analysed in covered else covered[-1]
    return model_caps.release(framework, use), ""


def _rests_on_release(finding: Finding, framework: str, read_from: str, stand_in: str) -> Finding:
    """A finding read from another release's table than the one that runs: at most a warning (a note stays
    a note), basis assumed, and the release it was read from named: the newest covered release before the
    named one, or, when nothing showed which release runs, the release the analysis used."""
    from argtrace.model import Assumption

    severity = "warning" if finding.severity == "error" else finding.severity
    value = f"{framework} {read_from}" + (f" for {stand_in} (not covered)" if stand_in else "")
    what = Assumption("release", value, RELEASE_OPTION)
    return replace(finding, severity=severity, basis="assumed", assumptions=(*finding.assumptions, what))


def _where(cls: Any, framework: str = "vllm") -> str:
    """``MiniCPMV4_6ForConditionalGeneration (vllm/model_executor/models/minicpmv4_6.py)``, with the class's
    name when the architecture is served by a class of another name (SGLang's: ``sglang/srt/models/``)."""
    module, _, name = cls.impl.partition(":")
    package = "sglang/srt/models" if framework == "sglang" else "vllm/model_executor/models"
    path = (
        module.replace(".", "/") + ".py" if module.startswith(f"{framework}.") else f"{package}/{module}.py"
    )
    return f"{cls.arch} ({path}" + (f", class {name})" if name != cls.arch else ")")


def _site_words(site: Any, values: Mapping[str, str]) -> str:
    import re

    text = re.sub(r"\{([^{}]*)\}", lambda m: values.get(m.group(1), m.group(0)), site.message)
    return f'{site.function} ({site.file}:{site.line}) raises {site.exception}: "{text}"'


def _unregistered(
    report: Report, table: Any, archs: list[str], evidence: list[Evidence], rules: Any, model_caps: Any
) -> list[Finding]:
    """RS047: no architecture of config.json is registered in the release."""
    fw, version = table.framework, table.version
    shown = str(archs)
    later = [(a, model_caps.first_registering(fw, a)) for a in archs]
    newer = [(a, r) for a, r in later if r is not None]
    removed = [(a, table.previously[a]) for a in archs if a in table.previously]
    site = table.refusals.get("previously" if removed else "unsupported")
    if removed:
        arch, until = removed[0]
        refusal = _site_words(site, {"arch": arch, "previous_version": until}) if site else ""
        what = f"{fw} {version} no longer registers {arch} (supported until {until})"
        fix = f"use {fw} {until} or older for this model, or a checkpoint of an architecture {version} has"
    else:
        refusal = _site_words(site, {"architectures": shown, "all_supported_archs": "..."}) if site else ""
        what = f"{fw} {version} registers no model class for {shown}"
        if newer:
            arch, first = newer[0]
            what += f" (the first covered release that registers {arch}: {fw} {first})"
            fix = f"use {fw} {first} or newer"
        else:
            fix = "use a release that registers the architecture, or a checkpoint of one this release has"
    blocked = _fallback_cannot(report, table)
    if table.transformers_fallback and blocked is not None:
        words, interface, backend, site = blocked
        message = (
            f"{what}; {words} needs {interface}, which its Transformers backend ({backend}) does not "
            f"implement either: whether or not the installed transformers has {archs[0]}, the launch is "
            f"refused ({refusal or 'the registry'}; or, loaded through the backend, {_site_words(site, {})})"
        )
        severity = "error"
    elif table.transformers_fallback:
        message = (
            f"{what}: it starts only through the Transformers backend, if the installed transformers "
            f"has a compatible {archs[0]} class; otherwise {refusal or 'the registry refuses it'}"
        )
        severity = "info"
    else:
        message = (
            f"{what}, and this release has no Transformers fallback: {refusal or 'it refuses the model'}"
        )
        severity = "error"
    return [rules.RS047.finding(message, severity=severity, setting="model", fix=fix, evidence=evidence)]


def _asks(report: Report) -> list[tuple[str, str, str]]:
    """What the launch asks of the model class: (flag, the launch's words, the interface that gives it)."""
    out = []
    if _effective(report, "enable_lora") is True:
        out.append(("lora", "--enable-lora", "SupportsLoRA"))
    pp = _effective(report, "pipeline_parallel_size")
    if isinstance(pp, int) and not isinstance(pp, bool) and pp > 1:
        out.append(("pp", f"--pipeline-parallel-size {pp}", "SupportsPP"))
    if _effective(report, "limit_mm_per_prompt"):
        out.append(("mm", "--limit-mm-per-prompt", "SupportsMultiModal"))
    return out


def _fallback_cannot(report: Report, table: Any) -> tuple[str, str, str, Any] | None:
    """For an unregistered architecture in a release with a Transformers backend: something the launch asks
    that none of the release's Transformers* classes implements, and the release's check that refuses it
    (vLLM 0.7.3-0.9.2's backend is text-only: ``--limit-mm-per-prompt`` is refused either way)."""
    backends = [c for a, c in table.archs.items() if a.startswith("Transformers")]
    if not backends or not all(c.known for c in backends):
        return None
    flag_of = {"lora": "lora", "pp": "pp", "mm": "multimodal"}
    for flag, words, interface in _asks(report):
        site = table.refusals.get(flag)
        if site is not None and not any(flag_of[flag] in c.flags for c in backends):
            names = ", ".join(sorted(c.arch for c in backends))
            return words, interface, names, site
    return None


def _lora(report: Report, table: Any, cls: Any, evidence: list[Evidence], rules: Any) -> list[Finding]:
    """RS048: ``--enable-lora`` on a class whose MRO sets no ``supports_lora``."""
    if _effective(report, "enable_lora") is not True or "lora" in cls.flags:
        return []
    site = table.refusals.get("lora")
    if site is None:
        return []
    name = cls.impl.rpartition(":")[2]
    values = {
        k: name for k in ("model.__class__.__name__", "self.model.__class__.__name__", "model_class.__name__")
    }
    message = (
        f"--enable-lora, but {_where(cls)} does not implement SupportsLoRA in vllm {table.version}: "
        f"{_site_words(site, values)} when the model is loaded"
    )
    return [
        rules.RS048.finding(
            message,
            setting="enable_lora",
            fix=_lora_fix(table, cls.arch),
            evidence=evidence,
        )
    ]


def _lora_fix(table: Any, arch: str) -> str:
    from argtrace.frameworks import model_caps
    from argtrace.frameworks.schema import version_key

    later = [
        v
        for v, cls in model_caps.history("vllm", arch)
        if version_key(v) > version_key(table.version) and "lora" in cls.flags
    ]
    if later:
        return (
            f"remove --enable-lora (and --lora-modules), or use vllm {later[0]} or newer, whose {arch} "
            "supports LoRA"
        )
    return "remove --enable-lora (and --lora-modules), or merge the adapter into the weights offline"


def _pp(report: Report, table: Any, cls: Any, evidence: list[Evidence], rules: Any) -> list[Finding]:
    """RS049: ``--pipeline-parallel-size`` > 1 on a class whose MRO sets no ``supports_pp``."""
    pp = _effective(report, "pipeline_parallel_size")
    if not isinstance(pp, int) or isinstance(pp, bool) or pp <= 1 or "pp" in cls.flags:
        return []
    site = table.refusals.get("pp")
    if site is None:
        return []
    message = (
        f"--pipeline-parallel-size {pp}, but {_where(cls)} does not implement SupportsPP in vllm "
        f"{table.version}: {_site_words(site, {})}"
    )
    return [
        rules.RS049.finding(
            message,
            setting="pipeline_parallel_size",
            fix=f"--pipeline-parallel-size 1, and --tensor-parallel-size for the GPUs ({pp} x the TP size)",
            evidence=evidence,
        )
    ]


def _sglang_pp(
    report: Report, table: Any, cls: Any, evidence: list[Evidence], rules: Any, model_caps: Any
) -> list[Finding]:
    """RS049 for SGLang: ``--pp-size`` > 1 on a class whose ``forward`` takes no ``pp_proxy_tensors``:
    ModelRunner's gate reads the signature and asserts (0.5.23 model_executor/model_runner.py:508-516). A
    release read before the table had the flag (no ``pp`` site) says nothing."""
    from argtrace.frameworks.schema import version_key

    pp = _effective(report, "pp_size")
    site = table.refusals.get("pp")
    if not isinstance(pp, int) or isinstance(pp, bool) or pp <= 1 or "pp" in cls.flags or site is None:
        return []
    message = (
        f"--pp-size {pp}, but the forward() of {_where(cls, 'sglang')} takes no pp_proxy_tensors in sglang "
        f"{table.version}, so the model has no pipeline-parallel support: {_site_words(site, {})} when "
        "the model is loaded, after the weights"
    )
    later = [
        v
        for v, other in model_caps.history("sglang", cls.arch)
        if version_key(v) > version_key(table.version)
        and "pp" in other.flags
        and model_caps.refuses("sglang", v, "pp")
    ]
    fix = f"--pp-size 1, and --tp-size for the GPUs ({pp} x the TP size)"
    if later:
        fix += f"; or sglang {later[0]} or newer, whose {cls.arch} takes pp_proxy_tensors"
    return [rules.RS049.finding(message, setting="pp_size", fix=fix, evidence=evidence)]


def _mm(report: Report, table: Any, cls: Any, evidence: list[Evidence], rules: Any) -> list[Finding]:
    """RS050: ``--limit-mm-per-prompt`` on a class that takes no multimodal input."""
    limits = _effective(report, "limit_mm_per_prompt")
    if not limits or "multimodal" in cls.flags:
        return []
    site = table.refusals.get("mm")
    if site is not None:
        message = (
            f"--limit-mm-per-prompt on {cls.arch}, which takes no multimodal input in vllm "
            f"{table.version}: {_site_words(site, {})}"
        )
        severity = "error"
    else:
        message = (
            f"--limit-mm-per-prompt on {cls.arch}, which takes no multimodal input in vllm {table.version}: "
            "the release builds no multimodal config for it and the limits are dropped"
        )
        severity = "info"
    return [
        rules.RS050.finding(
            message,
            severity=severity,
            setting="limit_mm_per_prompt",
            fix="remove --limit-mm-per-prompt (the model reads text only)",
            evidence=evidence,
        )
    ]
