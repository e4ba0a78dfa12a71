"""``python -m sglang_router.launch_server``: server flags to SGLang's parser, ``--router-*`` flags to the
router's, as the one argparse parser of sglang-router's launcher takes them (issue 17). The router's
options are generated from the sglang-router 0.3.2 wheel, and the flags each release knows from the
0.1.4-0.3.2 wheels (14 releases) (scripts/gen_router_schema.py)."""

from __future__ import annotations

from argtrace.frameworks.detect import detect_server
from argtrace.frameworks.sglang_router import older_router_flag, router_schema, split_router
from argtrace.layers.shell import ScriptSource, analyze_script


def test_the_bundled_router_schema() -> None:
    label, options = router_schema()
    assert label == "sglang-router 0.3.2"
    assert options["--router-policy"].choices == (
        "random",
        "round_robin",
        "cache_aware",
        "power_of_two",
        "manual",
    )
    assert options["--router-dp-worker-base-port"].takes == "one"  # the launcher's own add_argument
    assert all(f.startswith("--router-") or f == "--worker-urls" for f in options)


def test_split_takes_the_router_flags_and_their_values() -> None:
    words = "--model-path m --router-policy cache_aware --dp-size 2 --router-ca-cert-paths a b --tp 2".split()
    split = split_router(words)
    assert [words[i] for i in split.server] == ["--model-path", "m", "--dp-size", "2", "--tp", "2"]
    assert split.router == [("--router-policy", ["cache_aware"]), ("--router-ca-cert-paths", ["a", "b"])]
    assert split.problems == []
    bad = split_router(["--router-policy=fastest"])
    assert bad.problems == [
        "--router-policy: invalid choice: 'fastest' (choose from random, round_robin, cache_aware, "
        "power_of_two, manual)"
    ]


def test_a_real_router_launch_is_an_sglang_server() -> None:
    # https://github.com/sgl-project/sglang/issues/5258: "python -m sglang_router.launch_server --model-path
    # Qwen/QwQ-32B --tp 2 --dp 2" (two data-parallel workers of tp 2 behind the router)
    line = "python -m sglang_router.launch_server --model-path Qwen/QwQ-32B --tp 2 --dp 2"
    det = detect_server(line.split())
    assert det is not None and (det.framework, det.entrypoint, det.server_args_start) == (
        "sglang",
        "sglang_router.launch_server",
        3,
    )
    result = analyze_script(
        ScriptSource("t.sh", f"#!/bin/bash\n{line}\n".encode(), None),
        [],
        {},
        arg0="t.sh",
        run_shellcheck=False,
    )
    assert [f.code for f in result.findings if f.code in ("SH019", "SH040")] == []
    assert [s.entrypoint for s in result.servers] == ["sglang_router.launch_server"]


def test_check_parses_the_server_flags_and_refuses_a_bad_router_value() -> None:
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}

    def check(line: str) -> dict[str, object]:
        p = subprocess.run(
            [sys.executable, "-m", "argtrace", "check", "--no-resolve", "--format", "json", "-c", line],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        return dict(json.loads(p.stdout))

    good = check(
        "python3 -m sglang_router.launch_server --model-path m --dp-size 2 --router-policy cache_aware"
    )
    codes = [f["code"] for f in good["findings"]]  # type: ignore[attr-defined]
    assert "PA001" not in codes and "PA009" not in codes
    parser = good["parser"]
    assert parser["argv"] == ["--model-path", "m", "--dp-size", "2"]  # type: ignore[index]
    assert parser["notes"] == ["router options (sglang-router 0.3.2), not server flags: --router-policy"]  # type: ignore[index]
    bad = check("python3 -m sglang_router.launch_server --model-path m --router-policy fastest")
    (pa009,) = [f for f in bad["findings"] if f["code"] == "PA009"]  # type: ignore[attr-defined]
    assert pa009["severity"] == "error"
    assert pa009["message"].startswith("--router-policy: invalid choice: 'fastest'")


def test_the_router_releases_read_and_the_flag_they_renamed() -> None:
    import json
    from pathlib import Path

    data = json.loads(
        (Path(__file__).resolve().parents[1] / "src/argtrace/frameworks/data/sglang_router.json").read_text()
    )
    assert data["releases"] == [f"0.1.{n}" for n in range(4, 10)] + [f"0.2.{n}" for n in range(5)] + [
        "0.3.0",
        "0.3.1",
        "0.3.2",
    ]
    assert data["renamed"] == {"--router-eviction-interval": "--router-eviction-interval-secs"}
    assert [o["flags"] for o in data["older_options"]] == [
        ["--router-eviction-interval"],
        ["--router-verbose"],
    ]
    assert data["flags"]["--router-eviction-interval-secs"] == [f"0.2.{n}" for n in range(5)] + [
        "0.3.0",
        "0.3.1",
        "0.3.2",
    ]
    assert data["flags"]["--router-redis-url"] == ["0.3.2"]  # new in 0.3.2
    assert data["flags"]["--router-jwt-issuer"] == ["0.3.1", "0.3.2"]
    assert len(data["flags"]) == 99 and len(data["options"]) == 97
    # launch_router's own parser, per release (the router alone: frameworks/router_launch.py)
    assert len(data["launch_router"]["flags"]) == 102


RENAMED = (
    "--router-eviction-interval was accepted by sglang-router 0.1.4-0.1.9 but sglang-router 0.3.2 (the "
    "newest bundled router release; the one installed is not known) does not know it: its launcher refuses "
    'to start ("unrecognized arguments", exit 2); sglang-router 0.2.0 renamed it '
    "--router-eviction-interval-secs"
)


def test_a_flag_of_an_older_router_release_goes_with_its_value_and_names_the_new_spelling() -> None:
    words = "--model-path m --router-eviction-interval 60 --tp 2 --router-eviction-interval=30".split()
    split = split_router(words)
    assert [words[i] for i in split.server] == ["--model-path", "m", "--tp", "2"]
    assert split.older == [("--router-eviction-interval", ["60"]), ("--router-eviction-interval", ["30"])]
    assert (split.router, split.problems) == ([], [])
    assert older_router_flag("--router-eviction-interval") == (RENAMED, "use --router-eviction-interval-secs")


def test_check_reports_an_older_router_flag_as_the_router_s_not_sglang_s() -> None:
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    line = "python3 -m sglang_router.launch_server --model-path m --dp-size 2 --router-eviction-interval 60"
    p = subprocess.run(
        [sys.executable, "-m", "argtrace", "check", "--no-resolve", "--format", "json", "-c", line],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    data = json.loads(p.stdout)
    got = [(f["code"], f["severity"], f["basis"], f["message"], f["fix"]) for f in data["findings"]]
    assert [g for g in got if g[0] != "PR011"] == [
        ("PA001", "warning", "assumed", RENAMED, "use --router-eviction-interval-secs")
    ]
    assert data["parser"]["argv"] == ["--model-path", "m", "--dp-size", "2"]
