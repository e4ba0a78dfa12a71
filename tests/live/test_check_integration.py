"""The ``check --pid`` / ``check --url`` hook (:mod:`argtrace.layers.running`), exercised the way ``check``
calls it: the static layers first, then the running server, folded like any layer."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path

from argtrace.check import CheckOptions, analyze_server, fold_settings
from argtrace.commands.check import add_check_options
from argtrace.layers.running import check_extra
from argtrace.layers.shell import ScriptSource, analyze_script
from argtrace.model import Report
from tests.live.fixture_server import serve_fixture
from tests.observed.fake_server import fake_site, start_fake_server, stop

API_KEY = "sk-argtrace-fixture-key-0000000000"
SEED = f"""#!/bin/bash
python3 -m sglang.launch_server --model-path /models/Qwen3.6-27B --tp-size 2 --dp-size 2 \\
    --mamba-scheduler-strategy extra_buffer --chunked-prefill-size 8192 --api-key {API_KEY}
"""


def _check(tmp_path: Path, extra: dict[str, object]) -> tuple[Report, list]:  # type: ignore[type-arg]
    script = tmp_path / "launch.sh"
    script.write_text(SEED)
    env = {"PATH": os.environ["PATH"]}
    options = CheckOptions(
        script=str(script),
        script_args=(),
        command_string=None,
        env=env,
        framework_version="0.5.10.post1",
        resolve=False,
        extra=extra,
    )
    shell = analyze_script(
        ScriptSource(label=str(script), data=script.read_bytes(), path=script),
        [],
        env,
        arg0=str(script),
        run_shellcheck=False,
    )
    report = Report(command="check")
    server = shell.servers[0]
    # analyze_server runs the running-server layers itself when --pid/--url are in the options.
    results = analyze_server(server, options, report)
    report.settings = fold_settings(results)
    for result in results:
        report.findings.extend(result.findings)
        report.sections.update(result.sections)
    return report, results


def test_options_parse() -> None:
    parser = argparse.ArgumentParser()
    add_check_options(parser)
    args = parser.parse_args(["--pid", "auto", "--url", "http://h:1", "--api-key", "k", "--url-timeout", "2"])
    extra = check_extra(args)
    assert extra["pid"] == "auto" and extra["url"] == "http://h:1" and extra["url_timeout"] == 2.0


def test_check_url_uses_the_launch_key_and_compares_intended(tmp_path: Path) -> None:
    with serve_fixture("sglang-0.5.10.post1-apikey") as server:
        report, _ = _check(tmp_path, {"url": server.url})
    codes = [f.code for f in report.findings]
    assert "LV004" not in codes  # authenticated with the launch's own --api-key
    lv005 = [f for f in report.findings if f.code == "LV005"]
    assert [f.setting for f in lv005] == ["mamba_scheduler_strategy"]
    setting = report.setting("mamba_scheduler_strategy")
    assert setting is not None and setting.effective == "no_buffer"
    assert [o.layer for o in setting.history][-1] == "live"
    assert report.sections["live"]["authenticated"] is True
    assert API_KEY not in str([f.message for f in report.findings])


def test_check_pid(tmp_path: Path) -> None:
    site = fake_site(tmp_path / "site")
    proc = start_fake_server(
        site,
        [
            "--model-path",
            "/models/Qwen3.6-27B",
            "--tp-size",
            "2",
            "--dp-size",
            "2",
            "--mamba-scheduler-strategy",
            "no_buffer",
            "--chunked-prefill-size",
            "8192",
            "--api-key",
            API_KEY,
        ],
        port_file=tmp_path / "port",
    )
    try:
        report, _ = _check(tmp_path, {"pid": str(proc.pid)})
    finally:
        stop(proc)
    pr100 = [f for f in report.findings if f.code == "PR100"]
    assert len(pr100) == 1 and pr100[0].setting == "mamba_scheduler_strategy"
    setting = report.setting("mamba_scheduler_strategy")
    assert setting is not None and setting.effective == "no_buffer"
    assert report.sections["observed_process"]["pid"] == proc.pid


def test_nothing_is_attached_unasked(tmp_path: Path) -> None:
    report, _ = _check(tmp_path, {})
    assert "live" not in report.sections and "observed_process" not in report.sections
    assert replace  # keep the import honest for readers: options are frozen dataclasses
