"""The parser layer on ServerCommands built directly (no shell layer), against the bundled schemas."""

from __future__ import annotations

import pytest

from argtrace.frameworks.schema import bundled_versions, load_schema
from argtrace.layers.parser import all_defaults, parse_server_args
from argtrace.model import LayerResult, Observation

from .helpers import server, word

SG10 = "0.5.10.post1"
SG23 = "0.5.23"
VL = "0.33.0"


def need(framework: str, version: str) -> None:
    if version not in bundled_versions(framework):
        pytest.skip(f"no bundled schema for {framework} {version}")


def sg(args: list, version: str = SG10, **kw: object) -> LayerResult:
    need("sglang", version)
    return parse_server_args(server(args, **kw), load_schema("sglang", version))  # type: ignore[arg-type]


def vl(args: list, **kw: object) -> LayerResult:
    need("vllm", VL)
    return parse_server_args(server(args, entrypoint="vllm serve", **kw), load_schema("vllm", VL))  # type: ignore[arg-type]


def codes(result: LayerResult) -> list[str]:
    return [f.code for f in result.findings]


def layers(result: LayerResult, name: str) -> list[tuple[str, object]]:
    return [(o.layer, o.value) for o in result.observations[name][1]]


def test_plain_flags_have_shell_process_parser_history() -> None:
    r = sg(["--model-path", "/m", "--port", "30000", "--mem-fraction-static", "0.80"])
    assert codes(r) == []
    flag, obs = r.observations["port"]
    assert flag == "--port"
    assert obs == [
        Observation("shell", "30000", at="launch.sh:3:56", detail={"expansion": "literal"}),
        Observation("process", "30000", at="launch.sh:3:1", detail={"argv_index": 6}),
        Observation(
            "parser", 30000, at="launch.sh:3:49", by="--port", detail={"option": "--port", "default": False}
        ),
    ]
    assert r.intended == {"model_path": "/m", "port": "30000", "mem_fraction_static": "0.80"}
    assert layers(r, "mem_fraction_static")[-1] == ("parser", 0.8)
    assert r.sections["parser"]["exit_status"] == 0


def test_abbreviation_is_accepted_and_reported() -> None:
    r = sg(["--model-path", "/m", "--chunked-prefill", "4096"])
    assert codes(r) == ["PA007"]
    f = r.findings[0]
    assert f.severity == "info"  # the prefix is unique in every bundled SGLang release
    assert f.setting == "chunked_prefill_size"
    assert f.at == "launch.sh:3:49"
    assert "abbreviation of --chunked-prefill-size" in f.message
    flag, obs = r.observations["chunked_prefill_size"]
    assert flag == "--chunked-prefill-size"
    assert obs[-1].value == 4096
    assert obs[-1].by == "--chunked-prefill-size"
    assert obs[-1].detail == {"option": "--chunked-prefill", "default": False}


def test_abbreviation_that_a_newer_release_makes_ambiguous_is_a_warning() -> None:
    r = sg(["--model-path", "/m", "--context", "32768"])
    assert codes(r) == ["PA007"]
    f = r.findings[0]
    assert f.severity == "warning"
    assert f.message.startswith(
        "--context is not a sglang 0.5.10.post1 flag: argparse silently takes it as an abbreviation of "
        "--context-length; in sglang 0.5.23"
    )
    assert f.message.endswith("it is ambiguous and the server refuses to start")


def test_duplicate_from_caller_args_overrides_the_script() -> None:
    caller = word("30001", 70, expansion='"$@"')
    r = sg(["--model-path", "/m", "--port", "30000", word("--port", 60, expansion='"$@"'), caller])
    dup = [f for f in r.findings if f.code == "PA006"]
    assert len(dup) == 1
    assert dup[0].severity == "warning"
    assert "caller's arguments" in dup[0].message and "30001 wins" in dup[0].message
    assert r.intended["port"] == "30001"
    assert layers(r, "port") == [
        ("shell", "30000"),
        ("shell", "30001"),
        ("process", "30001"),
        ("parser", 30001),
    ]
    assert r.observations["port"][1][0].detail == {"expansion": "literal", "overridden": True}


def test_same_value_twice_is_info() -> None:
    r = sg(["--model-path", "/m", "--port", "1", "--port", "1"])
    assert [(f.code, f.severity) for f in r.findings] == [("PA006", "info")]


