"""The eighth carriers batch (docs/real_cases.md, "Carriers, 2nd batch"): launches carried by compose files,
Kubernetes and KServe manifests, Helm-rendered files and `docker run` lines, measured before any change.

Each ``tests/data/real_cases/c8_*`` file is our reconstruction of what a public report posted; its header
names the URL and what the report leaves out. The six correct launches collected with them are in the
false-alarm gate (``tests/data/false_alarms/*/c8_*``). The machine is a new user's (no resolver environment,
no Hugging Face cache). A miss is a strict ``xfail`` naming the mechanism. The variant tests run each
mechanism on our own minimal inputs: compose's interpolation of a list item (the Compose specification,
Interpolation), the fix edits of compose and manifest findings, TP022, TP023 and the YAML readers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(name: str, *options: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *options, name], cwd=CASES)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def check_in(tmp_path: Path, files: dict[str, str], name: str, *options: str) -> dict[str, Any]:
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, name], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def shown(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(severity, code, basis) of the errors and warnings, causes and consequences (a consequence is shown
    without its basis: the JSON gives it as code, place, message, severity and layer)."""
    return [(f["severity"], f["code"], f.get("basis", "-")) for f in alarms(report)]


def finding(report: dict[str, Any], code: str) -> dict[str, Any]:
    found = [f for f in report["findings"] if f["code"] == code]
    assert len(found) == 1, [f["code"] for f in report["findings"]]
    return found[0]


# --- the five failure reports ------------------------------------------------------------------------------


def test_kserve3791_docker_options_in_an_inference_services_args() -> None:
    """Was nothing (status 0, no server: the runtime is the cluster's); now TP023 names the lost /dev/shm."""
    report = check("c8_kserve3791_isvc_docker_options_in_args.yaml")
    tp023 = finding(report, "TP023")
    assert (tp023["severity"], tp023["at"]) == (
        "warning",
        "c8_kserve3791_isvc_docker_options_in_args.yaml:13",
    )
    assert tp023["message"] == (
        "`--shm-size=30gb`, `--ipc=host`, `--network=host` in InferenceService hugging-model-1's "
        "`model.args` "
        "are options of `docker run`, which Kubernetes does not read there: the container's program receives "
        "them as arguments, and the container gets none of it (/dev/shm stays the container runtime's 64 MiB "
        "default, too small for NCCL between tensor-parallel workers)"
    )
    assert tp023["fix"] == (
        "Drop the items and set the container itself: --shm-size: an `emptyDir` volume with `medium: Memory` "
        "(and a `sizeLimit`) mounted at /dev/shm; --ipc: `hostIPC: true` in the pod spec; --network: "
        "`hostNetwork: true` in the pod spec."
    )
    assert [e["text"] for e in tp023["evidence"]] == ["--shm-size=30gb", "--ipc=host", "--network=host"]
    assert shown(report) == [("warning", "TP023", "static")]


def test_llmd1126_one_string_command_gets_one_item_per_word() -> None:
    """Was already named (TP011, class a); now with the edit, proven by the re-check."""
    report = check("c8_llmd1126_command_one_string.yaml")
    tp011 = finding(report, "TP011")
    assert tp011["severity"] == "error"
    assert tp011["fix"] == (
        "Give each word its own item at c8_llmd1126_command_one_string.yaml:19: vllm, serve, "
        "openai/gpt-oss-20b; an exec-form list item is one argv word, and no shell splits it."
    )
    assert tp011["fix_edits"] == [
        {
            "file": "c8_llmd1126_command_one_string.yaml",
            "start": "19:19",
            "end": "19:50",
            "replacement": "vllm, serve, openai/gpt-oss-20b",
        }
    ]
    assert tp011["fix_verified"] is True


