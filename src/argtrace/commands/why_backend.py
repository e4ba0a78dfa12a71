"""``why`` on an attention backend's own check: the setting is the one that picks the backend.

A raise in an attention backend (vLLM's ``attention/backends/`` modules: "Sinks are only supported in
FlashAttention 3"; SGLang's ``layers/attention/``: "The 'fa3' backend is not supported on Blackwell GPUs")
or in vLLM's backend selector (``Platform.get_attn_backend_cls``: "Selected backend FLASHINFER is not valid
for this configuration. Reason: ['sink setting not supported']") reads the model's shapes and the GPU, not a
server argument, so the message index names no setting for it. The backend that raised was the one the
launch's flag picked, or the one chosen for this GPU and model when none was given: that flag is the setting
to change (another backend, or none so that the selector chooses). Which flag: SGLang's ``--attention-
backend``, its vision encoder's ``--mm-attention-backend`` (``layers/attention/vision.py``), its
linear-attention backends' ``--linear-attn-backend`` (``layers/attention/linear/``, where the release has
the flag), vLLM's
``--attention-backend`` in the releases whose parser has it and ``VLLM_ATTENTION_BACKEND`` before (the
releases from the generated schemas; vllm#40153, vllm#22331: the fix the threads settled on was the
backend). A check that already names a setting keeps it, and a module-level helper that probes the GPU for
every backend (``get_flash_attn_version``) is not a backend's own check.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_BACKEND_MODULE = re.compile(r"/attention/backends/|/layers/attention/")
_SELECTOR = re.compile(r"\bget_attn_backend_cls$")
_VISION = re.compile(r"/layers/attention/vision")
# SGLang's linear-attention backends (GDN, KDA, Lightning: ``layers/attention/linear/``) run beside the full
# attention backend, and their kernels are picked by --linear-attn-backend (and its -decode/-prefill/-verify
# variants) where the release has it: 0.5.23's GDNKernelDispatcher reads linear_attn_backend, not
# attention_backend; older releases picked the hybrid backend with --attention-backend hybrid_linear_attn
_LINEAR = re.compile(r"/layers/attention/linear/")


@functools.cache
def _linear_flag_in(version: str | None) -> bool:
    """True when SGLang ``version``'s parser has --linear-attn-backend (from the generated schema)."""
    from argtrace.frameworks.schema import load_schema

    return version is not None and load_schema("sglang", version).option("--linear-attn-backend") is not None


