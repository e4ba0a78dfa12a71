"""A virtual environment's ``bin/activate`` that is not on this machine sets only VIRTUAL_ENV,
VIRTUAL_ENV_PROMPT, PATH and PS1 (CPython's Lib/venv/scripts/common/activate): a variable read after it
stays as unset as before (skypilot#6920's `setup:`, tests/data/real_cases_carriers3), while any other file
argtrace cannot read, conda's activate among them, may set what is read after it (the fa22 sweep)."""

from __future__ import annotations

from argtrace.layers.shell import ScriptSource, analyze_script


def _argv(script: str) -> list[str | None]:
    shell = analyze_script(ScriptSource("s.sh", script.encode(), None), [], {}, run_shellcheck=False)
    return [w.text for w in shell.servers[0].argv]


def test_a_venv_activate_sets_none_of_the_scripts_variables() -> None:
    argv = _argv("source .venv/bin/activate\nvllm serve m --tensor-parallel-size $TP\n")
    assert argv == ["vllm", "serve", "m", "--tensor-parallel-size"]


def test_another_unread_file_may_set_them() -> None:
    for sourced in ("./env.sh", "~/miniconda3/bin/activate"):
        argv = _argv(f"source {sourced}\nvllm serve m --tensor-parallel-size $TP\n")
        assert argv == ["vllm", "serve", "m", "--tensor-parallel-size", None], sourced
