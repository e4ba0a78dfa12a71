"""`set -e` and `return` on forks of a condition the shell layer cannot know statically.

A `return` taken on only some forks of an unknown `if` leaves the function on those forks; the code after
the `if` runs only on the others, so the function's status is known only when every way out gives the same
one. An exit reached on one fork is possible, not certain (SH023 `info`); an exit every fork reaches is
certain (SH023 `error`). The first case is the reduction of the SGLang CI disaggregation script
(tests/data/false_alarms/scripts/sglang_ci_start_disaggregation_servers.sh), where
`find_active_ib_device` returned 1 "for certain" and SH023 said the script exits.
"""

from __future__ import annotations

from pathlib import Path

from argtrace.layers.shell import ScriptSource, ShellResult, analyze_script

ENV = {"PATH": "/usr/bin:/bin", "HOME": "/root"}
SERVER = 'python3 -m sglang.launch_server --model-path /m --disaggregation-ib-device "$D"\n'


def run(tmp_path: Path, script: str) -> ShellResult:
    path = tmp_path / "launch.sh"
    path.write_text(script)
    return analyze_script(
        ScriptSource("launch.sh", script.encode(), path), [], ENV, run_shellcheck=False, cwd=str(tmp_path)
    )


def sh023(r: ShellResult) -> list[tuple[str, str, str | None]]:
    return [(f.severity, f.message, f.at) for f in r.findings if f.code == "SH023"]


def test_a_return_on_one_fork_makes_the_function_status_unknown(tmp_path: Path) -> None:
    r = run(
        tmp_path,
        "set -e\nf(){ if ibv_devinfo x; then echo d; return 0; fi; return 1; }\nD=$(f)\n" + SERVER,
    )
    assert sh023(r) == []
    assert len(r.servers) == 1
    device = r.servers[0].argv[-1]
    assert (device.text, device.origin.expansion) == (None, '"$D"')


def test_the_ci_scripts_loop_over_devices_does_not_exit_for_certain(tmp_path: Path) -> None:
    script = (
        "set -euo pipefail\n"
        "find_dev() {\n"
        "    for dev in mlx5_{0..3}; do\n"
        "        if ibv_devinfo $dev >/dev/null 2>&1; then\n"
        "            state=$(ibv_devinfo $dev | grep state: | head -1)\n"
        '            if [[ "$state" == "PORT_ACTIVE" ]]; then\n'
        '                echo "$dev"\n'
        "                return 0\n"
        "            fi\n"
        "        fi\n"
        "    done\n"
        "    return 1\n"
        "}\n"
        "D=$(find_dev)\n" + SERVER
    )
    r = run(tmp_path, script)
    assert sh023(r) == []
    assert len(r.servers) == 1 and r.servers[0].argv[-1].text is None


def test_every_fork_returning_failure_still_exits_for_certain(tmp_path: Path) -> None:
    # the broken variant: whatever ibv_devinfo says, the function fails, so `set -e` stops the script
    r = run(
        tmp_path,
        "set -e\nf(){ if ibv_devinfo x; then echo d; return 1; fi; return 1; }\nD=$(f)\n" + SERVER,
    )
    # bash clears -e inside `$(...)`: the assignment's status (the substitution's) is what exits
    assert sh023(r) == [
        ("error", "`D=$(f)` fails (status 1) and `set -e` is on: the script exits here", "launch.sh:3:1")
    ]


def test_an_exit_on_one_fork_is_a_possible_exit(tmp_path: Path) -> None:
    r = run(tmp_path, "set -e\nif ibv_devinfo mlx5_0; then\n  false\nfi\n" + SERVER.replace('"$D"', "mlx5_0"))
    assert sh023(r) == [
        (
            "info",
            "`false` fails (status 1) and `set -e` is on: the script exits here if it gets this far, which "
            "depends on the condition `ibv_devinfo mlx5_0` (launch.sh:2), which is not known statically",
            "launch.sh:3:3",
        )
    ]
    assert len(r.servers) == 1


def test_an_exit_on_every_fork_is_certain(tmp_path: Path) -> None:
    r = run(tmp_path, "set -e\nif ibv_devinfo mlx5_0; then\n  false\nelse\n  false\nfi\n" + SERVER)
    assert [(s, at) for s, _, at in sh023(r)] == [("error", "launch.sh:3:3"), ("error", "launch.sh:5:3")]
    assert r.servers == []


def test_equal_statuses_on_every_way_out_stay_known(tmp_path: Path) -> None:
    # both ways out of f give 0, so `if f` takes its first branch for certain
    r = run(
        tmp_path,
        "f(){ if ibv_devinfo x; then return 0; fi; return 0; }\n"
        "if f; then vllm serve /first; else vllm serve /second; fi\n",
    )
    assert [s.argv[2].text for s in r.servers] == ["/first"]
    assert [f.code for f in r.findings if f.code == "SH020"] == []


def test_code_after_a_partial_return_runs_only_on_the_other_forks(tmp_path: Path) -> None:
    r = run(tmp_path, "f(){ if ibv_devinfo x; then return 0; fi; vllm serve /m; }\nf\n")
    assert len(r.servers) == 1
    notes = [f.message for f in r.findings if f.code == "SH020"]
    assert notes == [
        "this server command runs only depending on the condition `ibv_devinfo x` (launch.sh:1), which is "
        "not known statically"
    ]
