"""The vLLM batch of session 30 (docs/real_cases.md, "vLLM, 30th session"), measured before any fix: tool-call
and reasoning parsers (a name the image's release does not register yet, a parser that does not fit the
model's output format), a quantization config the checkpoint lacks, and Ray clusters a server is placed on
(an address the head is not registered under, a Ray Client address). Each case under
``tests/data/real_cases_vllm30/`` names its URL on its first line (after a ``#!`` line): ``.cmd`` launches for
``argtrace check -c``, ``.sh`` scripts, ``.txt`` the text a report quotes for ``argtrace why``, ``ok_*`` the
correct launches collected with them. The machine is a new user's (no resolver environment, no Hugging Face
cache)."""

from __future__ import annotations

import copy
import functools
import json
import re
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.batches import (
    check_case,
    finding,
    missing_cases,
    shown_codes,
    table_counts,
    unsourced,
    why_with_release,
)
from tests.conftest import REPO, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm30"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on 52ab1f99) and now.
CLASSES = {
    "deepseekv3_944_hermes_parser.cmd": ("c", "c"),
    "exaone6_reasoning_parser_deepseek_r1.cmd": ("c", "c"),
    "qwen3coder537_hermes_parser_0110.cmd": ("c", "c"),
    "rocmvllm926_deepseek_v4_parsers_0180.sh": ("c", "a"),
    "vllm13521_vllm_host_ip_ray_0072.sh": ("c", "c"),
    "vllm13612_gptq_config_missing.txt": ("a", "a"),
    "vllm14186_run_cluster_public_ip.sh": ("c", "c"),
    "vllm14349_ray_client_address.sh": ("c", "c"),
    "vllm22507_thinking2507_qwen3_parser_0100.cmd": ("c", "c"),
    "vllm33348_glm47_glm45_parser_0150.cmd": ("c", "c"),
    "vllmascend8875_deepseek_v4_parsers_0130.cmd": ("c", "a"),
    "vllmascend8997_invalid_tool_call_parser_title.txt": ("a", "a"),
}
CORRECT = [
    "ok_bielik_reasoning_parser_plugin.cmd",
    "ok_bielik_tool_parser_plugin.cmd",
    "ok_vllmascend11299_speculative_config_underscore_0230.cmd",
    "ok_vllmascend4566_dp_size_local_underscore.cmd",
    "ok_vllmpr28114_reasoning_deepseek_v3.cmd",
]
# the release a report names (its text, its image or package, the PR's date), given as --framework-version
RELEASES = {
    "ok_vllmascend11299_speculative_config_underscore_0230.cmd": "0.23.0",
    "ok_vllmascend4566_dp_size_local_underscore.cmd": "0.11.2",
    "qwen3coder537_hermes_parser_0110.cmd": "0.11.0",
    "rocmvllm926_deepseek_v4_parsers_0180.sh": "0.18.0",
    "vllm13521_vllm_host_ip_ray_0072.sh": "0.7.2",
    "vllm13612_gptq_config_missing.txt": "0.7.3",
    "vllm22507_thinking2507_qwen3_parser_0100.cmd": "0.10.0",
    "vllm33348_glm47_glm45_parser_0150.cmd": "0.15.1",
    "vllmascend8875_deepseek_v4_parsers_0130.cmd": "0.13.0",
}
_FORMAT = (
    "which parser fits is the model's output format (its chat template's tool-call or thinking tokens), not "
    "read on a new user's machine, and no release's code maps a model to a parser"
)
_RAY = "the Ray cluster's nodes and the addresses they registered under are not part of the launch"
# the check inputs not in class a: a word the alarm naming the cause must hold, and what argtrace lacks
MISSING = {
    "deepseekv3_944_hermes_parser.cmd": ("deepseek_v3", _FORMAT),
    "exaone6_reasoning_parser_deepseek_r1.cmd": ("deepseek_v3", _FORMAT),
    "qwen3coder537_hermes_parser_0110.cmd": ("qwen3_coder", _FORMAT),
    "vllm22507_thinking2507_qwen3_parser_0100.cmd": ("deepseek_r1", _FORMAT),
    "vllm33348_glm47_glm45_parser_0150.cmd": ("glm45", _FORMAT),
    "vllm13521_vllm_host_ip_ray_0072.sh": ("VLLM_HOST_IP", _RAY),
    "vllm14186_run_cluster_public_ip.sh": ("VLLM_HOST_IP", _RAY),
    "vllm14349_ray_client_address.sh": (
        "RAY_ADDRESS",
        "a Ray Client address (ray://) in RAY_ADDRESS: vLLM's ray.init takes it as given, and no release's "
        "code refuses it before the failure the report shows",
    ),
}


