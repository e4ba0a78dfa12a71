"""Start-up, session 35 (code35): code a plain check loaded and never ran, moved where it is loaded on first
use. A plain check of the example imports none of the moved modules; the interpreter's rare paths are
methods whose code is read on their first look-up (``layers/shell/deferred.py``) and then plain methods;
the collector's file requests answer locally without the whole collector, and the program sent to a node
is still one module with every request."""

from __future__ import annotations

import ast
import json
import sys
import textwrap
from pathlib import Path

from argtrace.layers.shell.deferred import Deferred
from argtrace.remote import collector, collector_files
from argtrace.remote.host import LocalHost
from argtrace.remote.ssh import collector_source
from tests.conftest import run_cli
from tests.plain_check import imported_by_plain_checks

# What the example's check no longer imports: the cross-release lookups (Releases is release_view.py's),
# the collector beyond its file requests, the transport's word reading (command_names.py answers the
# check), the fixes of a refused JSON value, the shell's loops, compound commands, other-code, state and
# read builtins, `[[ ]]` and test, forks, command substitution, expansion operators, child shells, glob
# matching and the wrappers' environment rules
DEFERRED = {
    "argtrace.layers.parser.releases",
    "argtrace.remote.collector",
    "argtrace.layers.transport.words",
    "argtrace.layers.parser.json_fixes",
    "argtrace.layers.shell.control_loops",
    "argtrace.layers.shell.control_branches",
    "argtrace.layers.shell.builtins_source",
    "argtrace.layers.shell.builtins_state",
    "argtrace.layers.shell.read_builtins",
    "argtrace.layers.shell.conditions_run",
    "argtrace.layers.shell.params_forks",
    "argtrace.layers.shell.expand_substitution",
    "argtrace.layers.shell.expand_operators",
    "argtrace.layers.shell.commands_child_shell",
    "argtrace.layers.shell.glob_match",
    "argtrace.layers.shell.wrapenv",
}


def test_a_plain_check_imports_none_of_the_moved_code(tmp_path: Path) -> None:
    assert imported_by_plain_checks(tmp_path, DEFERRED, runs=1) == [[]]


class _Base:
    def twice(self, n: int) -> int:
        return 2 * n


def test_a_deferred_method_is_read_on_first_look_up_and_is_then_a_plain_method(tmp_path: Path) -> None:
    (tmp_path / "code35_methods.py").write_text("def triple(self, n):\n    return 3 * n\n")
    sys.path.insert(0, str(tmp_path))
    try:

        class Shell(_Base):
            triple = Deferred("code35_methods")

        class Child(Shell):
            pass

        assert isinstance(Shell.__dict__["triple"], Deferred)
        assert "code35_methods" not in sys.modules
        assert Child().triple(5) == 15  # looked up through a subclass: set on the class that holds it
        assert "code35_methods" in sys.modules
        assert Shell.__dict__["triple"] is sys.modules["code35_methods"].triple
        assert "triple" not in Child.__dict__
        assert Shell().triple(2) == 6
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("code35_methods", None)


def test_the_rare_paths_of_a_script_run_as_before(tmp_path: Path) -> None:
    script = tmp_path / "launch.sh"
    script.write_text(
        textwrap.dedent(
            """\
            #!/bin/bash
            set -e
            PORT=30000
            for i in 1 2; do PORT=$((PORT + i)); done
            case "$PORT" in 3000[0-9]) TP=2 ;; *) TP=4 ;; esac
            MODEL=$(echo /models/llama)
            NAME=${MODEL##*/}
            read -r EXTRA <<< "--trust-remote-code"
            env CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server --model-path "$MODEL" \\
                --tp "$TP" --port "$PORT" --served-model-name "$NAME" $EXTRA
            """
        )
    )
    result = run_cli(["check", "--format", "json", "--no-resolve", str(script)])
    report = json.loads(result.stdout)
    server = report["servers"][0]
    assert server["argv"] == [
        "env",
        "CUDA_VISIBLE_DEVICES=0,1",
        "python3",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "/models/llama",
        "--tp",
        "2",
        "--port",
        "30003",
        "--served-model-name",
        "llama",
        "--trust-remote-code",
    ]


def test_a_local_file_request_answers_without_the_whole_collector(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    host = LocalHost()
    for op, args in (("stat", {"path": str(tmp_path / "f")}), ("listdir", {"path": str(tmp_path)})):
        assert host.call(op, **args) == collector.answer({"id": 1, "op": op, "args": args})["result"]
    assert set(collector_files.FILE_OPS) <= set(collector.OPS)
    assert all(collector.OPS[name] is function for name, function in collector_files.FILE_OPS.items())


def test_the_program_sent_to_a_node_is_one_module_with_every_request(tmp_path: Path) -> None:
    program = collector_source()
    imported = [
        node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
        for node in ast.walk(ast.parse(program))
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]
    assert not [name for name in imported if name and name.startswith("argtrace")]  # none of the package
    assert program.count(b"from __future__ import annotations") == 1
    namespace: dict[str, object] = {"__name__": "argtrace_collector"}
    exec(compile(program, "argtrace-collector", "exec"), namespace)
    answer = namespace["answer"]
    assert sorted(namespace["OPS"]) == sorted(collector.OPS)  # type: ignore[call-overload]
    (tmp_path / "f").write_text("x")
    request = {"id": 7, "op": "stat", "args": {"path": str(tmp_path / "f")}}
    assert answer(request) == collector.answer(request)  # type: ignore[operator]
    missing = {"id": 8, "op": "read", "args": {"path": str(tmp_path / "missing")}}
    assert answer(missing) == collector.answer(missing)  # type: ignore[operator]