def test_routerdemo2_helm_rendered_served_model_name_is_empty() -> None:
    """Was nothing (the empty value is accepted by argparse); now TP022 with Helm's escape."""
    report = check("c8_routerdemo2_helm_empty_served_name.yaml")
    tp022 = finding(report, "TP022")
    assert (tp022["severity"], tp022["at"]) == ("warning", "c8_routerdemo2_helm_empty_served_name.yaml:13")
    assert tp022["message"] == (
        "the `args` item --served-model-name= gives --served-model-name an empty value: the server receives "
        "the empty string as --served-model-name, not the value meant (a template that rendered to nothing "
        "leaves such an item)"
    )
    assert tp022["fix"] == (
        "Write the value after `--served-model-name=`, or drop the item. If a Helm chart renders this file, "
        "a `{{ ... }}` meant for KServe (`{{.Name}}` of a ServingRuntime) must be escaped so that "
        "Helm leaves "
        'it: `{{ "{{" }} .Name {{ "}}" }}`.'
    )
    assert shown(report) == [("warning", "TP022", "static")]


def test_kserve3446_indentation_names_the_column_to_indent_to() -> None:
    """Was the bare YAML error (b); now it says where the key belongs."""
    result = run_cli(["check", "c8_kserve3446_isvc_indentation.yaml"], cwd=CASES)
    assert result.status == 2
    assert result.stderr == (
        "argtrace check: c8_kserve3446_isvc_indentation.yaml:14:7: not valid YAML: expected <block end>, but "
        "found '?' (while parsing a block collection that starts at 9:7); the key at 14:7 is at the "
        "column of "
        "the list's `- ` (9:7), where YAML expects the next item: to belong to that item, indent it "
        "to column "
        "9 like the item's first key\n"
    )


def test_prodstack276_helm_values_are_not_read_as_a_shell_script() -> None:
    """Was SH004 error "line 5 starts with `-`" (d: the values file read as shell); now a usage error."""
    result = run_cli(["check", "c8_prodstack276_values_shm_size.yaml"], cwd=CASES)
    assert result.status == 2
    assert result.stderr == (
        "argtrace check: c8_prodstack276_values_shm_size.yaml: YAML, but neither a docker compose file "
        "(top-level `services:`) nor a Kubernetes manifest (`apiVersion:` and `kind:`), so there is "
        "no launch "
        "here to check. Helm values are turned into manifests by their chart: check what it renders (`helm "
        "template RELEASE CHART -f c8_prodstack276_values_shm_size.yaml > rendered.yaml`, then "
        "`argtrace check "
        "rendered.yaml`); a framework's own --config YAML is checked with the command that names it.\n"
    )


@pytest.mark.xfail(
    strict=True,
    reason="the chart of that time did not render `shmSize` into the pod: only the chart's "
    "templates show it, "
    "and argtrace does not render Helm charts (a values file is no launch it can read)",
)
def test_prodstack276_the_missing_shm_volume_is_found() -> None:
    report = check("c8_prodstack276_values_shm_size.yaml")
    assert alarms(report) != []


# --- compose's interpolation of a list item (the Compose specification, Interpolation) -------------------

IMAGE = "vllm/vllm-openai:v0.11.0"


def compose_port(item: str) -> str:
    return f'services:\n  vllm:\n    image: {IMAGE}\n    command: ["--model", "/m", "--port", "{item}"]\n'


def test_an_unset_list_item_is_a_warning_resting_on_composes_environment(tmp_path: Path) -> None:
    report = check_in(tmp_path, {"compose.yaml": compose_port("${PORT}")}, "compose.yaml")
    tp012 = finding(report, "TP012")
    assert (tp012["severity"], tp012["basis"]) == ("warning", "assumed")
    # what the parser says of the empty word rests on the same assumption: a warning, not an error
    assert [(c["code"], c["severity"], c["message"]) for c in tp012["consequences"]] == [
        ("PA010", "warning", "argument --port: invalid int value: '' (argparse exit 2)")
    ]
    assert tp012["fix_edits"] == [
        {"file": "compose.yaml", "start": "4:43", "end": "4:50", "replacement": "${PORT:-8000}"}
    ]
    assert tp012["fix_verified"] is True


def test_a_dotenv_beside_the_file_or_a_default_sets_the_item(tmp_path: Path) -> None:
    dotenv = check_in(
        tmp_path / "a", {"compose.yaml": compose_port("${PORT}"), ".env": "PORT=8000\n"}, "compose.yaml"
    )
    default = check_in(tmp_path / "b", {"compose.yaml": compose_port("${PORT:-8000}")}, "compose.yaml")
    assert (shown(dotenv), shown(default)) == ([], [])


