"""An environment variable the vLLM release refuses at start-up (PA071).

Every engine start runs ``Platform.validate_environ`` over the process's environment (vllm/platforms/
interface.py, from ``EngineArgs.create_engine_config``). vLLM 0.34.0 raises there for a variable it removed
(``envs.removed_environment_variables``: "VLLM_MARLIN_INPUT_DTYPE has been removed. Marlin no longer supports
8-bit activations. ...") and for ``VLLM_USE_V2_MODEL_RUNNER`` set to anything but 1 ("... is no longer
supported: Model Runner V1 has been removed."): the engine does not start, where the releases before read
the variable (PR001 called it ignored). Read per release from the wheels by scripts/gen_vllm_refused_env.py
into frameworks/data/vllm_refused_env.json; a release it does not hold gives nothing. The process layer asks
here for each framework variable of the launch (``process._env_names``).
"""

from __future__ import annotations

from argtrace.package_data import release_facts

_TABLE = "frameworks/data/vllm_refused_env.json"  # written by scripts/gen_vllm_refused_env.py


def refusal(framework: str, release: str | None, name: str, value: str | None) -> tuple[str, str] | None:
    """(the release's words, where it raises) when ``release`` refuses ``name`` set to ``value``, else
    None."""
    if framework != "vllm" or not release:
        return None
    facts = release_facts(_TABLE, release)
    if not facts:
        return None
    removed = (facts.get("removed") or {}).get(name)
    if isinstance(removed, dict):
        words = str(removed.get("message", "")).replace("{env}", name).replace("{hint}", str(removed["hint"]))
        return words, str(removed.get("where"))
    for checked in facts.get("checked") or ():
        if (
            isinstance(checked, dict)
            and checked.get("name") == name
            and (value or "") != checked.get("taken")
        ):
            return str(checked.get("message", "")).replace("{value}", value or ""), str(checked.get("where"))
    return None