@functools.cache
def _check(name: str) -> dict[str, Any]:
    version = RELEASES.get(name)
    return check_case(CASES, name, ("--framework-version", version) if version else ())


def check(name: str) -> dict[str, Any]:
    """Each recorded launch is checked once; the tests read copies."""
    return copy.deepcopy(_check(name))


def command(*argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-resolve", *argv])
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([2, 0, 10, 0], [4, 0, 8, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    report = check(name)
    assert shown_codes(report) == []
    assert len(report["servers"]) == 1


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_check_case_not_in_class_a() -> None:
    checked = {n for n, (_, now) in CLASSES.items() if now != "a" and not n.endswith(".txt")}
    assert set(MISSING) == checked


def test_vllmascend8875_parsers_the_image_does_not_register() -> None:
    """c -> a: vLLM 0.13.0 (vllm-ascend's v0.13.0rc3 image) registers neither parser deepseek_v4."""
    report = check("vllmascend8875_deepseek_v4_parsers_0130.cmd")
    assert shown_codes(report) == [("RS079", "warning")]
    cause = finding(report, "RS079")
    assert (cause["basis"], cause["setting"], cause["at"]) == (
        "framework-code",
        "tool_call_parser",
        "<-c>:7:29",
    )
    assert cause["message"] == (
        "--tool-call-parser deepseek_v4: vllm 0.13.0 registers no tool-call parser of that name, so the "
        "serve command's check raises KeyError 'invalid tool call parser: deepseek_v4 (chose from { ... })' "
        "before the engine starts (vllm/entrypoints/openai/api_server.py:1332, with "
        "--enable-auto-tool-choice) unless a plugin registers it; --reasoning-parser deepseek_v4 is refused "
        "the same way (no reasoning parser deepseek_v4, 'invalid reasoning parser' at "
        "vllm/entrypoints/openai/api_server.py:1341); vllm 0.20.2-0.33.0 register them"
    )
    assert cause["fix"] == (
        "run a release that registers --tool-call-parser deepseek_v4 and --reasoning-parser deepseek_v4 "
        "(vllm 0.20.2-0.33.0), or give names vllm 0.13.0 registers (--tool-call-parser deepseek_v3 or "
        "deepseek_v32 or deepseek_v31, --reasoning-parser deepseek_v3 or deepseek_r1)"
    )


def test_rocmvllm926_a_release_read_through_its_family() -> None:
    """c -> a: 0.18.0 is not bundled; its family's 0.18.1 stands in, and the message says so."""
    report = check("rocmvllm926_deepseek_v4_parsers_0180.sh")
    assert shown_codes(report) == [("RS079", "warning")]
    cause = finding(report, "RS079")
    assert cause["message"].startswith(
        "--tool-call-parser deepseek_v4: vllm 0.18.0 (read from 0.18.1, the bundled release of its family) "
        "registers no tool-call parser of that name"
    )
    assert cause["at"] == "rocmvllm926_deepseek_v4_parsers_0180.sh:31:11"


_DSV4 = "vllm serve deepseek-ai/DeepSeek-V4-Flash"


@pytest.mark.parametrize(
    ("release", "words", "expected"),
    [
        # both parsers, one finding
        ("0.13.0", "--enable-auto-tool-choice --tool-call-parser deepseek_v4", [("RS079", "warning")]),
        ("0.13.0", "--reasoning-parser deepseek_v4", [("RS079", "warning")]),
        # registered from 0.20.2
        (
            "0.20.2",
            "--enable-auto-tool-choice --tool-call-parser deepseek_v4 --reasoning-parser deepseek_v4",
            [],
        ),
        # without --enable-auto-tool-choice the tool parser is never checked (RS038 says it is never loaded)
        ("0.13.0", "--tool-call-parser deepseek_v4", [("RS038", "warning")]),
        # a plugin file the launch imports may register the name
        (
            "0.13.0",
            "--enable-auto-tool-choice --tool-parser-plugin ./my_parser.py --tool-call-parser deepseek_v4",
            [],
        ),
        ("0.13.0", "--reasoning-parser-plugin ./my_parser.py --reasoning-parser deepseek_v4", []),
        # `none` unsets the reasoning parser
        ("0.33.0", "--reasoning-parser none", []),
        # 0.7.3 checks the reasoning parser only with --enable-reasoning
        ("0.7.3", "--reasoning-parser qwen3", []),
        ("0.7.3", "--enable-reasoning --reasoning-parser qwen3", [("RS079", "warning")]),
        # a release whose argparse choices check the word: not this rule's
        ("0.9.2", "--reasoning-parser deepseek_v4", [("PA009", "error")]),
        # nothing names the release: the newest registers deepseek_v4; minimax, which it no longer registers,
        # is a note (older releases do); a name no release registers is a warning
        ("", "--enable-auto-tool-choice --tool-call-parser deepseek_v4", []),
        ("", "--enable-auto-tool-choice --tool-call-parser minimax", []),
        ("", "--enable-auto-tool-choice --tool-call-parser no_such_parser", [("RS079", "warning")]),
    ],
)
def test_parser_name_variants(release: str, words: str, expected: list[tuple[str, str]]) -> None:
    """Variants (not reports): which releases and flags make RS079 speak."""
    options = ["--framework-version", release] if release else []
    report = command(*options, "-c", f"{_DSV4} {words}")
    assert [(c, s) for c, s in shown_codes(report) if c in ("RS079", "RS038", "PA009")] == expected


def test_an_unnamed_release_is_a_note() -> None:
    """The newest release, analysed when nothing names one, no longer registers minimax; older ones do."""
    report = command("-c", f"{_DSV4} --enable-auto-tool-choice --tool-call-parser minimax")
    [note] = [f for f in report["findings"] if f["code"] == "RS079"]
    assert note["severity"] == "info"
    assert note["message"].startswith(
        "--tool-call-parser minimax: vllm 0.33.0 registers no tool-call parser of that name"
    )
    assert note["message"].endswith("; vllm 0.9.2-0.23.0 register minimax")


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        # the engine built in-process: no serve command checks the name at start
        (
            "from vllm import LLM\n"
            "LLM(model='deepseek-ai/DeepSeek-V4-Flash', reasoning_parser='deepseek_v4')\n",
            [],
        ),
        # a serve command started from Python is checked as any other
        (
            "import subprocess\nsubprocess.Popen(['vllm', 'serve', 'deepseek-ai/DeepSeek-V4-Flash', "
            "'--reasoning-parser', 'deepseek_v4'])\n",
            [("RS079", "warning")],
        ),
    ],
)
def test_a_python_engine_call_is_not_the_serve_command(
    program: str, expected: list[tuple[str, str]], tmp_path: Path
) -> None:
    """Variants (not reports): LLM(...) is written as the flags it amounts to, but its parser names meet no
    start-up check."""
    (tmp_path / "launch.py").write_text(program)
    result = run_cli(
        ["check", "--format", "json", "--no-resolve", "--framework-version", "0.13.0", "launch.py"],
        cwd=tmp_path,
    )
    assert [(f["code"], f["severity"]) for f in result.json["findings"] if f["code"] == "RS079"] == expected


def test_why_on_the_refusal_and_the_missing_quantization_config() -> None:
    """Class a as first seen: the title's text names the tool-parser check; the traceback's last line the
    quantization config lookup and --quantization."""
    first = why_with_release(CASES, "vllmascend8997_invalid_tool_call_parser_title.txt", RELEASES)["matches"][
        0
    ]
    assert (first["function"], [s["flag"] for s in first["settings"]]) == (
        "validate_api_server_args",
        ["--tool-call-parser", "--enable-auto-tool-choice"],
    )
    first = why_with_release(CASES, "vllm13612_gptq_config_missing.txt", RELEASES)["matches"][0]
    assert (first["function"], first["file"]) == (
        "get_quant_config",
        "vllm/model_executor/model_loader/weight_utils.py",
    )
    assert "--quantization" in [s["flag"] for s in first["settings"]]


def test_the_tool_parser_registries_match_the_schemas_metavar() -> None:
    """Two readings of one fact: the wheel's registrations (scripts/gen_vllm_parsers.py) and the names the
    real parser's --tool-call-parser metavar lists (the bundled schemas)."""
    from argtrace.frameworks.schema import load_schema
    from argtrace.frameworks.vllm_parsers import parser_registry

    data = json.loads((REPO / "src/argtrace/frameworks/data/vllm_parsers.json").read_text())
    assert len(data["releases"]) == 29
    for version in data["releases"]:
        registry = parser_registry(version, "tool")
        assert registry is not None, version
        metavar = str(load_schema("vllm", version).option("--tool-call-parser").metavar)
        listed = re.match(r"\{([^}]*)\}", metavar)
        assert listed is not None, (version, metavar)
        assert set(listed.group(1).split(",")) == set(registry.registered), version


def test_the_parser_table_is_generated() -> None:
    """frameworks/data/vllm_parsers.json is scripts/gen_vllm_parsers.py's output: the registrations and the
    server's refusal with the switches guarding it, read from a wheel."""
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_vllm_parsers import read_wheel

    tools = (
        "@ToolParserManager.register_module(['granite-20b-fc'])\nclass A: pass\n"
        "@ToolParserManager.register_module('hermes')\nclass B: pass\n"
    )
    reasoning = "_REASONING_PARSERS_TO_REGISTER = {'qwen3': ('qwen3_parser', 'Qwen3'), 'r1': ('x', 'Y')}\n"
    server = (
        "def validate(args):\n"
        "    if args.enable_auto_tool_choice and args.tool_call_parser not in valid:\n"
        "        raise KeyError(f'invalid tool call parser: {args.tool_call_parser}')\n"
        "    if args.reasoning_parser not in other:\n"
        "        raise KeyError(f'invalid reasoning parser: {args.reasoning_parser}')\n"
    )
    batch = "def v(args):\n    if bad:\n        raise KeyError('invalid reasoning parser: x')\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vllm-9.9.9-cp38-abi3-linux.whl"
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("vllm/tool_parsers/a.py", tools)
            zf.writestr("vllm/reasoning/__init__.py", reasoning)
            zf.writestr("vllm/entrypoints/launchers/run_batch.py", batch)
            zf.writestr("vllm/entrypoints/openai/api_server.py", server)
        assert read_wheel(path, ["tool", "reasoning"]) == {
            "tool": {
                "registered": ["granite-20b-fc", "hermes"],
                "at": "vllm/entrypoints/openai/api_server.py:3",
                "needs": ["enable_auto_tool_choice"],
            },
            "reasoning": {
                "registered": ["qwen3", "r1"],
                "at": "vllm/entrypoints/openai/api_server.py:5",
                "needs": [],
            },
        }
