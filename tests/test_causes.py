"""One finding per cause (argtrace/causes.py), and the first screen of the text report (render/screen.py).

The shipped example and four broken variants of a launch, checked end to end: the JSON's causes and their
consequences exactly, and the text report at 80 and 120 columns against golden files in
tests/data/screens/ (regenerate with ARGTRACE_UPDATE_SCREENS=1 after a deliberate change, then read the
diff). Every case runs in a temporary directory with a relative script name, ``--clean-env`` and a named
release without resolution, so the screens do not depend on the machine.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from argtrace.causes import fold_causes, merge_same_raise
from argtrace.model import Evidence, Finding, Observation, Report, Setting
from argtrace.render.screen import marked, output_width, split_line
from tests.conftest import REPO, run_cli
from tests.needs import unmet

EXAMPLE = REPO / "examples" / "launch_mtp.sh"
SCREENS = REPO / "tests" / "data" / "screens"
SGLANG_0510 = "resolver:sglang==0.5.10.post1"

# name -> (script text, the script's arguments)
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "example": (EXAMPLE.read_text(), ("0", "30000")),
    "crlf": (EXAMPLE.read_text().replace("\n", "\r\n"), ("0", "30000")),
    "space_after_backslash": (
        "#!/bin/bash\npython3 -m sglang.launch_server \\\n    --model-path /m \\ \n    --port 30000\n",
        (),
    ),
    "unset_positional": (
        "#!/bin/bash\nMODEL=$1\npython3 -m sglang.launch_server --model-path $MODEL --port 30000\n",
        (),
    ),
    "heredoc_upload": (
        "#!/bin/bash\nssh node1 bash <<EOF\n"
        "python3 -m sglang.launch_server --model-path /m --port $PORT\nEOF\n",
        (),
    ),
}

# name -> [(code, severity, at, [(consequence code, at), ...]), ...] in the report's order
EXPECTED_CAUSES: dict[str, list[tuple[str, str, str | None, list[tuple[str, str | None]]]]] = {
    "example": [
        ("SH004", "error", "launch.sh:27:5", []),
        ("SC2086", "info", "launch.sh:19:12", []),
        ("PA024", "info", "launch.sh:27:5", []),
    ],
    "crlf": [
        (
            "SH002",
            "error",
            "launch.sh:1",
            [
                ("SH023", "launch.sh:16:5"),
                *[("SC2215", f"launch.sh:{line}:5") for line in (*range(16, 26), 28, 29, 30)],
                ("SC2188", "launch.sh:31:5"),
                ("PA001", "launch.sh:15:39"),
                ("PA020", "launch.sh:15:1"),
                ("PA001", "launch.sh:16:5"),
            ],
        ),
        ("SH004", "error", "launch.sh:27:5", []),
        ("SC2086", "info", "launch.sh:19:12", []),
    ],
    "space_after_backslash": [
        ("SH003", "error", "launch.sh:3:21", [("SC2215", "launch.sh:4:5"), ("PA001", "launch.sh:3:21")]),
    ],
    "unset_positional": [
        ("SH026", "warning", "launch.sh:3:46", [("PA012", "launch.sh:3:33"), ("PA020", "launch.sh:3:1")]),
    ],
    "heredoc_upload": [
        (
            "TP007",
            "error",
            "launch.sh:3",
            [("SC2087", "launch.sh:2:18"), ("PA012", "node1:<stdin>:1:49")],
        ),
    ],
}


def _check(tmp_path: Path, name: str, *options: str) -> tuple[int, str]:
    if shutil.which("shellcheck") is None:
        pytest.skip("needs shellcheck")
    text, args = CASES[name]
    (tmp_path / "launch.sh").write_bytes(text.encode())
    argv = [
        "check",
        *options,
        "--clean-env",
        "--no-resolve",
        "--framework-version",
        "0.5.10.post1",
        "launch.sh",
        *args,
    ]
    result = run_cli(argv, cwd=tmp_path)
    return result.status, result.stdout


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_json_findings_are_the_causes_with_their_consequences(tmp_path: Path, name: str) -> None:
    status, out = _check(tmp_path, name, "--format", "json")
    findings = json.loads(out)["findings"]
    got = [
        (f["code"], f["severity"], f["at"], [(c["code"], c["at"]) for c in f.get("consequences", [])])
        for f in findings
    ]
    assert got == EXPECTED_CAUSES[name]
    # a cause without consequences has no `consequences` key: the finding dicts of old stay as they were
    assert all("consequences" not in f for f in findings if not got[findings.index(f)][3])
    # every case fails the check but the unset positional: the script got no arguments, so its SH026 and the
    # parser errors it explains rest on that (warnings; `argtrace check launch.sh MODEL` decides)
    assert status == (0 if name == "unset_positional" else 1)


def test_a_consequence_is_code_at_message_severity_layer(tmp_path: Path) -> None:
    _, out = _check(tmp_path, "space_after_backslash", "--format", "json")
    (cause,) = json.loads(out)["findings"]
    assert cause["consequences"][1] == {
        "code": "PA001",
        "at": "launch.sh:3:21",
        "message": "' ' (after /m) is not a value of any flag: sglang 0.5.10.post1 rejects it with "
        '"unrecognized arguments" (exit 2)',
        "severity": "error",
        "layer": "parser",
    }


def test_verbose_lists_each_consequence_as_a_finding_naming_its_cause(tmp_path: Path) -> None:
    _, out = _check(tmp_path, "heredoc_upload", "--format", "json", "--verbose")
    findings = json.loads(out)["findings"]
    assert [(f["code"], f.get("cause")) for f in findings] == [("TP007", None), ("SC2087", 0), ("PA012", 0)]
    assert findings[2]["setting"] == "port" and findings[2]["layer"] == "parser"
    assert "consequences" not in findings[1]


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_first_screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, columns: int) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    _, out = _check(tmp_path, name)
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= columns, [line for line in lines if len(line) > columns]
    golden = SCREENS / f"{name}.{columns}.txt"
    if os.environ.get("ARGTRACE_UPDATE_SCREENS"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(out)
    assert out == golden.read_text()


def test_the_diagnosis_opens_the_report_and_the_cause_is_near_the_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    _, out = _check(tmp_path, "crlf")
    lines = out.splitlines()
    assert lines[1] == "Diagnosis: 2 errors, 1 info; 18 more findings follow from them"
    assert lines[2].startswith("ERROR SH002 launch.sh:1 launch.sh has CRLF (Windows) line endings on 31")
    # the rest of the message, then what follows from it, then the fix
    assert lines[3].startswith("  `$'\\r'` (launch.sh:15:39); the backslash on line(s) 15, 16, 17, 18, 19")
    assert lines[4] == "  explains 18 findings: SH023, SC2215 x13, SC2188, PA001 x2, PA020"
    assert lines[5].startswith("  fix: Convert launch.sh to Unix line endings")
    assert "0 error(s)" not in out and lines[-1] == "6 error(s), 0 warning(s), 15 info from 3 cause(s)"


def test_all_settings_lists_every_default_the_first_screen_leaves_out(tmp_path: Path) -> None:
    _, out = _check(tmp_path, "example")
    assert "Settings (14)" in out.splitlines()
    _, json_out = _check(tmp_path, "example", "--all-settings", "--format", "json")
    count = len(json.loads(json_out)["settings"])
    assert count > 300
    _, everything = _check(tmp_path, "example", "--all-settings")
    assert f"Settings ({count})" in everything.splitlines()


def test_the_settings_only_a_resolver_filled_in_are_counted_not_listed() -> None:
    from argtrace.render import render_report

    written = Setting(
        "port", "--port", "30000", [Observation("shell", "30000"), Observation("parser", 30000)]
    )
    filled = Setting(
        "device",
        "--device",
        None,
        [Observation("parser", None, detail={"default": True}), Observation("resolution", "cuda")],
    )
    report = Report(command="check", settings=[written, filled])
    lines = render_report(report, fmt="text").splitlines()
    assert lines[1:3] == [
        "Settings (1); 1 more that only the parser's or the resolver's defaults set: --all-settings",
        "  --port  30000",
    ]
    assert not any("--device" in line for line in lines)


# -- the rules, on findings made by hand -------------------------------------------------------------------


def _raise(setting: str, reads: str, layer: str = "resolution") -> Finding:
    text = "ValueError: radix cache needs extra_buffer"
    return Finding(
        code="RS001" if layer == "resolution" else "LG001",
        severity="error",
        layer=layer,  # type: ignore[arg-type]
        message=f"ValueError in f (x.py:1) reads {setting} = {reads}: radix cache needs extra_buffer",
        at="x.py:1" if layer == "resolution" else "LOG:7",
        setting=setting,
        evidence=(Evidence(layer, "x.py:1", text),),  # type: ignore[arg-type]
    )


def test_one_raise_site_is_one_finding_with_the_settings_it_read_as_evidence() -> None:
    merged = merge_same_raise(
        [_raise("mamba_scheduler_strategy", "'no_buffer'"), _raise("disable_radix_cache", "False (default)")]
    )
    assert len(merged) == 1
    assert [e.text for e in merged[0].evidence] == [
        "ValueError: radix cache needs extra_buffer",
        "reads disable_radix_cache = False (default)",
    ]


def test_the_log_reporting_the_same_exception_is_a_consequence_of_the_resolvers() -> None:
    report = Report(command="check", findings=[_raise("a", "1", "log"), _raise("a", "1")])
    (cause,) = fold_causes(report)
    assert (cause.code, [c.code for c in cause.consequences]) == ("RS001", ["LG001"])


def test_a_finding_about_a_cut_off_setting_follows_from_the_comment_that_cut_it() -> None:
    setting = Setting(name="max_mamba_cache_size", flag="--max-mamba-cache-size")
    setting.observe(Observation("shell", "64", at="s.sh:27:5", detail={"separated": True}))
    cut = Finding("SH004", "error", "shell", "a comment ends the command", at="s.sh:27:5")
    memory = Finding("MM001", "error", "memory", "out of memory", setting="max_mamba_cache_size")
    about = Finding("PA024", "info", "parser", "gone", at="s.sh:27:5", setting="max_mamba_cache_size")
    report = Report(command="check", settings=[setting], findings=[cut, memory, about])
    assert [(f.code, [c.code for c in f.consequences]) for f in fold_causes(report)] == [
        ("SH004", ["MM001"]),
        ("PA024", []),  # true of the flag itself once it arrives: its own cause
    ]


def test_an_unrelated_finding_on_another_line_stays_a_cause() -> None:
    crlf = Finding("SH003", "error", "shell", "space after the backslash", at="s.sh:3:21")
    far = Finding("SC2215", "info", "shell", "flag used as a command", at="s.sh:9:5")
    near = Finding("SC2215", "info", "shell", "flag used as a command", at="s.sh:4:5")
    folded = fold_causes(Report(command="check", findings=[crlf, far, near]))
    assert [(f.code, f.at, [c.at for c in f.consequences]) for f in folded] == [
        ("SH003", "s.sh:3:21", ["s.sh:4:5"]),
        ("SC2215", "s.sh:9:5", []),
    ]


def test_a_milder_cause_with_an_error_consequence_still_fails_the_check() -> None:
    report = Report(command="check")
    empty = (Evidence("shell", "s.sh:3:46", "--m $M"),)
    report.findings = [Finding("SH026", "warning", "shell", "empty", at="s.sh:3:46", evidence=empty)]
    assert report.exit_status == 0
    report.findings = [
        *report.findings,
        Finding("PA020", "error", "parser", "--m is required", at="s.sh:3:1", setting="m"),
    ]
    report.findings = fold_causes(report)
    assert len(report.findings) == 1 and report.exit_status == 1


# -- the screen's pieces ------------------------------------------------------------------------------------


def test_the_width_is_columns_else_100_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert output_width(tty=False) == 80
    monkeypatch.delenv("COLUMNS")
    assert output_width(tty=False) == 100
    monkeypatch.setenv("COLUMNS", "junk")
    assert output_width(tty=False) == 100


def test_look_alikes_are_named() -> None:
    assert marked("\u2013-port “x” a\\xa0b") == (
        "<U+2013 EN DASH>-port <U+201C LEFT DOUBLE QUOTATION MARK>x<U+201D RIGHT DOUBLE QUOTATION MARK> "
        "a<U+00A0 NO-BREAK SPACE>b"
    )
    assert marked("--port 30000") == "--port 30000"


def test_a_line_is_cut_at_a_word_with_an_ellipsis() -> None:
    assert split_line("one two three four", 12) == ("one two…", "three four")
    assert split_line("short", 12) == ("short", "")
    assert split_line("averyveryverylongword rest", 10) == ("averyvery…", "verylongword rest")


@pytest.mark.frameworks
def test_the_seed_error_is_one_consequence_of_the_comment(tmp_path: Path) -> None:
    if unmet([SGLANG_0510]):
        pytest.skip("needs the sglang 0.5.10.post1 resolver environment (scripts/build_test_envs)")
    model = REPO / "tests" / "data" / "models" / "qwen3.6-27b"
    argv = ["check", "--format", "json", "--framework-version", "0.5.10.post1", "--model-config", str(model)]
    result = run_cli([*argv, "--gpu", "rtx-pro-6000", str(EXAMPLE), "0", "30000"])
    findings = result.json["findings"]
    (sh004,) = [f for f in findings if f["code"] == "SH004"]
    assert [c["code"] for c in sh004["consequences"]] == ["RS001", "MM001"]
    assert not [f for f in findings if f["code"] == "RS001"]
    assert result.status == 1


def test_the_callers_own_session_is_not_the_servers_environment() -> None:
    argv = [
        "check",
        "--format",
        "json",
        "--no-resolve",
        "--no-shellcheck",
        "--framework-version",
        "0.5.10.post1",
    ]
    env = ["VIRTUAL_ENV=/venv", "SHELL=/bin/bash", "XDG_RUNTIME_DIR=/run/user/0", "XDG_CONFIG_HOME=/cfg"]
    options = [word for assignment in env for word in ("--env", assignment)]
    result = run_cli(
        [*argv, "--clean-env", *options, "-c", "python3 -m sglang.launch_server --model-path /m"]
    )
    # SGLang 0.5.10.post1's code reads XDG_CONFIG_HOME (its schema lists it); nothing reads the others
    assert result.json["process"]["env"] == {"XDG_CONFIG_HOME": "/cfg"}


def test_verbose_text_lists_each_consequence_after_its_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    _, out = _check(tmp_path, "heredoc_upload", "--verbose")
    details = out.split("\nDetails\n", 1)[1].splitlines()
    assert details[0].startswith("  #1   error   TP007 [transport] launch.sh:3: the here-document")
    consequences = [line for line in details if line.startswith("      ") and line[6:7] != " "]
    assert [line.split()[:3] for line in consequences] == [
        ["info", "SC2087", "[shell]"],
        ["error", "PA012", "[parser]"],
    ]
    assert details.count("          follows from #1 TP007") == 2
    assert max(len(line) for line in out.splitlines()) <= 100


def test_a_pods_gpu_limit_too_small_is_one_cause(tmp_path: Path) -> None:
    """The container's GPUs (TP042) and the node's GPUs (PA036) read the same ``nvidia.com/gpu`` limit of
    one pod: one cause (PA036, which names the setting), the other folded into it."""
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vllm\nspec:\n  replicas: 1\n"
        "  template:\n    spec:\n      containers:\n      - name: vllm\n"
        "        image: vllm/vllm-openai:v0.11.0\n"
        '        command: ["vllm", "serve", "/m", "--tensor-parallel-size", "2"]\n'
        "        resources:\n          limits:\n            nvidia.com/gpu: 1\n"
    )
    argv = ["check", "--format", "json", "--no-resolve", "--clean-env", "deploy.yaml"]
    result = run_cli(argv, cwd=tmp_path)
    findings = result.json["findings"]
    assert [f["code"] for f in findings if f["severity"] == "error"] == ["PA036"]
    (pa036,) = [f for f in findings if f["code"] == "PA036"]
    assert pa036["setting"] == "tensor_parallel_size"
    assert [c["code"] for c in pa036["consequences"]] == ["TP042"]


LLAMA31 = REPO / "tests" / "data" / "models" / "llama-3.1-8b"
TP4 = "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4"


def _check_gpu(tmp_path: Path, gpu: str, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """No resolver environment (an empty cache): resolution counts the GPUs but runs nothing."""
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "cache"))
    argv = ["check", "--format", "json", "--clean-env", "--framework-version", "0.33.0", "--gpu", gpu]
    result = run_cli([*argv, "--model-config", str(LLAMA31), "-c", TP4], cwd=tmp_path)
    return list(result.json["findings"])


def test_too_few_gpus_is_one_cause_with_the_memory_layers_count_folded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--gpu h100x2`` under ``--tensor-parallel-size 4``: RS005 (resolution's count) is the cause, with
    vLLM's own flag names in its fix; MM007 says the same count and is its consequence."""
    findings = _check_gpu(tmp_path, "h100x2", monkeypatch)
    errors = [(f["code"], f["message"], f["fix"]) for f in findings if f["severity"] == "error"]
    assert errors == [
        (
            "RS005",
            "the parallel sizes need 4 GPUs (tensor_parallel_size 4 x pipeline_parallel_size 1) but --gpu "
            "h100x2 gives 2",
            "lower --tensor-parallel-size / --pipeline-parallel-size, or run on a node with enough GPUs",
        )
    ]
    (rs005,) = [f for f in findings if f["code"] == "RS005"]
    assert [(c["code"], c["message"]) for c in rs005["consequences"]] == [
        ("MM007", "tensor_parallel_size 4 needs 4 GPUs; --gpu has 2")
    ]


def test_a_bare_gpu_name_is_as_many_as_the_launch_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--gpu h100`` names the model of GPU, not a count: neither resolution nor memory may say the launch
    has too few (they once disagreed: resolution read 4, memory 1 and raised MM007)."""
    findings = _check_gpu(tmp_path, "h100", monkeypatch)
    assert [f["code"] for f in findings if f["code"] in ("RS005", "MM007")] == []
    assert [f["code"] for f in findings if f["severity"] == "error"] == []