def test_removed_flag_on_new_release_keeps_newest_dest_and_names_the_replacement() -> None:
    r = sg(["--model-path", "/m", "--mamba-scheduler-strategy", "extra_buffer"], version=SG23)
    assert codes(r) == ["PA003"]
    f = r.findings[0]
    assert f.severity == "error"
    assert "--mamba-radix-cache-strategy" in f.message
    assert f.fix == "use --mamba-radix-cache-strategy"
    name = f.setting
    assert name in r.unknown_settings
    assert r.intended[name] == "extra_buffer"
    assert [o.layer for o in r.observations[name][1]] == ["shell", "process"]
    assert r.sections["parser"]["exit_status"] == 2
    assert r.sections["parser"]["error"] == "unrecognized arguments: --mamba-scheduler-strategy extra_buffer"


def test_new_flag_on_old_release() -> None:
    r = sg(["--model-path", "/m", "--mamba-radix-cache-strategy", "extra_buffer"])
    assert codes(r) == ["PA004"]
    assert "this release spells it --mamba-scheduler-strategy" in r.findings[0].message


def test_deprecated_alias_and_removal_later() -> None:
    need("sglang", "0.5.15.post1")
    r = sg(["--model-path", "/m", "--mamba-scheduler-strategy", "extra_buffer"], version="0.5.15.post1")
    assert "PA005" in codes(r)
    assert layers(r, "mamba_radix_cache_strategy")[-1] == ("parser", "extra_buffer")
    r10 = sg(["--model-path", "/m", "--mamba-scheduler-strategy", "extra_buffer"])
    assert codes(r10) == ["PA024"]
    assert r10.findings[0].severity == "info"


def test_other_framework_flag_gets_the_equivalent() -> None:
    r = vl(["/m", "--tp-size", "2", "--mem-fraction-static", "0.8"])
    found = {f.setting: f for f in r.findings}
    assert [f.code for f in r.findings] == ["PA002", "PA002"]
    assert "--tensor-parallel-size" in found["tp_size"].message
    assert "--gpu-memory-utilization" in found["mem_fraction_static"].message
    assert {"tp_size", "mem_fraction_static"} <= r.unknown_settings


def test_unrecognized_with_nearest_and_underscore_and_single_dash() -> None:
    r = sg(["--model_path", "/m", "--mem-fraction-statc", "0.8", "-port", "1"])
    got = {(f.code, f.setting) for f in r.findings}
    assert ("PA014", "model_path") in got
    assert ("PA001", "mem_fraction_statc") in got
    assert any(f.code == "PA001" and "did you mean --mem-fraction-static?" in f.message for f in r.findings)
    assert ("PA015", "port") in got


def test_vllm_normalises_underscores_and_human_ints_silently() -> None:
    r = vl(["/m", "--max_model_len", "4k", "--gpu_memory_utilization=0.9"])
    assert codes(r) == []
    assert layers(r, "max_model_len")[-1] == ("parser", 4000)
    assert r.intended["gpu_memory_utilization"] == "0.9"
    assert layers(r, "gpu_memory_utilization")[0] == ("shell", "0.9")


def test_invalid_choice_and_value_and_json() -> None:
    r = sg(
        [
            "--model-path",
            "/m",
            "--mamba-scheduler-strategy",
            "extra-buffer",
            "--port",
            "30000x",
            "--json-model-override-args",
            "{rope_scaling:1}",
        ]
    )
    assert codes(r) == ["PA024", "PA009", "PA010", "PA011"]
    assert r.sections["parser"]["error"].startswith("argument --mamba-scheduler-strategy: invalid choice")


def test_missing_value_when_next_word_is_a_flag() -> None:
    r = sg(["--model-path", "/m", "--port", "--host", "0.0.0.0"])
    assert codes(r) == ["PA012"]
    assert "'--host' looks like a flag" in r.findings[0].message
    assert layers(r, "host")[-1] == ("parser", "0.0.0.0")


def test_value_for_a_boolean_flag() -> None:
    r = sg(["--model-path", "/m", "--enable-metrics", "true"])
    assert codes(r) == ["PA022"]
    assert r.findings[0].setting == "enable_metrics"


def test_unknown_word_value_cannot_be_known() -> None:
    r = sg(["--model-path", "/m", "--port", None])
    assert codes(r) == ["PA013"]
    obs = r.observations["port"][1]
    assert obs[0].layer == "shell" and obs[0].value is None and obs[0].known is False
    assert obs[0].reason == "command substitution"
    assert obs[-1].layer == "parser" and obs[-1].value is None and obs[-1].known is False


def test_required_model_path() -> None:
    r = sg(["--port", "1"])
    assert codes(r) == ["PA020"]


def test_json_flag_inner_keys_become_settings() -> None:
    r = sg(["--model-path", "/m", "--json-model-override-args", '{"rope_scaling": {"factor": 4}}'])
    assert codes(r) == []
    flag, obs = r.observations["json_model_override_args.rope_scaling.factor"]
    assert flag == "--json-model-override-args.rope_scaling.factor"
    assert obs[-1].value == 4
    assert r.intended["json_model_override_args.rope_scaling.factor"] == 4


