"""The server start KServe's controller writes for an ``LLMInferenceService`` container with no ``command``.

This module owns the command of the ``main`` container of a single-node ``LLMInferenceService`` (the
llm-d based CRD, serving.kserve.io v1alpha1/v1alpha2): the manifest usually gives only ``spec.model``,
``spec.parallelism`` and the container's ``args``/``env``; the command is the one of the well-known
``LLMInferenceServiceConfig`` preset the controller merges under the resource. Read at kserve/kserve
v0.20.0 (commit of the tag; HEAD aaac4e294dae2c7b1aa1886447793f3aa1c30912 has the same lines):

- the preset is chosen in ``pkg/controller/v1alpha2/llmisvc/config_merge.go`` (``combineBaseRefsConfig``):
  no ``spec.prefill`` and no ``spec.worker``: ``config-llm-template``; with ``spec.prefill`` the decode pods
  (``spec.template``, no ``spec.worker``) take ``config-llm-decode-template`` and the prefill pods (no
  ``spec.prefill.worker``) ``config-llm-prefill-template``; a ``worker`` takes a multi-node preset, not
  read here. The user's spec is merged over it by a strategic merge patch (``mergeSpecs``), so the
  container named ``main`` keeps the preset's ``command`` when it names none, and its ``args`` are the
  user's.
- the preset's command (``config/llmisvcconfig/config-llm-template.yaml`` and its decode/prefill siblings)
  is ``/bin/bash -c SCRIPT --``: the container's ``args`` become ``$@``, and the script ends in
  ``eval "exec vllm serve /mnt/models --served-model-name NAME [publishers/NAMESPACE/models/NAME] --port
  8000|8001 ... [--tensor-parallel-size T] ... ${VLLM_ADDITIONAL_ARGS} $@"``; NAME is ``spec.model.name``,
  defaulted to the resource's name (``llm_inference_service_defaults.go``), T ``spec.parallelism.tensor``
  (``spec.prefill.parallelism.tensor`` for prefill pods). ``eval`` parses ``VLLM_ADDITIONAL_ARGS`` again as
  shell words.

Left out of the built argv, because they depend on the cluster or the image and never on the user's words:
the flags the script picks by the image's vLLM version (``--disable-access-log-for-endpoints`` or
``--disable-uvicorn-access-log``, ``--shutdown-timeout``, ``--kv-transfer-config``) and the TLS flags of
the controller's global configuration. The whole start rests on the preset being KServe's own (a
``spec.baseRefs`` config or a changed cluster preset may replace it), so servers built here carry that
assumption (``AssumedEntrypoint``), as an image entrypoint read from other builds does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from argtrace.layers.transport.yamlnodes import _get, _scalar
from argtrace.model import Assumption, Evidence, Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KSERVE_RELEASE = "v0.20.0"
# config-llm-template.yaml at v0.20.0: the preset container's image
PRESET_IMAGE = "ghcr.io/llm-d/llm-d-cuda:v0.8.0"
_SOURCE = "https://github.com/kserve/kserve/blob/v0.20.0/config/llmisvcconfig/{}.yaml"


@dataclass(frozen=True)
class PresetCommand:
    """The command KServe's preset runs in a container, the preset's name and its source."""

    config: str
    words: tuple[str, ...]
    image: str
    source: str

    def command(self, args: Sequence[str], env: Mapping[str, str | None]) -> tuple[str, ...]:
        """The container's process as argv: ``bash -c TEXT``, TEXT the line ``eval`` parses. The script's
        double-quoted string has ``${VLLM_ADDITIONAL_ARGS}`` (the container's value, as written) and ``$@``
        (the args joined by blanks) put in as text, and ``eval`` parses the result as shell words: quotes,
        ``$VAR`` and blanks in the args act again, which the shell layer reads from TEXT."""
        extra = env.get("VLLM_ADDITIONAL_ARGS") if "VLLM_ADDITIONAL_ARGS" in env else ""
        # set from a Secret or a field: its text is the container's, left to the shell layer as unknown
        additional = "$VLLM_ADDITIONAL_ARGS" if extra is None else extra
        line = " ".join(w for w in ("exec", *self.words, additional, *args) if w)
        return ("/bin/bash", "-c", line)

    @property
    def shown(self) -> str:
        return f"{' '.join(self.words)} ${{VLLM_ADDITIONAL_ARGS}} $@ (KServe {KSERVE_RELEASE} {self.config})"


def preset_command(doc: Any, role: str | None, container: Any) -> PresetCommand | None:
    """The command KServe's single-node preset gives ``container`` of an LLMInferenceService pod in
    ``role`` (``decode`` for ``spec.template``, ``prefill``), or None when the container names its own
    command, is not ``main``, or the pods take a multi-node preset."""
    if _scalar(_get(doc, "kind")) != "LLMInferenceService" or role not in ("decode", "prefill"):
        return None
    if _scalar(_get(container, "name")) != "main" or _get(container, "command") is not None:
        return None
    spec = _get(doc, "spec")
    prefill = _get(spec, "prefill")
    meta = _get(doc, "metadata")
    name = _scalar(_get(_get(spec, "model"), "name")) or _scalar(_get(meta, "name")) or ""
    namespace = _scalar(_get(meta, "namespace")) or "default"
    if role == "prefill":
        if _get(prefill, "worker") is not None:
            return None
        config, served, port = "config-llm-prefill-template", [name], "8000"
        tensor = _scalar(_get(_get(prefill, "parallelism"), "tensor"))
    else:
        if _get(spec, "worker") is not None:
            return None
        config = "config-llm-decode-template" if prefill is not None else "config-llm-template"
        served = [name, f"publishers/{namespace}/models/{name}"]
        port = "8001" if prefill is not None else "8000"
        tensor = _scalar(_get(_get(spec, "parallelism"), "tensor"))
    words = ["vllm", "serve", "/mnt/models", "--served-model-name", *served, "--port", port]
    if tensor:
        words += ["--tensor-parallel-size", tensor]
    image = _scalar(_get(container, "image")) or PRESET_IMAGE
    return PresetCommand(config, tuple(words), image, _SOURCE.format(config))


def preset_findings(preset: PresetCommand, container: str, at: str) -> list[Finding]:
    """TP046: the start is the preset's (info, resting on KServe's presets being the cluster's)."""
    from argtrace.rules.wrappers import TP046

    found = TP046.finding(
        f"container {container} names no command: KServe's controller runs its {preset.config} preset, "
        f"`{' '.join(preset.words)}` with the container's args appended ($@), read from KServe "
        f"{KSERVE_RELEASE} ({preset.source})",
        at=at,
        evidence=[Evidence("transport", at, preset.shown)],
        basis="assumed",
    )
    return [
        replace(found, assumptions=(Assumption("entrypoint", preset.shown, "command: in the container"),))
    ]
