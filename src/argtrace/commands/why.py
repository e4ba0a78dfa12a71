"""``argtrace why "ERROR TEXT"``: where a framework raises or logs this message, under which condition, which
settings that condition reads, in which releases the site exists, and how to avoid it.

Matches the bundled message indexes (every ``raise``, ``assert``, logger warning/error and
``warnings.warn`` of the packages, generated from the wheels' AST by scripts/gen_messages.py; see
docs/why.md): placeholders are wildcards, log and exception prefixes are dropped, a truncated message still
matches, the most specific site comes first. When no site matches (a CUDA out-of-memory error comes from
torch, not the framework) the log signatures say what it means, and ``more`` names the command that tells
more (``argtrace mem ...``, ``argtrace log LOG``) with what was given filled in.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Mapping, Sequence

from argtrace.commands.why_fixes import (
    converter_fix,
    failing_first,
    hub_repo_fix,
    in_conditions,
    in_one_line,
    key_handler_fix,
    lookup_handler_fix,
    peer_mismatch_fix,
    quant_config_fix,
    refused_json_fix,
    registry_fix,
    replacement_fix,
    request_fields,
    request_length_note,
    weight_name_fix,
)
from argtrace.commands.why_library import library_settings
from argtrace.commands.why_release import framework_of_text, preferred_release
from argtrace.commands.why_signatures import flags_known_in, matched_signatures, more_commands
from argtrace.frameworks.sglang_helpers import helper_reads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.log.messages import Match, Preferred
    from argtrace.model import Report

NAME = "why"
HELP = "explain a framework error message: the raise site, its condition, the settings it reads, the fix"
MAX_GROUPS = 8
RELATIVE = 0.5  # a group is shown when its specificity is at least this share of the best one's


# vLLM's interface checks on a model's class (vllm/model_executor/models/interfaces.py: supports_lora,
# supports_pp, supports_multimodal, ...): ``not supports_lora(model)`` in V1's LoRAModelRunnerMixin.
# load_lora_model reads nothing a flag sets, yet the class is the model's (--model) and the check runs only
# for the feature whose configuration object the predicate names (``lora_config``, made by --enable-lora):
# the reads that name both, as V0's GPUModelRunnerBase.load_model reads them (vllm#41899)
# (a module function called on the model, not a backend's own ``cls.supports_sink()``)
_INTERFACE = re.compile(r"(?<![\w.])supports_([a-z]+)\((?:self\.)?model\b")


def _interface_reads(conditions: Iterable[str], reads: Iterable[str]) -> list[str]:
    seen = set(reads)
    out: list[str] = []
    for condition in conditions:
        for feature in _INTERFACE.findall(condition):
            out += ["self.model", f"self.{feature}_config"]
    return [r for r in dict.fromkeys(out) if r not in seen]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "error_text",
        metavar="ERROR_TEXT",
        help="the error message (or a part of it); '-' reads it from standard input, the path of a file "
        "reads that file (a traceback saved from the server's output)",
    )
    parser.add_argument("--framework", choices=("sglang", "vllm"), help="only this framework")
    parser.add_argument(
        "--framework-version",
        metavar="V",
        help="only this release's sites (a release without a message index: the nearest indexed one's first)",
    )
    # Used to fill in the follow-up commands ``more`` suggests; of --log only the version line is read.
    parser.add_argument("--model-config", metavar="DIR|config.json", help="the model (for the mem command)")
    parser.add_argument("--gpu", metavar="NAME[xN]", help="the GPU profile (for the mem command)")
    parser.add_argument(
        "--log",
        metavar="LOG",
        help="the server log the message came from (its version line ranks that release first)",
    )
    parser.add_argument("--all", action="store_true", help="every matching site, not only the best ones")


def _shown(setting: Mapping[str, Any]) -> str:
    """A setting as the fix names it: its flag, with the fields read when the flag takes a whole
    configuration (``--speculative-config`` fields num_speculative_tokens, method)."""
    flag = str(setting["flag"] or setting["name"])
    fields = setting.get("fields")
    return f"{flag} (its {', '.join(fields)})" if fields else flag


# words a message uses to say its own condition cannot hold: reaching it is the code's bug, not a value's
_BUG_SAID = re.compile(r"\b(?:should (?:not|never) (?:happen|occur)|this is a bug|indicates a bug)\b", re.I)


def _avoid(group: Mapping[str, Any]) -> str:
    """How to avoid the message, from its kind, condition and settings."""
    cond = group["condition"]
    chosen = failing_first(in_conditions(group) or group["settings"], cond, str(group["message"]))
    flags = [_shown(s) for s in chosen]
    change = f": change {', '.join(flags)}" if flags else ""
    value = next((s for s in group["settings"] if "value" in s), None)
    if group.get("library") and value is not None:
        named = ", ".join(dict.fromkeys(f"{s['flag']} ({s['framework']})" for s in group["settings"]))
        refused = f"{group['framework']} refused {value['value']!r}, which comes from {named}"
        return f"{refused}: {value['how']}; {value['fix']}"
    if cond and cond.startswith("except") and group.get("library") and not _prints_caught(group["message"]):
        # transformers' AutoConfig turns its own KeyError (a model_type it lacks) into a ValueError that
        # says the way out; no server setting is read, and the KeyError is not in the text
        caught = cond[len("except") :].strip() or "an exception"
        advice = _ADVICE.search(group["message"])
        said = f": its message says {advice.group(0).strip()!r}" if advice else ""
        return (
            f"{group['framework']} raises this in {group['function']} when its own lookup fails ({caught}), "
            f"not from a server setting{said}"
        )
    handler = next((c for c in group["conditions"] if c.startswith("except")), None)
    if handler is not None and group["kind"] == "log" and group.get("level") == "exception":
        # vLLM's "EngineCore failed to start." (logger.exception in its except handler, under `engine_core
        # is None`): it logs the traceback of the error it caught, which is the cause, not its own condition
        caught = handler[len("except") :].strip() or "an exception"
        return (
            f"this reports {caught} raised by the code it wraps, with its traceback: the exception at the "
            "end of that traceback is the cause (fix that)"
        )
    what = "logged" if group["kind"] in ("log", "warn") else "raised"
    if flags and _TO_LOG.search(_PLACEHOLDER.sub(" ", str(group["message"]))):
        # vLLM's V0 "Engine process failed to start. See stack trace for the root cause." (under `not
        # envs.VLLM_USE_V1`), SGLang Diffusion's "Rank 0 scheduler is dead. Please check if there are relevant
        # logs." (under `--nnodes`/`--node-rank`), the executor's "Worker failed with error ..., please check
        # the stack trace above" (under `--enable-fault-tolerance`): the message says the cause is an earlier
        # error; the settings its conditions read only chose the code path that reports it
        return (
            f"{what} in {group['function']} after another failure, which its message points to: the cause is "
            f"logged before it (read the whole log: argtrace log LOG); {', '.join(flags)} only chose the "
            "code path that reports it, and changing it does not remove that cause"
        )
    advice = _ADVICE.search(_PLACEHOLDER.sub(" ", str(group["message"])))
    lookup = lookup_handler_fix(group, advice.group(0) if advice else None)
    if lookup is not None:
        return lookup + change
    keyed = key_handler_fix(group, change)
    if keyed is not None:
        return keyed
    if cond and cond.startswith("except"):
        caught = cond[len("except") :].strip() or "an exception"
        return (
            f"this reports {caught} raised by the code it wraps; the text after the message is the cause "
            "(fix that)" + change
        )
    impossible = _BUG_SAID.search(_PLACEHOLDER.sub(" ", str(group["message"])))
    if impossible and cond:
        # SGLang's EAGLE "length of new_indices: {n} != length of topk_p: {m}, this should not happen"
        # (sglang#14368): its own code says the state is impossible, so reaching it is the release's bug
        verb = "decides" if len(flags) == 1 else "decide"
        chose = f"; {', '.join(flags)} only {verb} whether the check runs or how it reports" if flags else ""
        return (
            f"{what} in {group['function']} on a state its own code says is impossible (its message: "
            f"{impossible.group(0)!r}): a bug of the release, not a setting's value: a release with the "
            f"fix, or its issue tracker{chose}"
        )
    reads = list(group.get("reads") or ())
    outer = [c for c in group["conditions"][:-1] if not _on_device(c, reads) and not c.startswith("except")]
    # an elif chain's "not (backend == X)" conditions hold on the way; the chosen branch's test is the one
    outer = [c for c in outer if not c.startswith("not (")] or outer
    if cond and _on_device(cond, reads) and not outer:
        return f"the condition {cond} is the GPU's or platform's: no launch setting changes it{change}"
    if cond and _on_device(cond, reads) and outer:
        # vllm#9096: "not (current_platform.is_cpu())" holds on any GPU; what the launch chose is outside
        return (
            f"the condition {cond} is the GPU's or platform's: no launch setting changes it; make an "
            f"enclosing one false: {'; '.join(outer)}{change}"
        )
    if cond and _on_environment(cond, str(group["message"])):
        # llmflux#50: "FlashInfer is not available ..." under not (is_flashinfer_available): what is
        # installed decides it, not a launch setting
        enclosing = f"; or make an enclosing one false: {'; '.join(outer)}" if outer else ""
        return (
            f"the condition {cond} is the environment's (whether a package is installed or the platform "
            f"offers it): no launch setting changes it; install what the message names{enclosing}{change}"
        )
    if not flags and _TO_LOG.search(str(group["message"])):
        # vllm#17630's "Model architectures [...] failed to be inspected. Please check the logs for more
        # details.": its condition is the code's own state; the message itself says where the cause is
        return (
            f"{what} in {group['function']} after another failure, which its message points to: the cause is "
            "logged before it (read the whole log: argtrace log LOG)"
        )
    counted = _AVAILABLE.search(cond or "")
    if cond and flags and counted:
        # gpustack#4280: "Tensor parallel size (2) exceeds available GPUs (1)" under `world_size >
        # available_gpus`: the settings are one side; what the process (or its Ray cluster) sees is the other
        name = counted.group(1) or counted.group(2)
        return (
            f"make the condition false ({cond}){change}, or give the engine more of what {name} counts (the "
            "devices the process, or the Ray cluster it joins, sees)"
        )
    if cond:
        note = request_length_note(str(group["message"]))
        return f"make the condition false ({cond}){change}{note}"
    if flags:
        return f"{what} unconditionally in {group['function']}{change}"
    asked = request_fields(group)
    if asked:
        return asked
    if advice:  # vLLM's DeepGEMM stand-in "... Please install or update the `deep_gemm` ...": its own way out
        return f"{what} unconditionally in {group['function']}: its message says {advice.group(0).strip()!r}"
    return f"{what} unconditionally in {group['function']}: avoid the call path that reaches it"


def group_matches(
    matches: list[Match],
    framework: str | None,
    version: str | None,
    every: bool,
    prefer: Sequence[Preferred] = (),
) -> list[dict[str, Any]]:
    from argtrace.layers.log.sites import named_locals, settings_of
    from argtrace.layers.resolution import fix_hint
    from argtrace.resolver.message_store import indexed_releases, is_library

    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    settings_for: dict[int, tuple[Any, str | None, str]] = {}  # id(group): (its first site, release, text)
    for m in matches:
        site = m.site
        key = (site.framework, site.function, site.template)
        group = groups.get(key)
        only = None if is_library(site.framework) else version  # a framework's release, not a library's
        releases = [v for v in site.at if not only or v == only]
        newest = releases[-1] if releases else None
        if group is None:
            func = site.function.rsplit(".", 1)[-1]
            group = groups[key] = {
                "framework": site.framework,
                "function": site.function,
                "kind": site.kind,
                "exception": site.what,
                "level": site.what if site.kind == "log" else None,
                "message": site.template,
                "score": m.score,
                "specificity": m.specificity,
                "how": m.how,
                "file": site.file,
                "line": site.at[newest][0] if newest else None,
                "condition": site.conditions[-1] if site.conditions else None,
                "conditions": list(site.conditions),
                "settings": [],  # below, for the groups shown only
                "reads": list(site.reads),
                "versions": [],
                "releases": [],
                "fix": fix_hint(func, site.template),
                "index": site.source,
            }
            if is_library(site.framework):
                group["library"] = True
            settings_for[id(group)] = (site, newest, m.text)
        for v in releases:
            for line in site.at[v]:
                group["versions"].append({"version": v, "at": f"{site.file}:{line}"})
            if v not in group["releases"]:
                group["releases"].append(v)
        group["score"] = max(group["score"], m.score)
    from argtrace.resolver.message_store import sort_releases
    from argtrace.resolver.raise_index import bundled

    out = list(groups.values())
    # the settings of each group shown (naming them loads the schema of a site's release: dozens of
    # releases for a check every release has, issue 18); the others are dropped below, unread
    for group in out if every else _groups_shown(out):
        site, newest, text = settings_for[id(group)]
        reads = list(site.reads)
        if site.framework == "sglang":  # a helper's reads (attn_dp_enabled_of(view): --attn-dp-size)
            reads += helper_reads(newest, site.conditions, reads)
        if site.framework == "vllm":  # a model class's interface check (supports_lora(model))
            reads += _interface_reads(site.conditions, reads)
        group["settings"] = (
            settings_of(site.framework, newest, reads, site.template, text, site.function)
            if not is_library(site.framework)
            else library_settings(site.framework, site.parts, text, framework)[0]
        )
        had = {s["name"] for s in group["settings"]}
        # a local the message names too, unless a setting of that name was found (the message's own flag:
        # vLLM 0.7's "num_speculative_tokens was provided without speculative_model")
        extra = [e for e in named_locals(site.conditions, site.template, reads) if e[5:] not in had]
        if extra and not is_library(site.framework):
            # after the settings found without it (the text's placeholders name them when the reads name
            # none: "with ... backend" for --attention-backend), so those stay first
            more = settings_of(site.framework, newest, reads + extra, site.template, "", site.function)
            group["settings"] += [s for s in more if s["name"] not in had]
    for group in out:
        group["releases"] = sort_releases(group["releases"])
        order = {v: i for i, v in enumerate(group["releases"])}
        group["versions"].sort(key=lambda e: (order[e["version"]], e["at"]))
        if group["versions"]:  # file:line of the preferred release, else the newest (a site may move)
            wanted = {p.version for p in prefer if p.framework == group["framework"]}
            shown = [e for e in group["versions"] if e["version"] in wanted] or group["versions"]
            file, _, line = shown[-1]["at"].rpartition(":")
            group["file"], group["line"] = file, int(line)
        known = set(indexed_releases(group["framework"]))
        if group["index"] == "raise_sites" or group["file"].endswith("server_args.py"):
            known |= {v for fw, v in bundled() if fw == group["framework"]}
        group["absent_in"] = [v for v in sort_releases(known) if v not in group["releases"]]
        if group["fix"] is None:
            text = settings_for[id(group)][2]
            release = next((p.version for p in prefer if p.framework == group["framework"]), None)
            group["fix"] = (
                converter_fix(group, text)
                or refused_json_fix(group, text, release)
                or registry_fix(group, text)
                or replacement_fix(group, text)
                or weight_name_fix(group, text)
                or hub_repo_fix(group, text)
                or quant_config_fix(group, text)
                or peer_mismatch_fix(group)
                or _avoid(group)
            )
    _mark_vendored(out)
    if out and not every:
        out = _groups_shown(out)
    return out


def _groups_shown(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The groups ``why`` shows without ``--all``: within :data:`RELATIVE` of the best specificity, at most
    :data:`MAX_GROUPS`, and every reason matched whole. Reads only what a group has when created."""
    if not groups:
        return groups
    # a reason site (kind ``reason``) is short ("head_size not supported"): it is kept whenever it
    # matched whole, for the message that prints it (``_attach_reasons``), and does not set the bar
    best = next((g for g in groups if g["kind"] != "reason"), groups[0])["specificity"]
    shown = [g for g in groups if g["specificity"] >= best * RELATIVE][:MAX_GROUPS]
    return shown + [g for g in groups if g["kind"] == "reason" and g["how"] == "full" and g not in shown]


