"""Start-up, session 36 (unrun36): code a plain check loaded and never ran, moved where it is read on first
use (pure moves: the same code runs, read later). A plain check of the example imports none of the modules
below; what each holds is read by the commands, scripts and checks that reach it."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from argtrace.layers.shell.commands import Commands
from tests.plain_check import imported_by_plain_checks
from tests.shell.test_shell_layer import run

# What the example's check no longer imports: the shell's glob patterns and brace expansion, the text a
# command reads on stdin, bash arithmetic beyond literals, `=~`'s regexes, the invocation words of child
# shells and sbatch jobs, the host's files, a compound's here-document lines; the resolution cache's key
# making and writing, the packing of the bundled schemas, RS071's rank shares, RS036's device probes and a
# configuration file's reading
DEFERRED = {
    "argtrace.layers.shell.patterns",
    "argtrace.layers.shell.stdin_text",
    "argtrace.layers.shell.arith",
    "argtrace.layers.shell.ere",
    "argtrace.layers.shell.invocation",
    "argtrace.layers.shell.hostfs",
    "argtrace.layers.shell.stdin_streams",
    "argtrace.resolver.cache_write",
    "argtrace.frameworks.schema_pack",
    "argtrace.layers.rank_shares",
    "argtrace.layers.device_refusals",
    "argtrace.ci.config_file",
}


def test_a_plain_check_imports_none_of_the_moved_code(tmp_path: Path) -> None:
    # the example copied where no .argtrace.toml or pyproject.toml is found upward (this repository's is
    # read by ci/config_file.py); the first check stores shellcheck's opinion (cache_write.py)
    first, second = imported_by_plain_checks(tmp_path, DEFERRED)
    assert first in ([], ["argtrace.resolver.cache_write"])
    assert second == []


def test_the_sbatch_job_is_invocations_function_read_on_first_look_up() -> None:
    from argtrace.layers.shell import invocation

    assert Commands.sbatch_job is invocation.sbatch_job  # and from then on the class's plain function
    assert Commands.__dict__["sbatch_job"] is invocation.sbatch_job


def test_a_script_using_the_moved_code_gives_the_same_server_argv(tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\n"
        "PORT=$((30000 + 7 * 2))\n"
        "N=$(( (PORT - 30000) / 7 ))\n"
        'if [[ "v1.2" =~ ^v([0-9])\\.([0-9])$ ]]; then MAJOR=${BASH_REMATCH[1]}; fi\n'
        "ARGS=(--x{a,b}=1)\n"
        "cat <<EOF > /dev/null\nport $PORT\nEOF\n"
        'python -m sglang.launch_server --model-path m --port "$PORT" --tp-size "$N" '
        '--dp-size "$MAJOR" "${ARGS[@]}"\n'
    )
    with contextlib.redirect_stderr(io.StringIO()):
        (server,) = run(tmp_path, script).servers
    assert [w.text for w in server.argv][3:] == [
        *("--model-path", "m", "--port", "30014", "--tp-size", "2", "--dp-size", "1"),
        *("--xa=1", "--xb=1"),
    ]
