"""What vLLM's "Unknown vLLM environment variable detected: NAME" says of the variable (LG006's severity).

vLLM's ``validate_environ`` logs the line for every ``VLLM_*`` name its release does not list and goes on;
the line names the variable, never its value nor who set it. The release index (``frameworks/release_index``,
generated from every bundled release's ``envs.py``) tells the three kinds apart, as ``check``'s PR001 does for
a launch (``layers/process.py``: a name no release reads and no near-miss of one is "a setting of the
script's own or of another tool, which the framework ignores", info):

- a name some release reads (``VLLM_USE_V1``, ``VLLM_ATTENTION_BACKEND``): a setting a user made for vLLM,
  which the logging release drops (or does not read yet): a warning;
- a near-miss of a name some release reads (``VLLM_LOGGING_LEVL``): a misspelt setting, lost: a warning;
- any other name with the prefix: another program's variable, which vLLM ignores and nothing shows was set
  for vLLM: a note. vllm-dgx-spark#3's image (vLLM ``0.17.1+a03ca76a.nv26.03``) logs it for
  ``VLLM_VERSION`` and ``VLLM_FLASH_ATTN_SRC_DIR``, the second a variable of vLLM's source build (its CMake
  reads ``ENV{VLLM_FLASH_ATTN_SRC_DIR}``; ``envs.py`` does not) left in the image's environment. A name
  the same as one of vLLM's flags (``VLLM_MAX_MODEL_LEN`` beside ``--max-model-len``) reads as a setting
  meant for vLLM, so it warns.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

_PREFIX = "VLLM_"


@dataclass(frozen=True)
class UnknownEnv:
    """What the release index says of the variable: ``sentence`` (appended to the finding's message) and
    the severity it earns (``warning``: a setting meant for vLLM is lost; ``info``: another program's)."""

    sentence: str
    severity: str
    fix: str | None = None


def unknown_env(name: str) -> UnknownEnv | None:
    """The kind of ``name`` that vLLM reported as unknown; None without the release index."""
    from argtrace.frameworks.release_index import release_index
    from argtrace.layers.process_names import NEAR_MISS  # the launch's rule for the same name (PR001)

    index = release_index("vllm")
    if not index.releases:
        return None
    readers = index.releases_knowing_env(name)
    span = f"{index.releases[0]}-{index.releases[-1]}"
    if readers:
        from argtrace.frameworks.entrypoints import describe_span

        return UnknownEnv(
            f" vLLM {describe_span('vllm', readers)} read {name}: a setting made for vLLM that the release "
            "which logged this does not read (dropped, or not yet there).",
            "warning",
        )
    near = difflib.get_close_matches(name, sorted(index.env), n=1, cutoff=NEAR_MISS)
    if near:
        return UnknownEnv(
            f" No vLLM release argtrace knows ({span}) reads {name}; one reads {near[0]}: a misspelling.",
            "warning",
            f"Use {near[0]} (on a release that reads it), or remove {name}",
        )
    flag = "--" + name[len(_PREFIX) :].lower().replace("_", "-")
    if name.startswith(_PREFIX) and index.releases_knowing_flag(flag):
        return UnknownEnv(
            f" No vLLM release argtrace knows ({span}) reads {name}; vLLM takes {flag} as a flag: a setting "
            "meant for vLLM, given where vLLM does not read it.",
            "warning",
            f"Remove {name} and pass {flag} (assumed from the name)",
        )
    return UnknownEnv(
        f" No vLLM release argtrace knows ({span}) reads {name}, nor a name spelled like it: another "
        "program's variable with vLLM's prefix (a container image's or a launcher's own), which vLLM "
        "ignores; nothing shows it was set for vLLM.",
        "info",
        f"Nothing for vLLM; unset {name} in the server's environment only to silence the line.",
    )