# A condition on the device itself: the GPU's compute capability or platform, which no launch setting changes.
_DEVICE = re.compile(
    r"device_capability|compute_capability|is_device_capability|\bis_(?:cuda|rocm|xpu|cpu|hip|tpu)\b"
    r"|current_platform|torch\.cuda\.|torch\.version\.(?:cuda|hip)"
    # the device's capability against the minimum a quantization method needs (vLLM's
    # _get_quantization_config: capability_tuple = current_platform.get_device_capability(), then
    # `capability < quant_config.get_min_capability()`; vllm#22288's MXFP4 on SM75)
    r"|\bget_min_capability\(\)|\bcapability_tuple\b"
)
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
# a count of what the machine offers, compared against a setting (vLLM's `world_size > available_gpus`)
_AVAILABLE = re.compile(r"[<>]=?\s*(available_\w+)\b|\b(\w+_available)\s*[<>]")
# a library message's own way out (transformers: "You can update Transformers with the command `pip install
# --upgrade transformers`.")
_ADVICE = re.compile(r"[^.\n]*\b(?:update|upgrade|install)\b[^\n]*?(?:\.(?=\s|$)|$)", re.IGNORECASE)
# a message that sends the reader to the log for the real error ("Please check the logs for more details.",
# "See root cause above.", "See stack trace (above) for the root cause")
_TO_LOG = re.compile(
    r"\b(?:check|see|consult)\b[^.\n]{0,40}\b(?:logs?|root cause|stack trace|traceback)\b", re.IGNORECASE
)