def test_a_required_variable_makes_compose_stop(tmp_path: Path) -> None:
    report = check_in(tmp_path, {"compose.yaml": compose_port("${PORT?set PORT first}")}, "compose.yaml")
    tp012 = finding(report, "TP012")
    assert (tp012["severity"], tp012["basis"]) == ("warning", "assumed")
    assert tp012["message"] == (
        "${PORT} in `command:` is required (`?`) and is not set in the environment argtrace was given or the "
        ".env file: if it is unset where `docker compose` runs too, compose stops before creating the "
        'container ("required variable PORT is missing a value: set PORT first")'
    )
    assert tp012["fix_edits"] == []


def test_a_double_dollar_reaches_the_server_literally(tmp_path: Path) -> None:
    """`$$` is compose's literal `$`; a list item is no shell, so `$PORT` is the server's text."""
    report = check_in(tmp_path, {"compose.yaml": compose_port("$$PORT")}, "compose.yaml")
    assert [(f["code"], f["severity"], f["message"]) for f in alarms(report)] == [
        (
            "TP013",
            "error",
            "service vllm's `command:` list is an exec-form argv: no shell runs it, so '$PORT' is passed to "
            "the program as a literal argument",
        ),
        ("PA010", "error", "argument --port: invalid int value: '$PORT' (argparse exit 2)"),
    ]


def test_an_env_file_does_not_interpolate_the_compose_file(tmp_path: Path) -> None:
    """vllm#23259's shape: MODEL_NAME only in the service's env_file, which sets the container's
    environment, never the compose file's interpolation."""
    text = (
        f"services:\n  vllm:\n    image: {IMAGE}\n    env_file:\n      - path: ./build/vllm/.env\n"
        '        required: true\n    command: ["--model", "${MODEL_NAME}", "--quantization", "awq"]\n'
    )
    report = check_in(
        tmp_path, {"compose.yaml": text, "build/vllm/.env": "MODEL_NAME=Qwen/Qwen3-32B-AWQ\n"}, "compose.yaml"
    )
    tp012 = finding(report, "TP012")
    assert (tp012["severity"], tp012["basis"]) == ("warning", "assumed")
    assert tp012["message"].endswith("reaches the server as the empty word '' (the value of `--model`)")
    # vLLM's --model has no default argtrace writes for it (the demo model would start instead)
    assert tp012["fix_edits"] == []


# --- fix edits of manifest findings ------------------------------------------------------------------------


def test_a_folded_kubernetes_block_becomes_literal(tmp_path: Path) -> None:
    from argtrace.rules.transport import TP021

    report = check_in(tmp_path, dict(TP021.example.written_files()), "pod.yaml")
    tp021 = finding(report, "TP021")
    assert tp021["fix_edits"] == [{"file": "pod.yaml", "start": "11:11", "end": "11:12", "replacement": "|"}]
    assert tp021["fix_verified"] is True


def test_a_folded_compose_string_loses_its_backslashes(tmp_path: Path) -> None:
    text = (
        f"services:\n  vllm:\n    image: {IMAGE}\n    command: >\n      --model Qwen/Qwen3-8B \\\n"
        "      --max-model-len 8192\n"
    )
    report = check_in(tmp_path, {"compose.yaml": text}, "compose.yaml")
    tp021 = finding(report, "TP021")
    assert tp021["fix"] == (
        "Delete the backslashes at the ends of the folded block's lines (compose.yaml line 5): the folding "
        "joins the lines with a space itself, and compose splits the words."
    )
    assert tp021["fix_edits"] == [{"file": "compose.yaml", "start": "5:28", "end": "5:30", "replacement": ""}]
    assert tp021["fix_verified"] is True


# --- TP022, TP023 on our own inputs ------------------------------------------------------------------------


def test_an_empty_assignment_in_a_compose_list_and_a_kserve_template_kept(tmp_path: Path) -> None:
    empty = (
        f'services:\n  vllm:\n    image: {IMAGE}\n    command: ["Qwen/Qwen3-8B", "--served-model-name="]\n'
    )
    kept = empty.replace("--served-model-name=", "--served-model-name=qwen")
    assert shown(check_in(tmp_path / "a", {"compose.yaml": empty}, "compose.yaml")) == [
        ("warning", "TP022", "static")
    ]
    assert shown(check_in(tmp_path / "b", {"compose.yaml": kept}, "compose.yaml")) == []


