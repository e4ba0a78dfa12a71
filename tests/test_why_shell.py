"""`why` on texts no framework printed (a shell's message, Python's TypeError at a call) and on one message
raised by several sites (the words around it rank them): commands/why_shell.py, why_call.py, why_context.py.

The shells' and the interpreter's messages are produced here by running the real programs on small inputs
(bash, dash as /bin/sh, this Python), so a form that changes turns a test red.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, render_why
from argtrace.commands.why_call import call_error, keep_callee_sites
from argtrace.commands.why_context import context_first
from argtrace.commands.why_shell import shell_error

# a flag line cut off from its command: the line before it has no `\` (vllm#14192's --hf_overrides)
CUT = "vllm serve /m \\\n  --port 8000\n  --hf_overrides x\n"


def _stderr(shell: str, tmp_path: Path, script: str) -> str:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    path = tmp_path / "launch.sh"
    path.write_text(script)
    # PATH a missing directory: `vllm` is not found either, and nothing a script names can run
    done = subprocess.run(
        [shutil.which(shell) or shell, str(path)],
        capture_output=True,
        text=True,
        env={"PATH": str(tmp_path / "none")},
    )
    return done.stderr


@pytest.mark.parametrize(
    ("shell", "script", "want"),
    [
        ("bash", CUT, ("bash", "not found", 3, "--hf_overrides", "--hf_overrides")),
        ("dash", CUT, ("dash (sh)", "not found", 3, "--hf_overrides", "--hf_overrides")),
        ("bash", 'echo "a\n', ("bash", "unterminated", 1, '"', None)),
        ("dash", 'echo "a\n', ("dash (sh)", "unterminated", 2, None, None)),
        ("bash", "echo )\n", ("bash", "syntax", 1, ")", None)),
        ("dash", "echo )\n", ("dash (sh)", "syntax", 1, ")", None)),
        ("bash", "/no/such/vllm serve /m\n", ("bash", "no such file", 1, "/no/such/vllm", None)),
    ],
)
def test_a_real_shell_s_message_is_read(
    shell: str, script: str, want: tuple[Any, ...], tmp_path: Path
) -> None:
    found = shell_error(_stderr(shell, tmp_path, script))
    assert found is not None
    assert (found["shell"], found["kind"], found["line"], found["word"], found["flag"]) == want


def test_bash_s_not_found_for_a_flag_says_the_line_before_ended_the_command(tmp_path: Path) -> None:
    text = _stderr("bash", tmp_path, CUT)
    assert text.endswith(
        "launch.sh: line 1: vllm: command not found\n"
        f"{tmp_path}/launch.sh: line 3: --hf_overrides: command not found\n"
    )
    section = explain(text)
    assert section["matches"] == []
    assert section["origin"]["origin"] == "the shell (bash): not found"
    assert section["shell"]["meaning"] == (
        "the shell ran line 3, which starts with the flag --hf_overrides, as a command of its own: the line "
        "before it ended the command instead of continuing it (a missing `\\` at its end, a space after the "
        "`\\`, a comment line inside the continuation, or CRLF line endings), so --hf_overrides and the "
        "flags after it never reached the server"
    )
    assert section["shell"]["fix"] == (
        "end the line before --hf_overrides with a `\\` and nothing after it; `argtrace check SCRIPT` shows "
        "where the continuation broke (SH004 a missing `\\`, SH003 a space after it, SH002 CRLF; `argtrace "
        "rules` lists the codes)"
    )
    assert "shell: bash printed this (not found): the shell ran line 3" in render_why(section)


def test_the_words_a_report_quotes_without_the_script_s_name() -> None:
    found = shell_error("--hf_overrides: command not found")
    assert found is not None
    assert (found["shell"], found["line"], found["flag"]) == ("bash", None, "--hf_overrides")
    assert found["meaning"].startswith("the shell ran that line, which starts with the flag --hf_overrides")


def test_a_framework_message_is_no_shell_s() -> None:
    assert shell_error("ValueError: Unsupported connector type: LMCacheConnectorV1") is None
    assert (
        shell_error("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.") is None
    )
    # argtrace's own screen quoting the shell's words (tests/data/screens/example.80.txt)
    assert shell_error("bash prints (`--mamba-scheduler-strategy: command not found`)") is None


# --- Python's own TypeError at a call ---------------------------------------------------------------------


class Worker:
    def __init__(self, a: int) -> None:
        self.a = a


def positional_only(a: int, /, b: int) -> None:
    del a, b


def _raised(call: Any) -> str:
    with pytest.raises(TypeError) as caught:
        call()
    return str(caught.value)


@pytest.mark.parametrize(
    ("call", "want"),
    [
        (lambda: Worker(1, kv_cache_dtype=1), ("unexpected keyword", "Worker.__init__", "kv_cache_dtype")),
        (lambda: Worker(), ("missing argument", "Worker.__init__", "a")),
        (lambda: positional_only(a=1, b=2), ("positional-only as keyword", "positional_only", "a")),
        (lambda: positional_only(1, 2, 3), ("too many positional", "positional_only", None)),
        (lambda: positional_only(1, 2, b=3), ("multiple values", "positional_only", "b")),
    ],
)
def test_python_s_call_type_error_names_the_callee(call: Any, want: tuple[Any, ...]) -> None:
    found = call_error("TypeError: " + _raised(call))
    assert found is not None
    assert (found["kind"], found["callee"], found["argument"]) == want


def test_a_site_sharing_only_python_s_words_is_not_ranked() -> None:
    """vllm#11986: SGLang's rank_consensus "got unexpected keyword argument(s)" was first (28 characters)."""
    text = "TypeError: Worker.__init__() got an unexpected keyword argument 'kv_cache_dtype'"
    section = explain(text)
    assert section["matches"] == []
    assert section["call"]["meaning"] == (
        "Python's own TypeError at a call to Worker.__init__: the caller passed argument 'kv_cache_dtype' in "
        "a way the installed Worker.__init__ does not take (unexpected keyword); no flag is checked here"
    )
    assert section["origin"]["origin"] == (
        "Python's interpreter: a call to Worker.__init__ that does not fit its signature"
    )