@functools.cache
def _first_release_with(framework: str, flag: str) -> tuple[str, str] | None:
    """The dest of ``flag`` and the oldest bundled release whose parser has it."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    for version in bundled_versions(framework, include_user=False):
        spec = load_schema(framework, version).option(flag)
        if spec is not None:
            return spec.dest, version
    return None


def add_backend_setting(groups: list[dict[str, Any]], text: str) -> None:
    """Name the flag that picks the attention backend on the first match when it is a backend's own check
    (or vLLM's selector refusing a backend) that names no setting."""
    if not groups:
        return
    first = groups[0]
    framework = first.get("framework")
    path = str(first.get("file") or "")
    function = str(first.get("function") or "")
    if framework == "vllm" and _names_flag(first, "--attention-backend"):
        _older_variable(first)
        return
    if first.get("settings") or framework not in ("sglang", "vllm"):
        return
    factory = _factory_backend(first, framework)
    if factory is not None:
        _name_choosing_flags(first, framework, *factory)
        return
    # a backend class's own check (``FlashAttentionImpl.__init__``), not a module's helper that probes the
    # GPU for every backend (``get_flash_attn_version``: "no launch setting changes that" stays its verdict)
    in_backend = bool(_BACKEND_MODULE.search(path)) and "." in function
    if not (in_backend or (framework == "vllm" and _SELECTOR.search(function))):
        return
    flag = "--mm-attention-backend" if _VISION.search(path) else "--attention-backend"
    if framework == "sglang" and _LINEAR.search(path) and _linear_flag_in(_site_release(first)):
        flag = "--linear-attn-backend"
    known = _first_release_with(framework, flag)
    if known is None:
        return
    dest, since = known
    first["settings"] = [{"name": dest, "flag": flag, "backend_check": True}]
    picked = (
        f"{flag} ({framework} {since} on; VLLM_ATTENTION_BACKEND before)" if framework == "vllm" else flag
    )
    said = (
        f"the backend that raised is the one {picked} picked, or the one chosen for this GPU and model when "
        f"none was given: choose another backend with {flag}, or drop a forced one so that the selector "
        "chooses"
    )
    first["fix"] = f"{first['fix']}; {said}" if first.get("fix") else said


def _names_flag(site: dict[str, Any], flag: str) -> bool:
    return any(isinstance(x, dict) and x.get("flag") == flag for x in site.get("settings") or ())


def _older_variable(site: dict[str, Any]) -> None:
    """A vLLM site whose words name --attention-backend but whose releases include ones older than the flag
    (``Invalid attention backend for cuda``: 0.7.3's selector as much as 0.33.0's): there the backend was
    forced by ``VLLM_ATTENTION_BACKEND`` (vllm#14320: TORCH_SDPA on CUDA, 0.7.3), so the fix names it for
    those releases. The first release with the flag is read from the generated schemas."""
    from argtrace.frameworks.schema import version_key

    known = _first_release_with("vllm", "--attention-backend")
    versions = [str(v.get("version")) for v in site.get("versions") or () if isinstance(v, dict)]
    if known is None or not versions:
        return
    since = known[1]
    older = sorted((v for v in versions if version_key(v) < version_key(since)), key=version_key)
    if not older or "VLLM_ATTENTION_BACKEND" in str(site.get("fix") or ""):
        return
    span = older[0] if len(older) == 1 else f"{older[0]}-{older[-1]}"
    said = (
        f"--attention-backend exists from vllm {since} on; in vllm {span} only "
        "VLLM_ATTENTION_BACKEND forces a backend: unset it (or name one this GPU takes) so that the selector "
        "chooses"
    )
    site["fix"] = f"{site['fix']}; {said}" if site.get("fix") else said


# SGLang's attention registry (``layers/attention/attention_registry.py``, 0.5.3.post3 on) builds each backend
# in a module-level factory registered under the backend's name, ``create_<name>_backend`` (some factories
# are named otherwise: ``create_flashattention_v3_backend`` is fa3's, and stays unread); a raise there is that
# backend's own check. The backend is the factory's name when the release's attention-backend flags list it.
_REGISTRY = re.compile(r"/layers/attention/attention_registry\.py$")
_FACTORY = re.compile(r"^create_(\w+?)_backend$")


def _site_release(site: dict[str, Any]) -> str | None:
    versions = [v.get("version") for v in site.get("versions") or () if isinstance(v, dict)]
    return str(versions[-1]) if versions and versions[-1] else None


@functools.cache
def _backend_flags(framework: str, version: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """Backend name -> the (flag, dest) of every attention-backend flag of ``version`` that lists it among its
    choices (``--attention-backend``, ``--prefill-attention-backend``, ``--decode-attention-backend``,
    ``--speculative-draft-attention-backend``, ...), from the generated schema."""
    from argtrace.commands.why_choice import listed_values
    from argtrace.frameworks.schema import load_schema

    out: dict[str, list[tuple[str, str]]] = {}
    free: list[tuple[str, str]] = []
    for option in load_schema(framework, version).options:
        flag = option.flag
        if flag is None or not flag.endswith("attention-backend"):
            continue
        listed = listed_values(option)
        if listed is None:
            # a backend flag without choices takes any registered name: the draft model's
            # (--speculative-draft-attention-backend, resolved to a registry backend in speculative_hook)
            free.append((flag, option.dest))
        for value in listed or ():
            out.setdefault(value, []).append((flag, option.dest))
    return {name: tuple(flags + free) for name, flags in out.items()}


def _factory_backend(site: dict[str, Any], framework: str | None) -> tuple[str, str] | None:
    """(backend, release) when the site is a backend factory of SGLang's attention registry."""
    if framework != "sglang" or not _REGISTRY.search(str(site.get("file") or "")):
        return None
    version = _site_release(site)
    if version is None:
        return None
    names = _backend_flags(framework, version)
    function = str(site.get("function") or "")
    named = _FACTORY.match(function)
    # only the factory's own name: a message may name another backend, the one it advises
    # ("FlashAttention v3 Backend requires SM>=80 and SM<=90. Please use `--attention-backend flashinfer`.")
    if named and named.group(1) in names:
        return named.group(1), version
    return None


def _name_choosing_flags(site: dict[str, Any], framework: str, backend: str, version: str) -> None:
    """The backend's flags as the site's settings and fix: the attention-backend flags whose value it is
    (the draft model's own among them), and the server's choice when none is given."""
    flags = _backend_flags(framework, version)[backend]
    site["settings"] = [{"name": dest, "flag": flag, "backend_check": True} for flag, dest in flags]
    listed = ", ".join(flag for flag, _ in flags)
    draft = [flag for flag, _ in flags if "draft" in flag]
    said = (
        f"this check is the {backend} attention backend's own (sglang {version}'s registry builds it for "
        f"{listed}, or when the server chose it for this GPU and model because none was given"
    )
    # the draft worker builds the target's backend unless the draft flag names one (0.5.10.post1:
    # ModelRunner._get_attention_backend, speculative/draft_utils.py DraftBackendFactory._create_backend;
    # 0.5.23 resolves a draft backend itself only for some algorithms: resolve_draft_attention_backend)
    said += (
        f"; a draft model takes the target's backend unless {draft[0]} gives its own, or the release picks "
        "one for its algorithm)"
        if draft
        else ")"
    )
    said += (
        f": give a backend other than {backend} to the flag that picked it, or name one where none was given"
    )
    site["fix"] = f"{site['fix']}; {said}" if site.get("fix") else said
