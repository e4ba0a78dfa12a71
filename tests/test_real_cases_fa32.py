"""The 2026-12-05 wrong-alarm sweep, eleventh (fa32): working launches of 2025-2026 from sources argtrace had
not seen (each path and URL grepped in tests/ and docs/ first; one repository was read before through
another file): SGLang's cookbook pages per model not read before (2026-05) and its SpecBundle page, vLLM's
recipes' and Modal's Python launchers (a list joined into one shell string, a list extended from a dict), a
DGX Spark benchmark repository's scripts (`docker run` with a config file inside the container, `docker
exec CONTAINER /bin/bash -c "..."` behind a `select` menu), NVIDIA's NVFP4 playbook page (an image whose tag
is the reader's placeholder), and a Makefile that exports `$(shell ip -j addr | jq ...)` values before its
`vllm serve` target. Each file under ``tests/data/real_cases_fa32/`` is a reconstruction (its header names
the source at its commit and what it keeps; a Markdown page's header is an HTML comment), checked as a new
user: no options, no resolver environment, no Hugging Face cache. docs/real_cases.md ("Working launches of
2025-2026 from new sources, 11th sweep") has the table and the mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa32"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# launch -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    "modalexamples_sglang_kitchen_sink_server_spec_config_comprehension.py": 1,
    "modalexamples_vllm_low_latency_server_sleep_mode_dev_mode.py": 1,
    "recipes_gemma4_modal_popen_joined_shell.py": 1,
    "recipes_lfm25_modal_popen_joined_shell.py": 1,
    "sglcookbook_deepseek_v3_page.md": 4,
    "sglcookbook_glm46_page.md": 3,
    "sglcookbook_gpt_oss_page.md": 5,
    "sglcookbook_kimi_k2_page.md": 5,
    "sglcookbook_minimax_m2_page.md": 4,
    "sglcookbook_qwen3_coder_page.md": 2,
    "sglcookbook_qwen3_next_page.md": 8,
    "sglcookbook_qwen3_page.md": 4,
    "sglcookbook_qwen3_vl_page.md": 5,
    # were 2 SH005 errors, SH010 and 4 SC2261 warnings: `--model <target-model-path>` read as redirections
    "sglcookbook_specbundle_usage_page.md": 3,
    "sparkbench_sglang_gpt_oss_triton_deterministic.sh": 1,
    "sparkbench_vllm_docker_exec_bash_c_select_tp_or_dp_ray.sh": 1,
    "sparkbench_vllm_docker_run_config_yaml_in_container.sh": 1,
    # was no server (read as bash, `export LATEST_VLLM_VERSION=<latest_container_version>` was 2 SH001 errors
    # and 2 shellcheck warnings; read as the reader's value, the image `nvcr.io/nvidia/vllm:${...}` was not)
    "sparkplaybooks_nvfp4_quantization_page.md": 1,
    "xvllmdistributed_makefile_shell_jq_exports_dotted_flags.mk": 1,
}
# the page's benchmark runs are written `sglang serve --backend sglang --dataset-name random ...` (the flags
# of sglang.bench_serving): the launch fails, and argtrace rightly says so (kept; see the docs' table)
_LLAMA = "sglcookbook_llama31_page.md"
_HEADER = "Reconstructed (not copied) after https://github.com/"


def report_of(name: str, *options: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, tuple(options)))


def test_every_case_is_listed_and_names_its_source() -> None:
    files = sorted(str(p.relative_to(CASES)) for p in CASES.rglob("*") if p.is_file())
    assert files == sorted([*CLEAN, _LLAMA])
    for name in files:
        lines = (CASES / name).read_text(encoding="utf-8").splitlines()
        prefix = "<!-- " if name.endswith(".md") else "# "
        assert any(line.startswith(prefix + _HEADER) for line in lines[:3]), name


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_a_correct_launch_gets_no_error_or_warning(name: str) -> None:
    report = report_of(name)
    assert len(report["servers"]) == CLEAN[name]
    assert alarms(report) == []


def test_the_benchmark_runs_written_as_sglang_serve_are_refused() -> None:
    # 3 servers of the page are right; the 6 bench_serving-flag runs are refused (5 flags each, and the one
    # with --model instead of --model-path: that flag too, and --model-path missing)
    report = report_of(_LLAMA)
    refused = [s["argv"] for s in report["servers"] if "--dataset-name" in s["argv"]]
    assert len(report["servers"]) == 9 and len(refused) == 6
    codes = sorted({(f["code"], f["severity"]) for f in alarms(report)})
    assert codes == [("PA001", "warning"), ("PA020", "error")]
    assert len(alarms(report)) == 32


# --- a redirection whose target is on the next line ------------------------------------------------------


def _check(tmp_path: Path, name: str, text: str) -> Any:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", name], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    return result.json


@pytest.mark.parametrize(
    "redirect",
    ["> \\\n  server.log 2>&1", ">\\\n server.log 2>&1", "2> \\\n err.log", "> >(tee -a server.log) 2>&1"],
)
def test_a_line_continuation_before_a_redirections_target_is_removed(tmp_path: Path, redirect: str) -> None:
    # bash removes `\<newline>` before it cuts words: the target is the next line's word (was `\`, and
    # server.log an argument of the server: a PA001 error on a correct launch); a process substitution is a
    # target too (was an argument: an unknown word, "it may add flags")
    script = f"#!/bin/bash\npython3 -m sglang.launch_server --model-path Qwen/Qwen3-8B {redirect}\n"
    report = _check(tmp_path, "run.sh", script)
    assert [s["argv"] for s in report["servers"]] == [
        ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"]
    ]
    assert alarms(report) == []


@pytest.mark.parametrize(
    "redirect",
    [
        "2> \\\n  {tmp}/o.log --x y",
        "2>\\\n{tmp}/e.log --port 1",
        "< \\\n /dev/null --x y",
        "2> >(cat >/dev/null) --x y",
    ],
)
def test_the_redirection_words_agree_with_bash(tmp_path: Path, redirect: str) -> None:
    # (bash runs the script with a `python3` function that prints its arguments: stdout stays the terminal)
    from tests.shell.bash_oracle import argtrace_argv, bash_file_argv

    script = "python3 -m sglang.launch_server --model-path m " + redirect.format(tmp=tmp_path)
    assert argtrace_argv(script, tmp_path) == bash_file_argv(script, tmp_path)


# --- a documentation placeholder in a Markdown page's server block ------------------------------------------


def test_a_pages_angle_placeholder_is_the_readers_value(tmp_path: Path) -> None:
    page = (
        "# Serve\n\n```bash\npython3 -m sglang.launch_server \\\n    --model <target-model-path> \\\n"
        "    --speculative-algorithm EAGLE3 \\\n    --speculative-draft-model-path <draft-model-path> \\\n"
        "    --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4\n```\n"
    )
    report = _check(tmp_path, "README.md", page)
    (server,) = report["servers"]
    # the reader's values: not known here (None), not redirections that took the next flag
    assert server["argv"][3:9] == [
        "--model",
        None,
        "--speculative-algorithm",
        "EAGLE3",
        "--speculative-draft-model-path",
        None,
    ]
    assert alarms(report) == []


def test_the_same_placeholder_in_a_script_stays_an_error(tmp_path: Path) -> None:
    # a script is run as written: bash reads the redirections (SH005, as for G26's `<your>`)
    script = "#!/bin/bash\npython3 -m sglang.launch_server --model-path <model-path> --port 30000\n"
    report = _check(tmp_path, "run.sh", script)
    said = [(f["code"], f["severity"]) for f in alarms(report) if f["code"] == "SH005"]
    assert said == [("SH005", "error")]


@pytest.mark.parametrize(
    ("line", "filled"),
    [
        ("vllm serve <model> --port 8000", "vllm serve ${model} --port 8000"),
        ("  -v <YOUR_DIR>:/data \\", "  -v ${YOUR_DIR}:/data \\"),
        ("--model-path /models/<name>", "--model-path /models/${name}"),
        ("--model <path>", "--model ${path}"),
        ("--home <HOME>", "--home ${HOME_}"),  # not the variable bash sets
        ("--chat-template '<s>{{ x }}' cat <<EOF", "--chat-template '<s>{{ x }}' cat <<EOF"),
        ("cmd <(ls) 2<&1 a<b>", "cmd <(ls) 2<&1 a<b>"),  # a process substitution, a word's `<b>`
    ],
)
def test_which_angle_words_are_placeholders(line: str, filled: str) -> None:
    from argtrace.layers.shell.markdown import _filled

    assert _filled(line) == filled


# --- an image known but for its tag -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("image", "read"),
    [
        ('"nvcr.io/nvidia/vllm:${V}"', "nvcr.io/nvidia/vllm:${V}"),
        ("nvcr.io/nvidia/vllm:${V}", "nvcr.io/nvidia/vllm:${V}"),  # unquoted: a tag with blanks is no tag
        ("vllm/vllm-openai:$V --model", "vllm/vllm-openai:$V"),  # the image's own entrypoint
        ("$IMG", None),  # where the image stands is not known (it may be empty, or options and an image)
    ],
)
def test_a_docker_run_whose_image_tag_is_computed_at_run_time(
    tmp_path: Path, image: str, read: str | None
) -> None:
    # was no server: the image word was unknown, and with it where the container's command starts
    command = "" if "--model" in image else "vllm serve"
    script = (
        "#!/bin/bash\nV=$(cat /etc/tag)\nIMG=$(cat /etc/img)\n"
        f"docker run --gpus all {image} {command} Qwen/Qwen3-8B\n"
    )
    report = _check(tmp_path, "run.sh", script)
    hops = [h["image"] for h in report["transport"]["hops"]] if report.get("transport") else []
    assert hops == ([read] if read else [])
    assert len(report["servers"]) == (1 if read else 0)
    assert alarms(report) == []


# --- a Python launcher's `shlex.split` of a command string --------------------------------------------------


def test_a_python_launcher_splitting_its_command_string_with_shlex(tmp_path: Path) -> None:
    # a probe of this sweep's shapes: was no server (shlex.split's value was not known)
    program = (
        "import shlex\nimport subprocess\n\nmodel = 'Qwen/Qwen3-8B'\ntp = 2\n"
        'cmd = f"vllm serve {model} --tensor-parallel-size {tp} "\n'
        'cmd += "--override-generation-config \'{\\"temperature\\": 0.6}\'"\n'
        "subprocess.run(shlex.split(cmd), check=True)\n"
    )
    report = _check(tmp_path, "launch.py", program)
    assert [s["argv"] for s in report["servers"]] == [
        [
            "vllm",
            "serve",
            "Qwen/Qwen3-8B",
            "--tensor-parallel-size",
            "2",
            "--override-generation-config",
            '{"temperature": 0.6}',
        ]
    ]
    assert alarms(report) == []


# --- a shell string run in a running container: its variables are the container's --------------------------


@pytest.mark.parametrize(
    ("carrier", "where"),
    [
        ("kubectl exec -n llm vllm-0 --", "pod vllm-0's environment, not known here"),
        ("docker exec -d vllm", "the running container vllm's environment, not known here"),
    ],
)
def test_a_running_containers_variable_is_unknown_not_unset(tmp_path: Path, carrier: str, where: str) -> None:
    # a probe of this sweep's shapes: `$TP` was read as unset where argtrace runs, an SH026 warning ("not set
    # in the environment argtrace was given ... gets an empty value") about the container's own variable
    script = (
        f'#!/bin/bash\n{carrier} bash -c \'exec vllm serve "$MODEL" --tensor-parallel-size "$TP" '
        '--port "${PORT:-8000}"\'\n'
    )
    report = _check(tmp_path, "run.sh", script)
    (server,) = report["servers"]
    # the string's own default stays its reading: the value its author expects there
    assert server["argv"] == ["vllm", "serve", None, "--tensor-parallel-size", None, "--port", "8000"]
    assert alarms(report) == []
    said = [f["message"] for f in report["findings"] if f["code"] == "PA013"]
    assert said[-1] == (
        f'the value of --tensor-parallel-size comes from "$TP" ({where}): tensor_parallel_size cannot be '
        "known before the server runs"
    )
