"""The 2026-12-04 false-alarm sweep (fa22): 39 working launches of 2025-2026 from new sources (community
scripts with arrays, functions, positional arguments, `${VAR:-default}`, sourced env files, loops over GPUs,
`&` and `wait`, here-documents; SLURM, docker runs, Makefiles with make functions, a Dockerfile; forks'
launches), checked as a new user (no options, `--framework-version` only where
the file pins the release: an image tag). Each file under ``tests/data/false_alarms_fa22/`` is a
reconstruction (its header names the source at its commit and what it keeps); each asserts the exact
errors/warnings it gets now. docs/false_alarms.md ("The fa22 sweep") has the table and the mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check, unsourced
from tests.conftest import Launch, run_cli

CASES = Path(__file__).resolve().parent / "data" / "false_alarms_fa22"

pytestmark = pytest.mark.usefixtures("new_user_machine")

W, E = "warning", "error"
# An argument the script reads and was not given, or a caller's variable not set here: the project's rule
# (tests/test_missing_script_arguments.py) is an assumed warning naming the option that replaces the
# assumption (`argtrace check FILE ARG...`, `--env NAME=...`). True of the file checked with no options.
ASSUMED_INPUT = "assumed: the script's arguments or its caller's variables, not given to check"

# file -> (servers found, the errors and warnings it gets, why they are there when there are any)
OUTCOMES: dict[str, tuple[int, list[tuple[str, str]], str]] = {
    "allinone_zshrc_gptq_tp4.sh": (1, [], ""),
    "bjornwest_sourced_venv_gptoss_120b.sh": (1, [], ""),
    "codingtasks_vllm_docker_api_key_underscore.sh": (1, [], ""),
    "cotrec_gpu_list_argument_awk_count.sh": (1, [(W, "SH007"), (W, "PR006")], ASSUMED_INPUT),
    "dagnaputra_vllm_docker_detached_underscores.sh": (1, [], ""),
    "datasculptor_sglang_conda_env_prefix.sh": (1, [], ""),
    # was SH026 x3, SH007 error, PA010: HOST/MODEL/PORT/TENSOR_PARALLEL_SIZE come from the sourced .env
    "dockerllm_sourced_env_file.sh": (1, [], ""),
    "evalhub_vllm_array_arg_gpu_loop.sh": (8, [], ""),
    # true: SGLang's parser (argparse, no underscore folding) refuses --mem_fraction_static in every
    # bundled release (0.4.0.post2-0.5.23)
    "fsgpt_sglang_underscore_flag.sh": (1, [(E, "PA014")], "true"),
    # was SH001 x2, SC1073/SC1050/SC1072: `$(if ...)` read as shell code
    "goodfire_sglang_make_if_or_functions.mk": (2, [], ""),
    "gptossalign_python_u_module_tabs.sh": (1, [], ""),
    "hoverrl_sbatch_sglang_background_health_wait.sh": (1, [], ""),
    "inferencejournal_api_server_env_defaults.sh": (1, [], ""),
    # was SH007 errors x3 and PA010 x3 (`--port=$PORT` with the caller's PORT not set here)
    "inferencemax_heredoc_config_caller_env.sh": (1, [(W, "SH007")] * 3, ASSUMED_INPUT),
    "internvl_shell_entrypoint_defaults.Dockerfile": (1, [], ""),
    "jiuzhang_rocm_sgl_dev_docker.sh": (1, [], ""),
    "llminf_mixed_tab_space_continuations.sh": (1, [], ""),
    "llmsrbench_dotted_limit_mm_flag.sh": (1, [], ""),
    # was SC1143 warning: the comment's backslash is at the end of the file
    "lmmseval_commented_flags_backslash_at_eof.sh": (1, [], ""),
    "manyshot_sbatch_positional_scontrol_host.sh": (1, [(W, "SH026")], ASSUMED_INPUT),
    "olcf_ray_head_positional_nnodes.sh": (1, [(W, "SH026")], ASSUMED_INPUT),
    "openreinforcedagent_vllm_v072_docker_underscores.sh": (1, [], ""),
    "opentutorgym_positional_model_port.sh": (1, [(W, "SH007"), (W, "SH007")], ASSUMED_INPUT),
    "passwordlocking_home_model_double_blanks.sh": (1, [], ""),
    # true: `<your>` in the unquoted `source` path is a redirection in bash (a placeholder never filled in)
    "primeintellect_placeholder_in_source_path.sh": (1, [(E, "SH005")], "true"),
    "pizzeria_api_server_tool_choice.sh": (1, [], ""),
    "pyvision_srun_vllm_serve.sh": (1, [], ""),
    "rlinf_sglang_dp4_trailing_continuation.sh": (1, [], ""),
    "s1clone_sh_device_cuda.sh": (1, [], ""),
    "searchgenv_sglang_ep8_comment_after_last_flag.sh": (1, [], ""),
    "selfapi_positional_defaults.sh": (1, [], ""),
    "serverinstall_sglang_equals_flags_conda.sh": (1, [], ""),
    "sglangp_aiter_eagle_one_line.sh": (1, [], ""),
    "slangdocker_make_image_variables.mk": (2, [], ""),
    "southfreebird_fork_medusa_speculative_config.sh": (1, [], ""),
    "t01_gptoss_hf_overrides_json.sh": (1, [], ""),
    "validationtest_amd_caller_model_folder.sh": (1, [], ""),
    "vllmgenerator_eight_servers_enable_reasoning_wait.sh": (8, [], ""),
    "webcoach_sglang_docker_bash_c_token.sh": (1, [], ""),
}
# the release the file pins (the image tag), passed as a new user who reads it would
OPTIONS = {"openreinforcedagent_vllm_v072_docker_underscores.sh": ("--framework-version", "0.7.2")}


def report_of(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def alarms(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["severity"], f["code"]) for f in report["findings"] if f["severity"] in (W, E)]


def codes(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == code]


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


def test_every_case_is_listed_and_names_its_source() -> None:
    assert sorted(p.name for p in CASES.iterdir()) == sorted(OUTCOMES)
    assert unsourced(CASES, prefix="# Reconstructed (not copied) after https://github.com/") == []


@pytest.mark.parametrize("name", sorted(OUTCOMES))
def test_what_each_launch_gets(name: str) -> None:
    report = report_of(name)
    servers, expected, why = OUTCOMES[name]
    assert len(report["servers"]) == servers
    assert alarms(report) == expected
    if why == ASSUMED_INPUT:
        assert all(f["basis"] == "assumed" for f in report["findings"] if f["severity"] == W)


# ---- the sourced env file


def test_variables_read_after_an_unreadable_source_are_read_as_set_by_it() -> None:
    report = report_of("dockerllm_sourced_env_file.sh")
    (note,) = codes(report, "SH017")
    assert note["severity"] == "info"
    assert note["message"].endswith(
        "; the script reads $HOST, $MODEL, $PORT, $TENSOR_PARALLEL_SIZE after it and never sets them, so "
        "argtrace reads them as set by it (value unknown); pass `--env NAME=VALUE` to check with the "
        "values it sets"
    )
    assert words(report)[0][3:] == [
        "--download-dir=./models",
        "--host",
        None,
        "--model",
        None,
        "--port",
        None,
        None,
    ]


def _check(tmp_path: Path, script: str, *args: str, options: tuple[str, ...] = ()) -> dict[str, Any]:
    (tmp_path / "l.sh").write_text("#!/bin/bash\n" + script)
    result = run_cli(["check", "--format", "json", *options, "l.sh", *args], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_a_default_of_the_scripts_own_is_kept_after_an_unreadable_source(tmp_path: Path) -> None:
    # bash without the file gives 30000; with it, whatever it sets: the script works either way
    report = _check(tmp_path, 'source ./env.sh\nvllm serve m --port "${PORT:-30000}"\n')
    assert words(report)[0][-2:] == ["--port", "30000"] and alarms(report) == []
    assert not codes(report, "SH017")[0]["message"].endswith("values it sets")


def test_a_file_given_with_env_decides_instead(tmp_path: Path) -> None:
    report = _check(tmp_path, 'source ./env.sh\nvllm serve m --port "$PORT"\n')
    assert words(report)[0][-2:] == ["--port", None] and alarms(report) == []
    (tmp_path / "env.sh").write_text("PORT=8001\n")
    report = _check(tmp_path, 'source ./env.sh\nvllm serve m --port "$PORT"\n')
    assert words(report)[0][-2:] == ["--port", "8001"]


def test_a_variable_the_server_reads_before_the_source_is_still_unset(tmp_path: Path) -> None:
    # the file is sourced after the server starts: it cannot set what the server got
    report = _check(tmp_path, 'vllm serve m --port "$PORT" &\nsource ./env.sh\nwait\n')
    assert alarms(report) == [(W, "SH026")]


def test_a_source_whose_name_is_unknown_is_the_same(tmp_path: Path) -> None:
    report = _check(
        tmp_path, 'source "$(conda info --base)/etc/profile.d/conda.sh"\nvllm serve m --port "$PORT"\n'
    )
    assert alarms(report) == []
    assert any(f["message"].endswith("values it sets") for f in codes(report, "SH018"))


def test_an_env_file_beside_the_script_that_bash_will_not_find_still_fails(tmp_path: Path) -> None:
    # beside the script, not in the directory bash looks in: bash fails to read it for certain (SH017
    # warning), so what it would set is not assumed
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "env.sh").write_text("PORT=8001\n")
    (tmp_path / "sub" / "l.sh").write_text('#!/bin/bash\nsource env.sh\nvllm serve m --port "$PORT"\n')
    result = run_cli(["check", "--format", "json", "sub/l.sh"], cwd=tmp_path)
    assert alarms(result.json) == [(W, "SH017"), (W, "SH026")]


# ---- `--flag=$VAR`


def test_a_joined_flag_with_a_callers_variable_is_the_assumed_warning_of_the_spaced_form(
    tmp_path: Path,
) -> None:
    joined = _check(tmp_path, "vllm serve m --port=$PORT\n")
    spaced = _check(tmp_path, 'vllm serve m --port "$PORT"\n')
    assert alarms(joined) == [(W, "SH007")] and alarms(spaced) == [(W, "SH026")]
    (finding,) = codes(joined, "SH007")
    assert finding["basis"] == "assumed"
    assert finding["message"] == (
        "`$PORT` is not set in the environment argtrace was given (if the caller sets it, pass `--env "
        "PORT=...`), so `--port=$PORT` expands to `--port=`: the flag gets an empty value"
    )
    assert alarms(_check(tmp_path, "vllm serve m --port=$PORT\n", options=("--env", "PORT=8000"))) == []


def test_a_joined_flag_emptied_by_the_script_stays_an_error_with_its_parser_refusal_folded(
    tmp_path: Path,
) -> None:
    report = _check(tmp_path, "PORT=\nvllm serve m --port=$PORT\n")
    assert alarms(report) == [(E, "SH007")]
    assert [f["severity"] for f in codes(report, "PA010")] in ([], ["info"]) or all(
        f.get("caused_by") for f in codes(report, "PA010")
    )


def test_a_joined_flag_with_a_missing_argument_follows_the_invocation(tmp_path: Path) -> None:
    none_given = _check(tmp_path, "vllm serve m --port=$2\n")
    assert alarms(none_given) == [(W, "SH007")]
    assert codes(none_given, "SH007")[0]["message"].startswith("`$2` is unset (the script got 0 arguments)")
    one_given = _check(tmp_path, "vllm serve m --port=$2\n", "x")
    assert alarms(one_given) == [(E, "SH007")]


# ---- SC1143


def test_a_comments_backslash_that_cuts_off_flags_is_still_a_warning(tmp_path: Path) -> None:
    report = _check(
        tmp_path, "vllm serve m \\\n  --port 8000 \\\n  # --dtype auto \\\n  --max-model-len 4096\n"
    )
    assert alarms(report) == [(E, "SH004"), (W, "SC1143")]


def test_a_comments_backslash_before_a_command_of_its_own_is_a_note(tmp_path: Path) -> None:
    report = _check(tmp_path, "vllm serve m \\\n  --port 8000 \\\n  # --dtype auto \\\n\necho started\n")
    assert alarms(report) == []
    assert [f["severity"] for f in codes(report, "SC1143")] == ["info"]


# ---- make functions


def test_make_conditionals_give_the_words_make_gives() -> None:
    report = report_of("goodfire_sglang_make_if_or_functions.mk")
    assert words(report)[1] == [
        "uv", "run", "python", "-m", "sglang.launch_server",
        "--model-path", "meta-llama/Meta-Llama-3-70B-Instruct",
        "--host", "0.0.0.0", "--port", "30000", "--mem-fraction-static", "0.85", "--trust-remote-code",
    ]  # fmt: skip


def test_make_conditionals_follow_the_variables_given(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(
        "serve:\n\tvllm serve $(or $(MODEL),Qwen/Qwen3-8B) $(if $(TP),--tensor-parallel-size $(TP),)"
        " $(and $(TP),$(PP),--pipeline-parallel-size $(PP)) --served-model-name $(strip  a  )"
        " --host $(subst _,.,0_0_0_0) --port $(firstword 8001 8002)\n"
    )
    plain = run_cli(["check", "--format", "json", "Makefile"], cwd=tmp_path).json
    assert words(plain)[0] == [
        "vllm", "serve", "Qwen/Qwen3-8B", "--served-model-name", "a", "--host", "0.0.0.0", "--port", "8001",
    ]  # fmt: skip
    given = run_cli(["check", "--format", "json", "--env", "TP=2", "--env", "PP=2", "Makefile"], cwd=tmp_path)
    assert words(given.json)[0][3:7] == ["--tensor-parallel-size", "2", "--pipeline-parallel-size", "2"]


def test_a_make_function_not_computed_is_an_unknown_word_not_shell_code(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("serve:\n\tvllm serve m --config $(firstword $(wildcard *.yaml))\n")
    report = run_cli(["check", "--format", "json", "Makefile"], cwd=tmp_path).json
    assert alarms(report) == [] and words(report)[0][-2:] == ["--config", None]
    assert not codes(report, "SH001")


# ---- true findings and what the sweep checks besides


def test_the_placeholder_in_the_source_path_is_a_true_error() -> None:
    (finding,) = codes(report_of("primeintellect_placeholder_in_source_path.sh"), "SH005")
    assert finding["message"].startswith("`<your>` on line 8 looks like a placeholder from documentation")


def test_the_underscore_flag_is_refused_by_sglang() -> None:
    (finding,) = codes(report_of("fsgpt_sglang_underscore_flag.sh"), "PA014")
    assert finding["message"].startswith(
        "--mem_fraction_static: sglang does not turn underscores into dashes"
    )


def test_the_token_written_in_the_docker_run_is_not_shown() -> None:
    report = report_of("webcoach_sglang_docker_bash_c_token.sh")
    assert "FakeToken" not in str(report)


def test_an_unknown_value_joined_to_a_flag_sets_that_flag(tmp_path: Path) -> None:
    # was: "the value of model_tag comes from --tensor-parallel-size=..." (the unknown word taken whole, as a
    # positional); the literal `--name=` in front makes it that option with an unknown value
    report = _check(tmp_path, 'vllm serve --model "$M" --tensor-parallel-size=$(nvidia-smi -L | wc -l)\n')
    assert all("model_tag" not in f["message"] for f in codes(report, "PA013"))
    assert any(f.get("setting") == "tensor_parallel_size" for f in codes(report, "PA013"))


def test_an_unknown_word_with_no_literal_option_may_still_add_flags(tmp_path: Path) -> None:
    report = _check(tmp_path, "vllm serve m $(cat extra_args.txt)\n")
    assert any("may add flags" in f["message"] for f in codes(report, "PA013"))