def test_the_callee_s_own_sites_are_kept() -> None:
    groups = [{"function": "rank_consensus"}, {"function": "Worker.__init__"}, {"function": "Worker.load"}]
    assert keep_callee_sites(groups, "Worker.__init__") == [{"function": "Worker.__init__"}]
    assert keep_callee_sites(groups, "vllm.worker.Worker.__init__") == [{"function": "Worker.__init__"}]


# --- one message, several sites: the words around it --------------------------------------------------------


def _site(function: str, flag: str, releases: list[str], path: str) -> dict[str, Any]:
    return {
        "function": function,
        "message": "Unsupported connector type: {connector_name}",
        "how": "full",
        "specificity": 24,
        "file": path,
        "settings": [{"name": flag.strip("-").replace("-", "_"), "flag": flag}],
        "releases": releases,
    }


EC = _site(
    "ECConnectorFactory.get_connector_class", "--ec-transfer-config", ["3", "4"], "ec_transfer/factory.py"
)
KV = _site(
    "KVConnectorFactory.get_connector_class", "--kv-transfer-config", ["2", "3", "4"], "kv_transfer/f.py"
)


def test_a_flag_the_text_names_ranks_its_site_first() -> None:
    text = "Unsupported connector type: X (--ec-transfer-config)"
    assert [g["function"] for g in context_first([KV, EC], text, by_coverage=True)] == [
        EC["function"],
        KV["function"],
    ]


def test_the_message_s_own_words_and_a_log_prefix_are_no_context() -> None:
    # the value `KVCacheV1` and the logging file `ec_engine.py:598]` say nothing of which site raised
    text = "ERROR [ec_engine.py:598] Unsupported connector type: KVCacheV1"
    assert context_first([EC, KV], text, by_coverage=False) == [EC, KV]


def test_without_context_the_setting_raising_it_in_more_releases_comes_first() -> None:
    assert context_first([EC, KV], "Unsupported connector type: X", by_coverage=True) == [KV, EC]
    # moved between releases (disjoint): the order stays
    moved = {**KV, "releases": ["1", "2"]}
    assert context_first([EC, moved], "Unsupported connector type: X", by_coverage=True) == [EC, moved]


def test_lmcache638_names_the_kv_connector_factory_first() -> None:
    text = "ERROR 05-13 08:41:45 [engine.py:598] Unsupported connector type: LMCacheConnectorV1"
    first = explain(text)["matches"][0]
    assert (first["function"], [s["flag"] for s in first["settings"]]) == (
        "KVConnectorFactory.get_connector_class",
        ["--kv-transfer-config"],
    )
    ec = explain(text + "\n(--ec-transfer-config)")["matches"][0]
    assert ec["function"] == "ECConnectorFactory.get_connector_class"