# a name that says whether an import or a platform feature succeeded: is_flashinfer_available(),
# HAS_TRITON, FA3_AVAILABLE (a port's is_port_available is the launch's own --port)
# (a module's private flag too: vLLM's ``_flashmla_C_AVAILABLE``, set by whether its extension imported)
_ENVIRONMENT = re.compile(r"\b(?!is_port_)is_\w+_available\b|\bHAS_[A-Z0-9_]+\b|\b\w*_AVAILABLE\b")


def _on_environment(condition: str, message: str = "") -> bool:
    """A condition only on what is installed (``not (is_flashinfer_available)``), reading no server
    object or configuration; or a bare name tested against None under a message that says something "is
    not available" or "not installed" (vLLM's NixlConnector: "NIXL is not available" under
    ``nixl_wrapper_cls is None``, the class its module imports from nixl or sets to None: vllm#32222,
    intel-xpu-backend-for-triton#7419)."""
    if re.fullmatch(r"[A-Za-z_]\w* is None", condition.strip()) and _UNAVAILABLE.search(message):
        return True
    return bool(_ENVIRONMENT.search(condition)) and not re.search(r"\bself\.|config|args\b", condition)


_UNAVAILABLE = re.compile(r"\b(?:is|are) not (?:available|installed)\b", re.I)