def test_vllm_dotted_keys_become_settings_with_their_words() -> None:
    r = vl(["/m", "--speculative-config.method", "mtp", "--speculative_config.num_speculative_tokens", "2"])
    assert codes(r) == []
    assert layers(r, "speculative_config") == [
        ("process", '{"method": "mtp", "num_speculative_tokens": 2}'),
        ("parser", {"method": "mtp", "num_speculative_tokens": 2}),
    ]
    assert layers(r, "speculative_config.method") == [("shell", "mtp"), ("process", "mtp"), ("parser", "mtp")]
    assert r.observations["speculative_config.num_speculative_tokens"][1][0].at == "launch.sh:3:91"


def test_vllm_dotted_keys_replace_an_earlier_whole_json() -> None:
    r = vl(["/m", "--compilation-config", '{"mode": 3}', "--compilation-config.cudagraph_mode", "FULL"])
    assert codes(r) == ["PA021"]
    assert layers(r, "compilation_config")[-1] == ("parser", {"cudagraph_mode": "FULL"})


def test_secret_values_are_not_quoted_in_messages() -> None:
    r = sg(["--model-path", "/m", "--api-key", "sk-abcdefghijklmnopqrstuvwxyz", "--api-key", "other-secret"])
    assert codes(r) == ["PA006"]
    assert "sk-abcdefghijklmnopqrstuvwxyz" not in r.findings[0].message
    assert "other-secret" not in r.findings[0].message
    assert "<redacted:" in r.findings[0].message


def test_all_defaults() -> None:
    need("sglang", SG10)
    defaults = all_defaults(load_schema("sglang", SG10))
    assert defaults["port"] == 30000
    assert defaults["model_path"] is None
    assert "help" not in defaults


def test_sglang_serve_needs_literal_model_path_before_0_5_23() -> None:
    r = sg(["--model", "/m"], entrypoint="sglang serve")
    assert codes(r) == ["PA023"]
    assert r.sections["parser"]["exit_status"] == 1
    r23 = sg(["/m", "--port", "1"], version=SG23, entrypoint="sglang serve")
    assert codes(r23) == []
    assert layers(r23, "model_path")[-1] == ("parser", "/m")


def test_help_exits() -> None:
    r = sg(["--model-path", "/m", "--help"])
    assert codes(r) == ["PA017"]


def test_sglang_config_yaml_is_merged_before_the_command_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "cfg.yaml").write_text("port: 31000\ntp-size: 2\nenable-metrics: true\n")
    r = sg(["--model-path", "/m", "--config", "cfg.yaml", "--port", "32000"], cwd=str(tmp_path))
    assert [(f.code, f.severity) for f in r.findings] == [("PA006", "info")]
    assert "--config file and on the command line" in r.findings[0].message
    assert layers(r, "port")[-1] == ("parser", 32000)
    assert layers(r, "enable_metrics")[-1] == ("parser", True)
    proc = r.observations["enable_metrics"][1][0]
    assert (proc.layer, proc.at, dict(proc.detail)) == (
        "process",
        "cfg.yaml",
        {"via": "config", "file": "cfg.yaml"},
    )
    assert r.sections["parser"]["argv"][:5] == ["--port", "31000", "--tp-size", "2", "--enable-metrics"]


def test_config_file_errors() -> None:
    r = sg(["--model-path", "/m", "--config", "server.json"])
    assert codes(r) == ["PA018"]
    assert r.sections["parser"]["exit_status"] == 1
    r = sg(["--model-path", "/m", "--config", "/nonexistent/cfg.yaml"])
    assert [(f.code, f.severity) for f in r.findings] == [("PA018", "info")]
    assert r.sections["parser"]["exit_status"] == 0


def test_vllm_config_false_boolean_is_dropped(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "cfg.yaml").write_text("enable-prefix-caching: false\nmax_num_seqs: 8\n")
    r = vl(["/m", "--config", "cfg.yaml"], cwd=str(tmp_path))
    assert codes(r) == ["PA019"]
    assert layers(r, "max_num_seqs")[-1] == ("parser", 8)
    assert "enable_prefix_caching" not in r.observations


def test_vllm_dash_o_and_model_option() -> None:
    r = vl(["-O3"])
    assert layers(r, "optimization_level")[-1] == ("parser", "3")  # the real parser keeps a string
    need("vllm", VL)
    r = parse_server_args(
        server(["--port", "8000", "--model", "/m"], entrypoint="vllm serve"), load_schema("vllm", VL)
    )
    # the release moves --model's value to the positional, warning that --model will be removed (PA056 note)
    assert [(f.code, f.severity) for f in r.findings] == [("PA056", "info")]
    assert layers(r, "model_tag")[-1] == ("parser", "/m")
    assert r.sections["parser"]["argv"] == ["/m", "--port", "8000"]


