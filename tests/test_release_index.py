"""The flag -> releases index (``data/release_index/FRAMEWORK.json``, scripts/gen_release_index.py) and
what `check` says from it: hidden ``--no-`` spellings are indexed like listed ones, and "registered alike
in every release" compares what parsing the launch depends on, not help text or defaults (issue 15)."""

from __future__ import annotations

from typing import Any

import pytest

from argtrace.frameworks.release_index import registered_alike, release_index
from argtrace.frameworks.schema import bundled_versions, load_schema
from tests.conftest import run_cli

VLLM = tuple(bundled_versions("vllm", include_user=False))
# --enable-elastic-ep appeared in 0.17.1 as a BooleanOptionalAction (--no-enable-elastic-ep listed); 0.33.0
# registers it with EnableDisableAction, which lists --disable-elastic-ep and hides --no-enable-elastic-ep
# (vllm/utils/argparse_utils.py; the real 0.33.0 parser takes --no-enable-elastic-ep and rejects
# --no-disable-elastic-ep).
HIDDEN = "--no-enable-elastic-ep"


def _check(*argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--no-resolve", "--format", "json", *argv])
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = result.json
    return report


def _parser_findings(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (f["code"], f["severity"], f["message"]) for f in report["findings"] if f["code"].startswith("PA")
    ]


def test_the_schemas_show_the_hidden_spelling() -> None:
    newest = load_schema("vllm", "0.33.0")
    assert newest.option(HIDDEN) is None  # not among the listed option strings
    assert newest.option("--enable-elastic-ep").option_strings == (
        "--enable-elastic-ep",
        "--disable-elastic-ep",
    )  # type: ignore[union-attr]
    assert load_schema("vllm", "0.32.0").option(HIDDEN) is not None  # listed by BooleanOptionalAction
    assert load_schema("vllm", "0.16.0").option("--enable-elastic-ep") is None


def test_a_hidden_negative_spelling_is_indexed_in_every_release_that_takes_it() -> None:
    index = release_index("vllm")
    assert index.releases_knowing_flag(HIDDEN) == VLLM[VLLM.index("0.17.1") :]
    assert index.releases_knowing_flag(HIDDEN)[-1] == "0.33.0"
    assert index.takes_no_value(HIDDEN)
    # EnableDisableAction negates only the spelling it was declared with
    assert index.releases_knowing_flag("--no-disable-elastic-ep") == ()
    # declared as --disable-x: --no-disable-x is the hidden one, from 0.10.2 (listed) to 0.33.0 (hidden)
    assert index.releases_knowing_flag("--no-disable-uvicorn-access-log") == VLLM[VLLM.index("0.10.2") :]


def test_check_accepts_the_hidden_spelling_in_the_releases_that_have_it() -> None:
    assert _parser_findings(_check("--framework-version", "0.33.0", "-c", f"vllm serve m {HIDDEN}")) == []
    assert _parser_findings(_check("--framework-version", "0.17.1", "-c", f"vllm serve m {HIDDEN}")) == []
    assert _parser_findings(_check("--framework-version", "0.16.0", "-c", f"vllm serve m {HIDDEN}")) == [
        (
            "PA004",
            "error",
            f'{HIDDEN} only exists from vllm 0.17.1 on; vllm 0.16.0 rejects it with "unrecognized '
            'arguments" (exit 2)',
        )
    ]
    assert _parser_findings(
        _check("--framework-version", "0.33.0", "-c", "vllm serve m --no-disable-elastic-ep")
    ) == [
        (
            "PA001",
            "error",
            "--no-disable-elastic-ep is not a vllm 0.33.0 flag: the server refuses to start "
            '("unrecognized arguments", exit 2); did you mean --disable-elastic-ep?',
        )
    ]


def test_with_the_release_unknown_the_hidden_spelling_counts_for_the_newest_release() -> None:
    """Before the index knew hidden spellings: analysed as 0.32.0, "0.33.0 does not know it" and a PA024
    "0.33.0 no longer accepts it" that the real 0.33.0 parser contradicts."""
    report = _check("-c", f"vllm serve m {HIDDEN}")
    assert report["framework"]["analysed_with"] == "0.33.0"
    assert report["framework"]["accepted_by"] == list(VLLM[VLLM.index("0.17.1") :])
    assert _parser_findings(report) == []
    pr011 = next(f["message"] for f in report["findings"] if f["code"] == "PR011")
    assert pr011.endswith(
        "(accepted by 0.17.1-0.33.0); vllm 0.6.6.post1-0.16.0 do not know --no-enable-elastic-ep"
    )


def test_the_other_framework_s_hidden_spelling_is_named_as_its_flag() -> None:
    report = _check("-c", f"python -m sglang.launch_server --model-path m {HIDDEN}")
    assert [(c, m) for c, _s, m in _parser_findings(report)] == [
        ("PA002", f'{HIDDEN} is a vLLM flag; SGLang rejects it with "unrecognized arguments" (exit 2)')
    ]


# --- "registered alike": what parsing depends on, not help text or defaults ---------------------------


@pytest.mark.parametrize(
    ("framework", "flag", "alike"),
    [
        # default 0.9 up to 0.19.1, 0.92 from 0.20.2; a float in every release
        ("vllm", "--gpu-memory-utilization", True),
        # default 'facebook/opt-125m' up to 0.9.2, 'Qwen/Qwen3-0.6B' from 0.10.2
        ("vllm", "--model", True),
        # 0.6-0.7: arg_utils.nullable_str (a converter argtrace does not reproduce), later optional_type(str)
        ("vllm", "--host", False),
        # SGLang 0.4.0.post2-0.5.9: int; from 0.5.10.post1 human_readable_int ("32k" parses)
        ("sglang", "--context-length", False),
        # the choices list grows between releases
        ("sglang", "--load-format", False),
        # every release: a plain int
        ("sglang", "--port", True),
    ],
)
def test_registered_alike_compares_what_parsing_depends_on(framework: str, flag: str, alike: bool) -> None:
    assert registered_alike(framework, flag) is alike
    releases = bundled_versions(framework, include_user=False)
    assert release_index(framework).releases_knowing_flag(flag) == tuple(releases)  # in every release


def test_a_default_changed_between_releases_leaves_a_parser_error_an_error() -> None:
    """--gpu-memory-utilization abc fails in every bundled release (a float): with the release unknown
    PA010 stays an error; comparing the default made it information before."""
    defaults = {repr(load_schema("vllm", v).option("--gpu-memory-utilization").default) for v in VLLM}  # type: ignore[union-attr]
    assert defaults == {"0.9", "0.92"}
    report = _check("-c", "vllm serve m --gpu-memory-utilization abc")
    assert report["framework"]["version"] is None
    assert _parser_findings(report) == [
        (
            "PA010",
            "error",
            "argument --gpu-memory-utilization/--device-memory-utilization: invalid float value: 'abc' "
            "(argparse exit 2)",
        )
    ]
    # a flag whose converter differs between releases stays information with the release unknown, unless
    # every release's converter refuses the value (int up to 0.5.9, human_readable_int later: both refuse
    # abc); vLLM 0.6.6.post1-0.8.5.post1's CompilationConfig.from_cli reads it with ast.literal_eval
    # (generated: frameworks/vllm_from_cli.py), which refuses the bare name in {mode:0}, as json.loads does
    report = _check("-c", "python -m sglang.launch_server --model-path m --context-length abc")
    assert [(c, s) for c, s, _m in _parser_findings(report)] == [("PA010", "error")]
    report = _check("-c", "vllm serve m --compilation-config {mode:0}")
    assert [(c, s) for c, s, _m in _parser_findings(report)] == [("PA011", "error")]


def test_an_alias_added_later_is_named_with_the_release_and_the_spelling_before_it() -> None:
    """vLLM 0.31.0 added --device-memory-utilization as a second spelling of --gpu-memory-utilization."""
    assert (
        release_index("vllm").releases_knowing_flag("--device-memory-utilization")
        == VLLM[VLLM.index("0.31.0") :]
    )
    command = "vllm serve m --device-memory-utilization 0.8"
    assert _parser_findings(_check("--framework-version", "0.31.0", "-c", command)) == []
    assert _parser_findings(_check("--framework-version", "0.30.0", "-c", command)) == [
        (
            "PA004",
            "error",
            "--device-memory-utilization only exists from vllm 0.31.0 on; vllm 0.30.0 rejects it with "
            '"unrecognized arguments" (exit 2); this release spells it --gpu-memory-utilization',
        )
    ]


# --- the converter each release gives a value (case 13 of docs/real_cases.md) -------------------------

OPTIONAL_JSON = (
    "vllm.engine.arg_utils.optional_type.<locals>._optional_type(json.loads): optional_type.<locals>."
    "_optional_type loads"
)


def test_the_index_records_each_release_s_converter() -> None:
    index = release_index("vllm")
    # --speculative-config: json.loads in 0.8.5.post1 and 0.9.2, optional_type(json.loads) from 0.10.2 on;
    # 0.6.6.post1 and 0.7.3 do not have it
    assert index.converters_of("--speculative-config") == (
        ("json.loads: loads", ("0.8.5.post1", "0.9.2")),
        (OPTIONAL_JSON, VLLM[VLLM.index("0.10.2") :]),
    )
    # CompilationConfig.from_cli up to 0.8.5.post1: a converter argtrace does not reproduce
    assert index.converters_of("--compilation-config")[0] == (
        "vllm.config.CompilationConfig.from_cli: _literal.<locals>.from_cli",
        ("0.6.6.post1", "0.7.3", "0.8.5.post1"),
    )
    assert index.converters_of("--enforce-eager") == ()  # takes no value in any release
    assert release_index("sglang").converters_of("--context-length")[0] == ("int: int", SGLANG_TO_0_5_9)


SGLANG = tuple(bundled_versions("sglang", include_user=False))
SGLANG_TO_0_5_9 = SGLANG[: SGLANG.index("0.5.9") + 1]  # int; human_readable_int from 0.5.10.post1


@pytest.mark.parametrize(
    ("framework", "flag", "value", "refused"),
    [
        ("vllm", "--speculative-config", '\'{"method": "ngram"}\'', True),  # literal quotes: not JSON
        ("vllm", "--speculative-config", '{"method": "ngram"}', False),
        ("vllm", "--speculative-config", "", False),  # optional_type: "" is None from 0.10.2 on
        ("vllm", "--compilation-config", "{mode:0}", True),  # ast.literal_eval up to 0.8.5.post1, then JSON
        ("vllm", "--compilation-config", "{'mode': 0}", False),  # a Python literal: 0.6.6.post1-0.8.5.post1
        ("vllm", "--port", "80x", True),
        ("sglang", "--context-length", "32k", False),  # human_readable_int from 0.5.10.post1 takes it
        ("sglang", "--context-length", "32x", True),
        ("vllm", "--no-such-flag", "1", False),
    ],
)
def test_a_value_refused_by_every_release(framework: str, flag: str, value: str, refused: bool) -> None:
    from argtrace.layers.parser.releases import refused_by_every_release

    assert refused_by_every_release(framework, flag, value) is refused


@pytest.mark.parametrize(
    ("command", "code", "severity"),
    [
        # refused by json.loads (0.8.5.post1, 0.9.2) and optional_type(json.loads) (0.10.2-0.33.0)
        ("vllm serve m --speculative-config {method:ngram}", "PA011", "error"),
        # 0.6.6.post1-0.8.5.post1's from_cli (ast.literal_eval) refuses it, as JSON does later
        ("vllm serve m --compilation-config {mode:0}", "PA011", "error"),
        # int up to 0.5.9, human_readable_int from 0.5.10.post1: both refuse 32x
        ("python -m sglang.launch_server --model-path m --context-length 32x", "PA010", "error"),
    ],
)
def test_with_no_release_named_a_value_every_release_refuses_keeps_its_severity(
    command: str, code: str, severity: str
) -> None:
    report = _check("-c", command)
    assert report["framework"]["version"] is None
    assert [(c, s) for c, s, _m in _parser_findings(report)] == [(code, severity)]


def test_a_framework_without_an_index_file_is_a_key_error_as_in_the_one_file_index() -> None:
    # one file per framework: a name with none is "no bundled release", which schema.py and
    # registered_alike read as KeyError (what the single file's dict lookup raised)
    with pytest.raises(KeyError, match="dynamo"):
        release_index("dynamo")
    assert registered_alike("dynamo", "--tp-size") is False
    assert release_index("vllm").framework == "vllm" and release_index("vllm").releases[0] != ""