def _prints_caught(template: str) -> bool:
    """Whether a message prints the exception its ``except`` handler caught (``{e}``, ``{exc}``...)."""
    from argtrace.commands.why_wrapped import CAUGHT

    return any(hole.strip() in CAUGHT for hole in _PLACEHOLDER.findall(template))


_SELF_ATTR = re.compile(r"\bself\.(\w+)\b(?!\.)")


def _on_device(condition: str, reads: Sequence[str]) -> bool:
    """A condition on the device: it names one (``current_platform.is_cpu()``), or it tests a ``self.X`` the
    class assigns from one (vLLM 0.6-0.7's ``not self.device_type``, ``self.device_type =
    current_platform.device_type``: the generator records what a class assigns to ``self.X`` among the
    reads)."""
    if _DEVICE.search(condition):
        return True
    attrs = _SELF_ATTR.findall(condition)
    return bool(attrs) and all(
        any(r.endswith("." + attr) and not r.startswith("self.") and _DEVICE.search(r) for r in reads)
        for attr in attrs
    )


def _attach_reasons(groups: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """A site whose message carries a reason another function handed back (``kind``: ``reason``:
    ``return False, "FA2 is only supported ..."``, ``invalid_reasons.append("head_size not supported")``)
    is explained by that reason's own site when the pasted text holds both: the reason goes under the
    message's site as ``because`` (its function, condition, settings) and its condition into the fix; the
    message's site comes first. A reason that matched with no message site stays a match of its own."""
    reasons = [g for g in groups if g["kind"] == "reason" and g["how"] == "full"]
    hosts = [
        g
        for g in groups
        if g["kind"] != "reason" and g["how"] == "full" and _PLACEHOLDER.search(g["message"])
    ]
    if not reasons or not hosts:
        return groups
    host = hosts[0]
    literal = _PLACEHOLDER.sub("\0", host["message"])
    lines = text.splitlines()
    because = [
        r
        for r in reasons
        if _PLACEHOLDER.sub("", r["message"]).strip() not in literal and in_one_line(r["message"], lines)
    ]
    # "FA3 is only supported ... 8.9" is the start of "... 8.9 and Blackwell archs (>=10)": the longer one
    plain = {id(r): _PLACEHOLDER.sub("", r["message"]) for r in because}
    because = [r for r in because if not any(o is not r and plain[id(r)] in plain[id(o)] for o in because)]
    if not because:
        return groups
    host["because"] = [
        {
            k: r[k]
            for k in (
                "framework",
                "function",
                "file",
                "line",
                "message",
                "condition",
                "conditions",
                "settings",
            )
        }
        for r in because
    ]
    said = []
    for r in because:
        cond = r["condition"] or "always"
        line = f"{r['function']} gives the reason {r['message']!r} when {cond}"
        if _DEVICE.search(cond):
            line += " (the GPU's compute capability or platform: no launch setting changes that)"
        elif r["settings"]:
            line += f": change {', '.join(_shown(s) for s in r['settings'])}"
        said.append(line)
    # the message's conditions the reason explains: those on its reason placeholder (``invalid_reasons``,
    # ``fa_version_unsupported_reason(...)``); the others still decide whether it is raised
    filled = [p for p in _PLACEHOLDER.findall(host["message"]) if re.search(r"reason|unsupported", p)]
    names = {n for p in filled for n in re.findall(r"[A-Za-z_]\w*", p)}
    rest = [c for c in host["conditions"] if not names & set(re.findall(r"[A-Za-z_]\w*", c))]
    if rest:
        said.append("or make false: " + "; ".join(rest))
    host["fix"] = "; ".join(said)
    return [host] + [g for g in groups if g is not host and all(g is not r for r in because)]


_PLATFORMS = (
    ("rocm", r"\bROCM_\w+|\bROCm\b|\bHIP\b|\bgfx9\d\w*|\bMI[23]\d\dX?\b|\baiter\b"),
    ("xpu", r"\bXPU\b|\bIntel\(R\) (?:Arc|Data Center)"),
    ("npu", r"\bNPU\b|\bAscend\b"),
)


def _platform_first(groups: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """Sites of equal match whose file is the platform the text names (``ROCM_ATTN``, ``gfx942``, ``XPU``)
    come before the same check of another platform (vLLM's ``platforms/cuda.py`` and ``platforms/rocm.py``
    raise the same "Selected backend ... is not valid" message)."""
    named = [name for name, words in _PLATFORMS if re.search(words, text)]
    if len(named) != 1:
        return groups
    other = [name for name, _ in _PLATFORMS if name != named[0]] + ["cuda"]

    def rank(group: Mapping[str, Any]) -> tuple[int, int]:
        file = str(group.get("file") or "")
        own = named[0] in file
        foreign = any(o in file for o in other)
        return (-int(group.get("specificity") or 0), 0 if own else 2 if foreign else 1)

    top = groups[0]["specificity"] if groups else 0
    same = [g for g in groups if g["specificity"] == top and g["how"] == groups[0]["how"]]
    return sorted(same, key=rank) + [g for g in groups if g not in same]


def _default_loader_first(
    groups: list[dict[str, Any]], text: str, prefer: Sequence[Preferred] = ()
) -> list[dict[str, Any]]:
    """Sites of equal match in a vLLM loader class that only a non-default ``--load-format`` selects
    (``BitsAndBytesModelLoader``: ``bitsandbytes``) come after the others (``DefaultModelLoader``, what
    ``auto`` runs), unless the text names one of that class's formats: both raise "Following weights were not
    initialized from checkpoint", and a launch runs the former only when it asks for that format (vLLM's
    get_model_loader, data/vllm_model_loaders.json)."""
    from argtrace.frameworks.vllm_model_loaders import non_default_loaders

    loaders = non_default_loaders()

    def rank(group: Mapping[str, Any]) -> int:
        cls = str(group.get("function") or "").split(".", 1)[0]
        formats = loaders.get(cls) if group.get("framework") == "vllm" else None
        if not formats:
            return 0
        # ``bitsandbytes_loader.py`` in a traceback names the format too; the class by its name
        if cls in text or any(re.search(rf"(?<![a-z]){re.escape(f)}(?![a-z])", text, re.I) for f in formats):
            return 0
        return 1

    def tie(group: Mapping[str, Any]) -> tuple[Any, ...]:
        # a preferred release's sites come first already: a tie is within that release or outside it
        held = tuple(p.version in (group.get("releases") or ()) for p in prefer if p.framework == "vllm")
        return (group.get("specificity"), group.get("how"), held)

    # the leading run of ties only: a later site of equal match sits below others for a reason of its own
    run = 0
    while run < len(groups) and tie(groups[run]) == tie(groups[0]):
        run += 1
    return sorted(groups[:run], key=rank) + groups[run:]


def _mark_vendored(groups: list[dict[str, Any]]) -> None:
    """A framework site whose function and message are an indexed library's (``flash_attn``'s
    ``_flash_attn_fwd`` assert in ``vllm/vllm_flash_attn/cute/interface.py``) is a copy of that library's
    code: what its condition reads are the library function's arguments (``q.dtype``: a tensor), not the
    server's settings, so it names none; both say where the other is."""
    from argtrace.resolver.message_store import is_library

    libraries = {
        (g["function"].rsplit(".", 1)[-1], g["message"]): g for g in groups if is_library(g["framework"])
    }
    for group in groups:
        if is_library(group["framework"]):
            continue
        library = libraries.get((group["function"].rsplit(".", 1)[-1], group["message"]))
        if library is None:
            continue
        group["vendored_from"] = {"library": library["framework"], "file": library["file"]}
        group["settings"] = []
        copies = library.setdefault("vendored_in", [])
        if group["file"] not in [c["file"] for c in copies]:
            copies.append({"framework": group["framework"], "file": group["file"]})
    for group in groups:
        if group.get("vendored_from") or group.get("vendored_in"):
            cond = f" ({group['condition']})" if group["condition"] else ""
            lib = group.get("vendored_from", {}).get("library") or group["framework"]
            group["fix"] = (
                f"{lib}'s own check refused what the framework passed it{cond}: the text does not say which "
                "server setting led the launch to this kernel; `argtrace log` on the server log shows the "
                "configuration it ran with"
            )


_ARGUMENT_MODULES = r"(?:server_args|arg_utils|arg_groups/|/config/|config\.py$)"


def explain(
    text: str,
    framework: str | None = None,
    version: str | None = None,
    args: argparse.Namespace | None = None,
) -> dict[str, Any]:
    """The ``why`` section: matches grouped by site across releases, the log signatures, follow-ups."""
    from argtrace.layers.log.messages import candidates, match_text
    from argtrace.resolver.message_store import frameworks, indexed_releases

    every = bool(getattr(args, "all", False))
    indexed = {name: indexed_releases(name) for name in frameworks()}
    only, prefer, release = preferred_release(text, framework, version, args, indexed)
    matches = match_text(text, framework, only, prefer)
    groups = _attach_reasons(
        _platform_first(group_matches(matches, framework, only, every, prefer), text), text
    )
    from argtrace.commands.why_call import call_error, keep_callee_sites
    from argtrace.commands.why_context import context_first, of_the_texts_framework
    from argtrace.commands.why_library import one_file_lookup, processor_part_fix

    groups = processor_part_fix(one_file_lookup(groups, text), text)
    from argtrace.commands.why_shell import drop_word_matches, shell_error

    groups = context_first(groups, text, by_coverage=not prefer)  # twins of one message: the text's words
    groups = _default_loader_first(
        groups, text, prefer
    )  # after the twins' release spans: what the launch runs
    if framework is None and not every:  # a log's own format names the framework that printed it
        groups = of_the_texts_framework(groups, framework_of_text(text))
    shell, call = shell_error(text), call_error(text)
    if shell is not None and not every:  # a shell's message: a site matched on common words explains nothing
        from argtrace.commands.why_confidence import STRONG_CHARS

        groups = drop_word_matches(groups, STRONG_CHARS)
    if call is not None and not every:  # Python's TypeError at a call: only the named callee's sites
        groups = keep_callee_sites(groups, call["callee"])
    from argtrace.commands.why_attribute import attribute_error, keep_class_sites

    attribute = attribute_error(text, framework, version)
    if attribute is not None and not every:  # Python's AttributeError: a site of Python's words, its class's
        groups = keep_class_sites(groups, attribute["class"], attribute.get("module"))
    from argtrace.commands.why_module import keep_own_sites as keep_module_sites
    from argtrace.commands.why_module import module_error
    from argtrace.commands.why_pydantic import keep_own_sites, validation_error

    module = module_error(text, version)  # Python's ModuleNotFoundError on a framework module: its releases
    from argtrace.commands.why_confidence import STRONG_CHARS
    from argtrace.commands.why_none import none_operand

    none = none_operand(text)  # Python's TypeError on None: a flag the text names that is unset by default
    from argtrace.commands.why_weights import weight_key

    weights = weight_key(text)  # Python's KeyError on a checkpoint tensor's name at the weight loader
    from argtrace.commands.why_requires import dependency_error

    dependency = dependency_error(text)  # Python's ModuleNotFoundError on a framework's own requirement
    if dependency is not None and not every:  # the import system's words: a site sharing a few is not it
        groups = drop_word_matches(groups, STRONG_CHARS)
    from argtrace.commands.why_modeltype import model_type_key

    model_type = model_type_key(text)  # Python's KeyError of a model type: transformers' AutoConfig lookup
    if none is not None and not every:  # the interpreter's words: a site sharing a few of them is not it
        groups = drop_word_matches(groups, STRONG_CHARS)
    if module is not None and not every:
        groups = keep_module_sites(groups)
    validation = validation_error(text, framework)
    if validation is not None and not every:  # pydantic's words on a config field: its flag, not a word match
        from argtrace.commands.why_confidence import STRONG_CHARS

        groups = keep_own_sites(groups, STRONG_CHARS)
    from argtrace.commands.why_unrecognized import origin_of_parser, unrecognized_site

    if origin_of_parser(text) is not None and not every:
        # another program's argparse refusal (vllm-mlx): a framework site printing argparse's words is not it,
        # nor one sharing a few common words with the refused flags (as for a shell's message)
        from argtrace.commands.why_confidence import STRONG_CHARS

        groups = [g for g in groups if "unrecognized arguments" not in str(g.get("message") or "")]
        groups = drop_word_matches(groups, STRONG_CHARS)
    from argtrace.commands.why_pyo3 import pyo3_argument

    binding = pyo3_argument(text)  # a Rust extension's PyO3 refusal of a parameter's value (sglang-router)
    if binding is not None and not every:
        from argtrace.commands.why_confidence import STRONG_CHARS

        groups = drop_word_matches(groups, STRONG_CHARS)
    from argtrace.commands.why_router import router_text

    if router_text(text) and not every:  # a router's Rust lines: no Python site logged them
        groups = []
    parser_site = unrecognized_site(text, framework)  # argparse's own message: the parser that refused
    if parser_site is None:
        from argtrace.commands.why_choice import invalid_choice_site

        parser_site = invalid_choice_site(text, framework)  # argparse's "invalid choice"
    if parser_site is None:
        from argtrace.commands.why_enum import enum_value_site

        parser_site = enum_value_site(text, framework)  # Python's Enum: an option's value given in code
    if parser_site is not None:
        groups.insert(0, parser_site)
    if binding is not None:
        groups.insert(0, binding)
    from argtrace.commands.why_value import add_quoting_cause

    add_quoting_cause(groups, text)  # a refused value that still holds its shell quoting
    from argtrace.commands.why_value import add_empty_value_cause

    add_empty_value_cause(groups, text)  # a setting's value the text shows empty: not the command line's
    from argtrace.commands.why_quant import add_quantization_setting

    add_quantization_setting(groups, text)  # a quantization method's own check: --quantization picked it
    from argtrace.commands.why_arch import add_arch_cause

    add_arch_cause(groups, text, version)  # the registry's refusal: the releases registering the architecture
    from argtrace.commands.why_v1_fallback import add_v1_fallback_cause

    add_v1_fallback_cause(groups, text, version)  # vLLM's V1 oracle: the test that sends a launch to V0
    from argtrace.commands.why_chain import add_chain_cause

    add_chain_cause(groups, matches, text, version)  # an else chain's refusal: the releases taking the value
    from argtrace.commands.why_backend import add_backend_setting

    add_backend_setting(groups, text)  # an attention backend's own check: the flag that picked the backend
    from argtrace.commands.why_piecewise import add_piecewise_switch

    add_piecewise_switch(groups)  # a check of SGLang's piecewise CUDA graph capture: the release's switch
    from argtrace.commands.why_capture import add_capture_grid_cause

    add_capture_grid_cause(groups, text, version)  # vLLM lowering a capture maximum: the sizes it keeps
    from argtrace.commands.why_env import add_unknown_env_cause

    add_unknown_env_cause(groups, text, version)  # vLLM's unknown-variable warning: the releases reading it
    from argtrace.commands.why_dp_mode import add_dp_mode_cause

    add_dp_mode_cause(groups, text, version)  # vLLM's DP mode refusals: the flags that infer the head's mode
    from argtrace.commands.why_fallback import add_transformers_fallback

    add_transformers_fallback(groups)  # SGLang's Transformers fallback model: what makes a launch run it
    from argtrace.commands.why_warmup import add_warmup_proxy_cause

    add_warmup_proxy_cause(groups, text)  # the warmup refused with a web page: the proxy variables
    from argtrace.commands.why_register import add_registration_cause

    add_registration_cause(
        groups, text
    )  # transformers refusing a framework's own class: a newer transformers
    from argtrace.commands.why_tokenizer import add_tokenizer_class_cause

    add_tokenizer_class_cause(
        groups, text
    )  # a tokenizer class this transformers lacks: the releases that have it
    from argtrace.commands.why_oom import add_startup_fix

    add_startup_fix(groups, text)  # vLLM's free-memory check at start-up: the figures its message states
    from argtrace.commands.why_divisible import add_divisibility_cause

    add_divisibility_cause(groups)  # the parallel layers' divisibility helper: what its callers pass it
    from argtrace.commands.why_ports import add_port_cause

    add_port_cause(groups, text)  # SGLang's taken port: where the launch's ports derive it from
    from argtrace.commands.why_pp import add_pp_cause

    add_pp_cause(groups, text)  # SGLang's pipeline assert: the model class's forward decides it
    from argtrace.commands.why_oom import add_kv_size_note

    add_kv_size_note(groups, text)  # a KV-cache refusal whose available memory was given, not profiled
    if not getattr(args, "_inner", False):
        from argtrace.commands.why_wrapped import explain_inner

        inner_args = argparse.Namespace(**{**vars(args or argparse.Namespace()), "_inner": True})
        # a message reporting another error: the inner one is the cause (explained once, not recursively)
        explain_inner(groups, text, lambda inner: explain(inner, framework, version, inner_args))
    from argtrace.commands.why_traceback import (
        consequences_last,
        explain_traceback,
        reported_traceback,
        reporting,
    )

    trace = explain_traceback(text)  # frames without a message: where it failed, from the frames
    if not every:
        groups = consequences_last(groups)  # a report of a failure goes after a cause the text holds
    if trace is not None and groups and reporting(groups[0]):
        groups[0]["fix"] = f"{groups[0]['fix']}; {reported_traceback(trace)}"
        # the indexed assert the traceback ends in is the cause; the sites matched only report it
        # (a cut traceback's last raise whose message the index holds: that message is the cause, likewise)
        trace["first"] = bool(trace.get("assert") or trace.get("first")) and all(reporting(g) for g in groups)
    texts = candidates(text)
    signatures = matched_signatures(texts, framework, text)
    fw = framework or (groups[0]["framework"] if groups else None) or framework_of_text(text)
    if fw is None and signatures:
        fw = next((s["framework"] for s in signatures if s["framework"] != "any"), None)
    foreign = origin_of_parser(text)
    for sig in signatures:
        if foreign is not None and sig["id"] == "argparse-unrecognized":
            # vllm-mlx's parser: which SGLang or vLLM releases take the words says nothing about it
            prog = foreign["evidence"].split(":", 1)[0]
            sig["fix"] = f"{prog} is not SGLang or vLLM: its own options apply (`{prog} --help` lists them)"
            continue
        known = flags_known_in(sig, fw)
        if known:
            sig["known_in"] = known
    runtime = not groups or not re.search(_ARGUMENT_MODULES, groups[0]["file"])
    from argtrace.commands.why_confidence import assess

    assessed = assess(text, groups[0] if groups else None)
    if trace is not None and trace.get("assert") and (assessed["origin"] or {}).get("basis") == "frames":
        assessed["origin"] = None  # the statement it quotes is the framework's own assert (vllm#28411)
    if module is not None:
        from argtrace.commands.why_module import module_origin

        assessed["origin"] = module_origin(module, assessed["origin"])

    from argtrace.layers.log.beneath import beneath

    # a library's error under a framework frame: the cause, and where it surfaced; a log signature of the
    # text's own error (torch's CUDA OOM, NCCL's) says more, so only beside wrappers' signatures
    lib = None if any(not sig.get("wrapper") for sig in signatures) else beneath(text)
    return {
        **(
            {
                "beneath": {
                    "library": lib.library,
                    "exception": lib.exception,
                    "says": lib.sentence(),
                    "fix": lib.fix,
                }
            }
            if lib is not None and lib.exception
            else {}
        ),
        "query": " ".join(text.split()),
        "matches": groups,
        "signatures": signatures,
        "more": more_commands(" ".join(texts), fw, version, args, runtime),
        "indexed": indexed,
        "release": release,
        **assessed,
        **({"shell": shell} if shell else {}),
        **({"call": call} if call else {}),
        **({"attribute": attribute} if attribute and not attribute.get("aftermath") else {}),
        **({"validation": validation} if validation else {}),
        **({"module": module} if module else {}),
        **({"none": none} if none else {}),
        **({"weights": weights} if weights else {}),
        **({"dependency": dependency} if dependency else {}),
        **({"model_type": model_type} if model_type else {}),
        **({"traceback": trace} if trace else {}),
    }


# The text view lives in why_text.py; these names stay importable from here (tests and callers use them).
from argtrace.commands.why_text import release_spans, render_why, screen_view  # noqa: E402

__all__ = ["explain", "release_spans", "render_why", "run"]


# how much of a pasted traceback or saved output is read (a server log is `argtrace log`'s)
_TEXT_LIMIT = 1 << 20


def _error_text(argument: str) -> tuple[str, str | None]:
    """The text to explain and where it was read from: standard input for ``-``, the file an argument of one
    line names when it is one (a traceback saved to a file: the path itself was matched as the message and
    nothing matched), else the argument itself."""
    import os
    import sys

    if argument == "-":
        return sys.stdin.read(_TEXT_LIMIT), "standard input"
    if "\n" not in argument and len(argument) < 4096 and os.path.isfile(argument):
        try:
            with open(argument, encoding="utf-8", errors="replace") as f:
                return f.read(_TEXT_LIMIT), f"the file {argument}"
        except OSError:
            pass
    return argument, None


def run(args: argparse.Namespace) -> Report:
    from argtrace.model import Report, UsageError
    from argtrace.render.text import SECTION_RENDERERS

    text, read_from = _error_text(str(args.error_text))
    if not text.strip():
        raise UsageError("why: give the error text")
    SECTION_RENDERERS.setdefault("why", screen_view)
    report = Report(command="why")
    if read_from:
        report.notes.append(f"the error text is {read_from}")
    section = explain(text, args.framework, args.framework_version, args)
    report.sections["why"] = section
    if section.get("confidence") == "weak":
        report.notes.append(
            "no site matches this text well: the sites listed are candidates matched on words, not where "
            "it failed"
        )
    indexed_assert = bool((section.get("traceback") or {}).get("assert"))
    if not section["matches"]:
        report.notes.append(
            "no framework raise or log site matches"
            + ("; the log signatures above say what it means" if section["signatures"] else "")
            + (
                f"; the text comes from {origin['origin'].split(':', 1)[0]}, not from SGLang or vLLM"
                if (origin := section.get("origin"))
                else "; the assert index names the statement (above)"
                if indexed_assert
                else "; try a shorter, literal part of the message"
            )
        )
    return report