def test_a_docker_option_in_kubernetes_args_explains_the_parsers_refusal(tmp_path: Path) -> None:
    from argtrace.rules.transport import TP023

    report = check_in(tmp_path, dict(TP023.example.written_files()), "pod.yaml")
    tp023 = finding(report, "TP023")
    # vLLM refuses the word ("did you mean --block-size?"): that follows from the option, and its rename is
    # no fix: the option is dropped and the pod given the setting
    assert [(c["code"], c["severity"]) for c in tp023["consequences"]] == [("PA001", "error")]
    assert (tp023["fix_edits"], tp023["fix_verified"]) == ([], None)


def test_compose_keys_carry_the_settings_and_are_not_flagged(tmp_path: Path) -> None:
    text = (
        f"services:\n  vllm:\n    image: {IMAGE}\n    shm_size: 16gb\n    ipc: host\n"
        '    command: ["Qwen/Qwen3-8B", "--tensor-parallel-size", "2"]\n'
    )
    flagged = text.replace('"2"]', '"2", "--ipc=host"]')
    assert shown(check_in(tmp_path / "a", {"compose.yaml": text}, "compose.yaml")) == []
    assert [
        f["code"] for f in alarms(check_in(tmp_path / "b", {"compose.yaml": flagged}, "compose.yaml"))
    ] == [
        "TP023",
        "PA001",
    ]


# --- the YAML readers --------------------------------------------------------------------------------------


def test_a_compose_file_in_flow_form_is_still_no_usage_error(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("services: []\n")
    assert run_cli(["check", "m.yaml"], cwd=tmp_path).status in (0, 1)


# --- TP024: docker's CSV reading of `--gpus` (docker/cli opts/gpus.go; moby daemon/nvidia_linux.go) -------

SERVER = "vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B -tp 2"


def check_command(tmp_path: Path, command: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-resolve", "-c", command], cwd=tmp_path)
    report: dict[str, Any] = result.json
    return report


def test_an_unquoted_device_list_is_refused_by_the_daemon(tmp_path: Path) -> None:
    report = check_command(tmp_path, f"docker run --gpus device=0,1 --ipc=host {SERVER}")
    tp024 = finding(report, "TP024")
    assert (tp024["severity"], tp024["message"]) == (
        "error",
        "`--gpus device=0,1`: docker reads the value as comma-separated fields, so `1` after `device=0` is "
        'read as a GPU count, and refuses it ("cannot set both Count and DeviceIDs on device request"): the '
        "container never starts",
    )
    assert tp024["fix_edits"] == [
        {"file": "<-c>", "start": "1:19", "end": "1:29", "replacement": "'\"device=0,1\"'"}
    ]
    assert tp024["fix_verified"] is True
    assert shown(report) == [("error", "TP024", "static")]


@pytest.mark.parametrize(
    "gpus",
    ["'\"device=0,1\"'", "device=0", "2", "all", "count=2", "\"'device=0,1'\""],
    ids=["inner-double-quotes", "one-device", "count", "all", "count-key", "inner-single-quotes"],
)
def test_device_requests_docker_takes(tmp_path: Path, gpus: str) -> None:
    """`"'device=0,1'"` hands docker single quotes, which Go's CSV does not take as quotes: a TP024 too."""
    report = check_command(tmp_path, f"docker run --gpus {gpus} --ipc=host {SERVER}")
    codes = [f["code"] for f in alarms(report)]
    assert codes == (["TP024"] if gpus.startswith("\"'") else ([] if gpus != "device=0" else ["TP042"]))


def test_a_device_id_list_of_uuids_is_a_count_error(tmp_path: Path) -> None:
    report = check_command(tmp_path, f"docker run --gpus device=GPU-a,GPU-b --ipc=host {SERVER}")
    assert finding(report, "TP024")["message"] == (
        "`--gpus device=GPU-a,GPU-b`: docker reads the value as comma-separated fields, so `GPU-b` after "
        '`device=GPU-a` is read as a GPU count, and refuses it ("invalid count (GPU-b): value must be either '
        '"all" or an integer"): the container never starts'
    )
