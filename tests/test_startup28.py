"""Start-up, session 28 (issue 18): what a check reads of the entry-point index, and the release spans PR011
describes, computed once per input instead of once per question."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from argtrace.frameworks import entrypoints
from argtrace.frameworks.release import describe_releases
from argtrace.package_data import package_file


def _reset() -> None:
    entrypoints._packed.cache_clear()
    entrypoints._entry.cache_clear()
    entrypoints.entrypoint.cache_clear()


def test_an_entry_point_is_unpacked_when_first_asked_for_and_equals_the_index_file() -> None:
    raw = json.loads(package_file("frameworks/data/entrypoint_index.json").read_text(encoding="utf-8"))
    _reset()
    try:
        ep = entrypoints.entrypoint("sglang.launch_server")
        # one entry point asked for: one unpacked, the other six still packed
        assert entrypoints._entry.cache_info().currsize == 1
        assert ep is not None and ep.command == raw["entrypoints"]["sglang.launch_server"]["command"]
        assert entrypoints.entrypoint("no such entry point") is None
        assert entrypoints._entry("no such entry point") is None
        # every entry, unpacked, is the file's object, in the file's order
        assert list(entrypoints._packed()) == list(raw["entrypoints"])
        for name, entry in raw["entrypoints"].items():
            assert entrypoints._entry(name) == entry
        assert [e.name for e in entrypoints.entrypoints_of("sglang")] == [
            name for name, entry in raw["entrypoints"].items() if entry["framework"] == "sglang"
        ]
        assert [e.name for e in entrypoints.entrypoints_for_prog("api_server.py")] == [
            name for name, entry in raw["entrypoints"].items() if "api_server.py" in entry.get("progs", ())
        ]
    finally:
        _reset()


def test_release_spans_follow_each_bundled_list_they_are_given() -> None:
    # the places of a bundled list are kept per list: a second list (another framework, another order)
    # must not be read with the first one's places
    first = ["0.1", "0.2", "0.3", "0.4"]
    second = ["0.4", "0.3", "0.2", "0.1"]
    assert describe_releases(["0.1", "0.2", "0.3"], first) == "0.1-0.3"
    assert describe_releases(["0.1", "0.2", "0.3"], second) == "0.1, 0.2, 0.3"
    assert describe_releases(["0.3", "0.2", "0.1"], second) == "0.3-0.1"
    assert describe_releases(["0.1", "0.2", "0.3"], first) == "0.1-0.3"
    assert describe_releases(["0.1", "0.3", "0.4"], first) == "0.1, 0.3, 0.4"
    assert describe_releases([], first) == "none of the bundled releases"
    assert describe_releases(["9.9", "0.1", "0.2"], first) == "9.9, 0.1, 0.2"


def test_the_releases_reading_a_variable_are_answered_once_per_name_and_equal_a_fresh_answer() -> None:
    from argtrace.frameworks.release_index import release_index

    index = release_index("sglang")
    for name in ("SGL_ENABLE_JIT_DEEPGEMM", "SGLANG_ENABLE_JIT_DEEPGEMM", "SGLANG_NO_SUCH_VARIABLE", "SGL_X"):
        first = index.releases_knowing_env(name)
        assert first == index._releases_reading(name)
        assert index.releases_knowing_env(name) is first  # kept: the same answer object
    assert index.releases_knowing_env("SGLANG_NO_SUCH_VARIABLE") == ()


def test_each_producer_module_s_codes_equal_its_table_and_a_code_gets_the_whole_table_s_producer() -> None:
    # registry.py imports a producer module only for a finding whose code it produces: the code sets it
    # decides by must be the modules' own tables, and the producer found the one the whole table gives
    # (a later table's producer wins a code, as the merged table always had it)
    from argtrace.fixes import edits, flags, registry, supervisor, values, words

    add = "a producer added to a table needs its code in registry.py's set of that table"
    assert registry.WORD_CODES == set(words.WORD_PRODUCERS), add
    assert registry.VALUE_CODES == set(values.VALUE_PRODUCERS), add
    assert registry.FLAG_CODES == set(flags.FLAG_PRODUCERS), add
    assert registry.SUPERVISOR_CODES == set(supervisor.SUPERVISOR_PRODUCERS), add
    assert registry.MANIFEST_CODES == set(values.MANIFEST_PRODUCERS), add
    whole = {
        **edits.LINE_PRODUCERS,
        **words.WORD_PRODUCERS,
        **values.VALUE_PRODUCERS,
        **flags.FLAG_PRODUCERS,
        **supervisor.SUPERVISOR_PRODUCERS,
    }
    assert registry.producers() == whole
    assert all(registry.producer_of(code) is producer for code, producer in whole.items())
    assert registry.producer_of("SH999") is None and registry.producer_of("SC2086") is None
    notes = {**edits.LINE_NOTES, **words.WORD_NOTES, **values.VALUE_NOTES, **flags.FLAG_NOTES}
    assert registry.edit_notes() == {**notes, **supervisor.SUPERVISOR_NOTES}


def test_a_check_whose_findings_no_producer_module_makes_imports_none_of_them(tmp_path: Path) -> None:
    # the shipped example's findings (SH004, SC2086, PR011, PA005) are edits.py's or have no producer: its
    # check, fixes verified, leaves the other producer modules and the second pass (settings.py) unread
    example = Path(__file__).resolve().parent.parent / "examples" / "launch_mtp.sh"
    code = (
        "import io, json, sys\n"
        "from argtrace.cli import main\n"
        "out, sys.stdout = sys.stdout, io.StringIO()\n"
        f"status = main(['check', '--format', 'json', '--no-resolve', {str(example)!r}, '0', '30000'])\n"
        "report, sys.stdout = sys.stdout.getvalue(), out\n"
        "codes = sorted(f['code'] for f in json.loads(report)['findings'])\n"
        "print(json.dumps([codes, sorted(m for m in sys.modules if m.startswith('argtrace.fixes.'))]))\n"
    )
    src = Path(__file__).resolve().parent.parent / "src"
    env = {**os.environ, "ARGTRACE_WARM": "0", "PYTHONPATH": str(src), "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("ARGTRACE_CACHE_DIR", None), env.pop("ARGTRACE_DATA_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, check=True
    )
    codes, modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert [c for c in codes if c != "SC2086"] == ["PA005", "PR011", "SH004"]  # SC2086: with shellcheck
    assert modules == [
        "argtrace.fixes.apply",
        "argtrace.fixes.attach",
        "argtrace.fixes.edits",
        "argtrace.fixes.environment",
        "argtrace.fixes.files",
        "argtrace.fixes.registry",
        "argtrace.fixes.verify",
    ]


def test_a_schemas_config_dataclasses_are_each_dest_s_entry_of_its_converter_file() -> None:
    # looked up once per schema instance (cold28): the same answer as reading the converter file's table
    from argtrace.frameworks.schema import _converter_data, load_schema

    seen = 0
    for framework, version in (("vllm", "0.33.0"), ("vllm", "0.11.0"), ("sglang", "0.5.19")):
        schema = load_schema(framework, version)
        table = _converter_data(framework, version).get("dataclasses") or {}
        for spec in (*schema.options, *schema.positionals, *[type("S", (), {"dest": d})() for d in table]):
            info = table.get(spec.dest)
            expected = info if isinstance(info, dict) and isinstance(info.get("fields"), list) else None
            assert schema.config_dataclass(spec.dest) == expected
            seen += expected is not None
    assert seen > 0
    assert load_schema("vllm", "0.33.0").config_dataclass("no_such_dest") is None


def test_checks_in_one_process_each_get_the_release_answer_of_their_own_flags_and_variables() -> None:
    # what is kept between checks of one process (a fix's re-check, a warm process's commands) is keyed by
    # the flag or variable name: a launch whose flag or variable changes gets the answer for the new one,
    # and asking again for the first launch gives its first answer
    from argtrace.check import run_check
    from argtrace.check_options import CheckOptions

    def decided(command: str) -> tuple[tuple[str, ...] | None, list[str]]:
        options = CheckOptions(
            script=None, script_args=(), command_string=command, env={}, run_shellcheck=False, resolve=False
        )
        report = run_check(options)
        pr011 = [f.message for f in report.findings if f.code == "PR011"]
        return report.framework.accepted_by, pr011

    plain = "python3 -m sglang.launch_server --model-path /m --tp-size 1"
    flag = plain + " --mamba-scheduler-strategy extra_buffer"
    variable = "SGL_ENABLE_JIT_DEEPGEMM=1 SGLANG_ENABLE_SPEC_V2=1 " + plain
    first = decided(plain)
    with_flag = decided(flag)
    with_variable = decided(variable)
    assert first[0] is not None and with_flag[0] is not None and with_variable[0] is not None
    assert set(with_flag[0]) < set(first[0]) and set(with_variable[0]) < set(first[0])
    assert with_flag[0] != with_variable[0]
    assert "--mamba-scheduler-strategy" in with_flag[1][0] and "--mamba-scheduler-strategy" not in first[1][0]
    assert decided(plain) == first and decided(flag) == with_flag and decided(variable) == with_variable
