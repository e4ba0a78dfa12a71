def test_check_parses_the_server_flags_and_refuses_a_bad_router_value() -> None:
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src}

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
    assert good["parser"]["notes"] == [  # type: ignore[index]
        "router options (sglang-router 0.3.2), not server flags: --router-policy"
    ]
    bad = check("python3 -m sglang_router.launch_server --model-path m --router-policy fastest")
    (pa009,) = [f for f in bad["findings"] if f["code"] == "PA009"]  # type: ignore[attr-defined]
    assert pa009["severity"] == "error" and pa009["message"].startswith(
        "--router-policy: invalid choice: 'fastest'"
    )
