"""Start-up settings that bite (RS020-RS023), each following one piece of the frameworks' own code; the
config.json checks RS024-RS025 are ``model_rules.py``'s, called from here.

Runs after the memory layer (``check.late_layers``): it reads the report's effective settings, the server's
environment, the ``resolution`` section (the start-up steps' details, when the resolver ran) and the
``memory`` section. Every rule says which code it follows; the line numbers are those of the releases named
(SGLang 0.5.10.post1, vLLM 0.33.0), read in their installed source.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from argtrace import localfs, safe_json
from argtrace.model import Evidence, LayerResult, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# vLLM's API server listens on --port (default 8000; vllm/entrypoints/launchers/launcher.py:379 binds it
# before the engine starts); VLLM_PORT is only the first of its internal ports.
VLLM_DEFAULT_PORT = 8000
# ModelConfig.get_diff_sampling_param (vllm/config/model.py:1882): the generation-config fields vLLM turns
# into default sampling parameters.
VLLM_SAMPLING_FIELDS = (
    "repetition_penalty",
    "presence_penalty",
    "frequency_penalty",
    "temperature",
    "top_k",
    "top_p",
    "min_p",
    "max_new_tokens",
    "skip_special_tokens",
)
# The settings that choose how Mamba / linear-attention state is cached, by framework.
# (vLLM 0.33.0's --mamba-cache-mode is deprecated and ignored whatever the model: PA016 says so.)
MAMBA_SETTINGS = {
    "sglang": ("mamba_scheduler_strategy", "mamba_radix_cache_strategy"),
}
STATE_LAYER_KINDS = ("linear_attention", "mamba")


def startup_rules(report: Report, model_dir: Path | None, memory: Mapping[str, Any] | None) -> LayerResult:
    """Findings of the start-up rules for the described server."""
    from argtrace.rules import OnFirstUse

    rules = OnFirstUse("argtrace.rules.resolution")  # imported when a helper makes a finding
    result = LayerResult()
    framework = report.framework.name
    if framework is None:
        return result
    env = dict(report.process.env) if report.process is not None else {}
    resolution = report.sections.get("resolution") or {}
    if framework == "vllm":
        result.findings.extend(vllm_port(report, env, rules))
        result.findings.extend(generation_config(report, model_dir, resolution, rules))
    if framework == "sglang":
        result.findings.extend(kv_pool_one_request(report, model_dir, resolution, memory or {}, rules))
        result.findings.extend(eagle3_target_as_draft(report, resolution, rules))
    result.findings.extend(mamba_without_mamba_layers(report, framework, model_dir, rules))
    if model_dir is not None:  # (model_rules answers [] otherwise: not imported)
        from argtrace.layers.model_rules import model_rules  # RS024-RS025: config.json without a resolver

        result.findings.extend(model_rules(report, model_dir, rules))
    if framework == "vllm" and model_dir is not None:
        if report.setting("speculative_config.method") is not None:
            from argtrace.layers.mtp_weights import mtp_weights  # RS087: the checkpoint lacks the MTP head

            result.findings.extend(mtp_weights(report, model_dir))
    if model_dir is not None:  # the model table is read only with a config.json at hand
        from argtrace.layers.model_caps import model_caps_rules
        from argtrace.rules import model_caps as caps_rules

        result.findings.extend(model_caps_rules(report, model_dir, caps_rules))
    return result


def _intended(report: Report, name: str) -> Any:
    setting = report.setting(name)
    return setting.intended if setting is not None else None


def _effective(report: Report, name: str) -> Any:
    setting = report.setting(name)
    return setting.effective if setting is not None else None


def vllm_port(report: Report, env: Mapping[str, str | None], rules: Any) -> list[Any]:
    """RS020: VLLM_PORT is vLLM's internal port (vllm/envs.py:729 ``get_vllm_port``), never the API port.

    - a URI (Kubernetes injects ``VLLM_PORT=tcp://IP:PORT`` for a Service named ``vllm``): vLLM raises
      ``VLLM_PORT '...' appears to be a URI`` (envs.py:540) where it picks an internal port
      (utils/network_utils.py ``get_open_port``/``get_open_ports_list``);
    - with no ``--port``: the server listens on 8000 whatever VLLM_PORT says;
    - equal to the API port: the internal-port scan starts at the API port, which the API server already
      holds (launcher.py:379), and moves upward (network_utils.py:248 "Port %d is already in use")."""
    value = env.get("VLLM_PORT")
    if value is None:
        return []
    text = value.strip()
    port = _effective(report, "port")
    given = _intended(report, "port") is not None
    api = port if isinstance(port, int) else VLLM_DEFAULT_PORT
    evidence = [Evidence("process", None, f"VLLM_PORT={value}")]
    if not text.isdigit():
        if "://" in text:
            return [
                rules.RS020.finding(
                    f"VLLM_PORT={value!r} is a URI: vLLM reads VLLM_PORT as the first of its internal ports "
                    "(vllm/envs.py get_vllm_port) and raises \"VLLM_PORT '...' appears to be a URI\" "
                    "(envs.py:540) the first time it picks one; Kubernetes sets VLLM_PORT=tcp://IP:PORT "
                    "in every pod of a namespace with a Service named `vllm`",
                    setting="port",
                    severity="error",
                    evidence=evidence,
                    fix="rename the Kubernetes Service (not `vllm`), or set enableServiceLinks: false in "
                    "the pod spec, or set VLLM_PORT to an integer explicitly",
                )
            ]
        return []  # not an integer: PR009 says so
    number = int(text)
    if not given and number != api:
        return [
            rules.RS020.finding(
                f"VLLM_PORT={number} does not set the API port: the server listens on --port ({api}, the "
                f"default; vllm/entrypoints/launchers/launcher.py:379) and uses {number} and up for its "
                "internal sockets (vllm/utils/network_utils.py get_open_ports_list)",
                setting="port",
                evidence=evidence,
            )
        ]
    if number == api:
        # The launch works: the scan moves past the held port. Only another server of the node listening
        # at the next ports would collide, and one launch does not show the node's other servers: info.
        return [
            rules.RS020.finding(
                f"VLLM_PORT={number} equals the API port: vLLM's internal ports start at VLLM_PORT "
                "(vllm/utils/network_utils.py _get_open_port), the API server already holds it, so they "
                f"move to {number + 1} and up, into the next server's usual port (this server starts; a "
                f"second one at {number + 1} on the node would find its port taken)",
                setting="port",
                severity="info",
                evidence=evidence,
            )
        ]
    return []


def _model_config(model_dir: Path | None) -> Any:
    """The memory layer's reading of config.json (ModelSpec), or None."""
    if model_dir is None:
        return None
    from argtrace.layers.memory.config import load_config, read_model_spec

    path = model_dir if localfs.is_file(model_dir) else model_dir / "config.json"
    try:
        return read_model_spec(load_config(path))
    except Exception:  # a config the memory layer cannot read: it reports MM002 itself
        return None


def _step_detail(resolution: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    for step in resolution.get("steps") or []:
        if isinstance(step, Mapping) and step.get("name") == name and step.get("status") == "ran":
            detail = step.get("detail")
            return detail if isinstance(detail, Mapping) else {}
    return {}


def kv_pool_one_request(
    report: Report,
    model_dir: Path | None,
    resolution: Mapping[str, Any],
    memory: Mapping[str, Any],
    rules: Any,
) -> list[Any]:
    """RS021 (SGLang): the KV pool holds fewer tokens than the context length. The TP worker caps every
    request at ``min(context_len - 1, max_token_pool_size - 1)`` (srt/managers/tp_worker.py:301-305,
    ``max_req_input_len`` 5 below that), and a longer input is rejected ("Input length (N tokens) exceeds
    the maximum allowed length (M tokens)", srt/managers/utils.py:136) unless --allow-auto-truncate cuts it.
    vLLM refuses such a launch at start-up instead (its check is the memory layer's)."""
    pool = memory.get("max_total_num_tokens")
    if not isinstance(pool, int) or pool <= 0 or memory.get("verdict") == "oom":
        return []
    context = _step_detail(resolution, "model_config").get("context_len")
    source = "the framework's ModelConfig (resolution step model_config)"
    if not isinstance(context, int):
        context = _effective(report, "context_length")
        source = "--context-length"
    if not isinstance(context, int):
        spec = _model_config(model_dir)
        context = spec.context_length if spec is not None else None
        source = "the model's config.json"
    if not isinstance(context, int) or pool >= context:
        return []
    limit = min(context - 1, pool - 1) - 5
    truncate = bool(_effective(report, "allow_auto_truncate"))
    what = "cut to that length (--allow-auto-truncate)" if truncate else "rejected"
    return [
        rules.RS021.finding(
            f"the KV pool holds {pool} tokens (memory layer, {memory.get('source') or 'static'}), fewer "
            f"than one request of the context length {context} ({source}): SGLang caps inputs at {limit} "
            f"tokens (srt/managers/tp_worker.py:301-305) and longer ones are {what} "
            "(srt/managers/utils.py:126-137)",
            setting="context_length",
            severity="info" if truncate else None,
        )
    ]


def mamba_without_mamba_layers(
    report: Report, framework: str, model_dir: Path | None, rules: Any
) -> list[Any]:
    """RS022: a Mamba caching strategy given for a model with no Mamba or linear-attention layers. SGLang
    0.5.10.post1 reads the strategy only for hybrid architectures (``_handle_mamba_radix_cache``,
    srt/server_args.py:2123, called from the per-architecture branches at 1915-2053) and when sizing the
    Mamba pool (model_executor/model_runner_kv_cache_mixin.py:373)."""
    given = [n for n in MAMBA_SETTINGS.get(framework, ()) if _intended(report, n) is not None]
    if not given:
        return []
    spec = _model_config(model_dir)
    if spec is None:
        return []
    if spec.is_hybrid or any(kind in STATE_LAYER_KINDS for kind in spec.layer_types):
        return []
    name = given[0]
    return [
        rules.RS022.finding(
            f"{name} = {_intended(report, name)!r} has no effect: {spec.architecture} has no Mamba or "
            "linear-attention layers, and the framework reads this setting only for models that do",
            setting=name,
        )
    ]


def generation_config(
    report: Report, model_dir: Path | None, resolution: Mapping[str, Any], rules: Any
) -> list[Any]:
    """RS023 (vLLM, info): ``--generation-config auto`` (the default) makes the sampling fields of the
    model's generation_config.json the server's default sampling parameters
    (``ModelConfig.get_diff_sampling_param``, vllm/config/model.py:1860-1904)."""
    if model_dir is None:
        return []
    choice = _effective(report, "generation_config")
    if choice not in (None, "auto"):
        return []
    folder = model_dir.parent if localfs.is_file(model_dir) else model_dir
    path = folder / "generation_config.json"
    if not localfs.is_file(path):
        return []
    try:
        data = safe_json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return []
    if not isinstance(data, dict):
        return []
    fields = {k: data[k] for k in VLLM_SAMPLING_FIELDS if data.get(k) is not None}
    if not fields:
        return []
    # the framework's own answer when the resolver ran (it drops values equal to HF's defaults)
    own = _step_detail(resolution, "create_engine_config").get("sampling_defaults")
    shown = own if isinstance(own, Mapping) and own else fields
    basis = "vLLM's own get_diff_sampling_param" if shown is own else "its sampling fields"
    overrides = _effective(report, "override_generation_config")
    if isinstance(overrides, Mapping) and overrides:
        shown = {k: v for k, v in shown.items() if k not in overrides}
        if not shown:
            return []
    text = ", ".join(f"{k}={v!r}" for k, v in shown.items())
    return [
        rules.RS023.finding(
            f"requests that do not set them get the model's sampling defaults {text} ({path}, {basis}), "
            "not vLLM's neutral ones: --generation-config auto is the default (vllm/config/model.py:1860)",
            setting="generation_config",
            evidence=[Evidence("resolution", str(path), json.dumps(fields, sort_keys=True)[:500])],
        )
    ]


def eagle3_target_as_draft(report: Report, resolution: Mapping[str, Any], rules: Any) -> list[Any]:
    """RS026 (SGLang): EAGLE3 with no draft model of its own. The resolver's ``eagle3_draft`` step
    (resolver/startup_steps.py) built the draft ModelConfig the draft worker builds and asked the release's
    model registry for its class: when the class lacks the method the EAGLE3 worker calls on it, the server
    dies there (sglang#36528: ``Qwen2ForCausalLM`` has no ``set_embed``)."""
    detail = _step_detail(resolution, "eagle3_draft")
    if not detail or "defines" not in detail:
        return []
    release = f"sglang {report.framework.version}" if report.framework.version else "sglang"
    where = ", ".join(str(c) for c in detail.get("called_at") or []) or "its EAGLE3 worker"
    cls = f"{detail.get('class')} ({detail.get('defined_in')})"
    fix = (
        "pass --speculative-draft-model-path with an EAGLE3 draft trained for this model, or drop "
        "--speculative-algorithm EAGLE3"
    )
    if detail.get("defines"):
        return [
            rules.RS026.finding(
                f"--speculative-algorithm EAGLE3 without a draft model: {release} loads the target's "
                f"checkpoint ({detail.get('architecture')}) as its own EAGLE3 draft; {cls} defines "
                f"{detail.get('calls')}, so the draft worker's first call ({where}) passes, but a checkpoint "
                "that is not an EAGLE3 draft may fail later (sglang#36528: a Llama target on hot_token_id)",
                setting="speculative_draft_model_path",
                severity="info",
                fix=fix,
            )
        ]
    return [
        rules.RS026.finding(
            f"--speculative-algorithm EAGLE3 without a draft model: {release} resolves no "
            "--speculative-draft-model-path, so its draft worker loads the target's checkpoint "
            f"({detail.get('architecture')}) as the EAGLE3 draft and calls draft_model.{detail.get('calls')}"
            f"(embed) ({where}), which {cls} does not define: the server dies with AttributeError at "
            "start-up, after loading the weights twice (the release's model registry, resolution step "
            "eagle3_draft)",
            setting="speculative_draft_model_path",
            fix=fix,
        )
    ]