def test_script_flag_after_caller_args_wins() -> None:
    r = sg(
        [
            "--model-path",
            "/m",
            word("--port", 40, expansion='"$@"'),
            word("9000", 47, expansion='"$@"'),
            "--port",
            "30000",
        ]
    )
    assert codes(r) == ["PA006"]
    assert "the caller cannot override it" in r.findings[0].message
    assert r.intended["port"] == "30000"


def test_sglang_serve_unknown_first_word_is_the_model() -> None:
    r = sg([None, "--port", "1"], version=SG23, entrypoint="sglang serve")
    assert [(f.code, f.setting) for f in r.findings] == [("PA013", "model_path")]
    assert r.observations["model_path"][1][-1].known is False


def test_unknown_key_in_a_config_json_flag() -> None:
    r = vl(["/m", "--compilation-config", '{"cudagraph_mod": "FULL"}'])
    assert [(f.code, f.severity) for f in r.findings] == [("PA026", "error")]
    assert "did you mean 'cudagraph_mode'?" in r.findings[0].message
    assert r.sections["parser"]["exit_status"] == 2
    if "0.11.0" in bundled_versions("vllm"):
        old = parse_server_args(
            server(["/m", "--compilation-config", '{"mode": 3}'], entrypoint="vllm serve"),
            load_schema("vllm", "0.11.0"),
        )
        assert [(f.code, f.severity) for f in old.findings] == [("PA026", "error")]
        assert "dropped without a word" in old.findings[0].message
        assert old.observations["compilation_config"][1][-1].value == {}


def test_a_credential_starting_with_a_dash_is_never_quoted() -> None:
    r = sg(["--model-path", "/m", "--api-key", "-secretvalue123"])
    assert codes(r) == ["PA012", "PA001"]
    text = (
        repr([(f.message, f.fix, f.setting) for f in r.findings])
        + repr(r.sections)
        + repr(r.unknown_settings)
    )
    assert "secretvalue123" not in text
    assert "--api-key=<redacted:" in (r.findings[0].fix or "")


@pytest.mark.parametrize(
    ("framework", "version"),
    [(fw, v) for fw in ("sglang", "vllm") for v in bundled_versions(fw)],
)
def test_registered_option_strings_are_the_rebuilt_parsers(framework: str, version: str) -> None:
    """frameworks/actions.py answers the vLLM adapter's question (is --no-KEY registered?) without the
    parser layer; its answer must be exactly what the rebuilt argparse parser registers."""
    from argtrace.frameworks.actions import registered_option_strings
    from argtrace.layers.parser import build_parser

    schema = load_schema(framework, version)
    assert registered_option_strings(schema) == frozenset(build_parser(schema).parser._option_string_actions)


def test_hidden_enable_disable_negatives_are_registered() -> None:
    """vLLM's EnableDisableAction registers --no-X beside --X without listing it in option_strings."""
    from argtrace.frameworks.actions import registered_option_strings

    need("vllm", VL)
    schema = load_schema("vllm", VL)
    spec = schema.option("--enable-prefix-caching")
    assert spec is not None and spec.action == "EnableDisableAction"
    assert "--no-enable-prefix-caching" not in spec.option_strings
    assert "--no-enable-prefix-caching" in registered_option_strings(schema)


@pytest.mark.parametrize("version", ["0.6.6.post1", "0.8.5.post1", "0.9.2"])
def test_vllm_serve_model_option_raise_leaves_the_rest_judged_once_fixed(version: str) -> None:
    """vLLM 0.6-0.11's parse_args raises on `vllm serve --model M` before it turns underscores into
    dashes (vllm/utils.py, FlexibleArgumentParser.parse_args): one PA023, and no PA014 on
    `--max_model_len`, which those releases accept once the model is moved."""
    need("vllm", version)
    schema = load_schema("vllm", version)
    words = ["--model", "microsoft/phi-4", "--gpu_memory_utilization=0.80", "--max_model_len=4096"]
    r = parse_server_args(server(words, entrypoint="vllm serve"), schema)
    assert "PA014" not in codes(r)
    if version == "0.6.6.post1":  # no such raise yet: argparse wants the positional model_tag
        assert codes(r) == ["PA001", "PA020"]
        assert r.findings[0].message.startswith('argparse stops with "the following arguments are required')
    else:
        assert [(f.code, f.severity) for f in r.findings] == [("PA023", "error")]
        assert r.sections["parser"]["exit_status"] == 1
