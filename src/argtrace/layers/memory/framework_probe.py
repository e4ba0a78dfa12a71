"""Ask SGLang itself for the Mamba state sizes, inside a resolver environment (``argtrace resolver``).

``probe_state`` runs this file with the environment's Python; ``main`` then builds the framework's own
config class (``srt/configs/qwen3_next.py`` ``Qwen3NextConfig``, ``qwen3_5.py`` ``Qwen3_5TextConfig``,
``nemotron_h.py`` ``NemotronHConfig``) and reads ``mamba2_cache_params`` (``Mamba2StateShape.create``,
``mamba_cache_per_req``) with ``get_attention_tp_size`` pinned to the TP size asked for. It takes about
ten seconds (importing SGLang), so ``argtrace mem`` only does it with ``--resolver``; the test suite
cross-checks ``state.py`` against it when the environment exists (``frameworks`` marker).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_S = 180


def probe_state(
    config: Path, tps: Sequence[int], version: str = "0.5.10.post1", ssm_dtype: str | None = None
) -> list[dict[str, Any]] | None:
    """SGLang's own per-slot conv/SSM bytes and full-attention layer ids for each TP size, or None when no
    resolver environment for that version exists (or the probe fails: the reason is in ``error``)."""
    from argtrace.resolver.environments import env_python, find_environment, runtime_env

    manifest = find_environment("sglang", version)
    if manifest is None:
        return None
    from argtrace.resolver.environments import cache_dir, env_name

    env_dir = Path(manifest.path) if manifest.path else cache_dir() / env_name("sglang", version)
    extra = {"SGLANG_MAMBA_SSM_DTYPE": ssm_dtype} if ssm_dtype else None
    request = json.dumps({"config": str(Path(config).resolve()), "tps": list(tps)})
    from argtrace.resolver import hosts

    try:
        done = hosts.run(
            str(env_python(env_dir)),
            __file__,
            [request],
            prep=[],
            env=runtime_env(manifest, extra),
            cwd=os.getcwd(),
            timeout=TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [{"error": f"probe failed: {exc}"}]
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return [{"error": (done.stderr.strip().splitlines() or ["probe failed"])[-1]}]
    result: list[dict[str, Any]] = json.loads(lines[-1])["results"]
    return result


def host_imports() -> None:  # pragma: no cover - runs inside the resolver environment
    """The import step every run of this file takes first, for a host to take once (resolver/hosts.py)."""
    _drop_own_directory()
    import sglang.srt.layers.dp_attention  # noqa: F401


def _drop_own_directory() -> None:  # pragma: no cover - runs inside the resolver environment
    """This file sits beside argtrace's own sglang.py: drop its directory so ``import sglang`` is SGLang."""
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if p and str(Path(p).resolve()) != here]


def main(argv: Sequence[str]) -> int:  # pragma: no cover - runs inside the resolver environment
    request = json.loads(argv[0])
    _drop_own_directory()
    import sglang.srt.layers.dp_attention as dp_attention
    from sglang.srt.configs.nemotron_h import NemotronHConfig
    from sglang.srt.configs.qwen3_5 import Qwen3_5TextConfig
    from sglang.srt.configs.qwen3_next import Qwen3NextConfig

    with open(request["config"], encoding="utf-8") as handle:
        raw = json.load(handle)
    fields = dict(raw)
    fields.update(raw.get("text_config") or {})
    arch = (raw.get("architectures") or [""])[0]
    cls = {"Qwen3NextForCausalLM": Qwen3NextConfig, "NemotronHForCausalLM": NemotronHConfig}.get(
        arch, Qwen3_5TextConfig
    )
    for key in ("architectures", "text_config", "vision_config", "model_type", "quantization_config"):
        fields.pop(key, None)
    config = cls(**fields)
    results = []
    for tp in request["tps"]:
        dp_attention.get_attention_tp_size = lambda tp=tp: tp
        params = config.mamba2_cache_params
        conv = (
            sum(int(a) * int(b) for a, b in params.shape.conv)
            * params.dtype.conv.itemsize
            * len(params.layers)
        )
        t = params.shape.temporal
        ssm = int(t[0]) * int(t[1]) * int(t[2]) * params.dtype.temporal.itemsize * len(params.layers)
        results.append(
            {
                "tp": tp,
                "per_req": int(params.mamba_cache_per_req),
                "conv": conv,
                "ssm": ssm,
                "full_attention_layer_ids": list(config.full_attention_layer_ids),
            }
        )
    print(json.dumps({"results": results}))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
