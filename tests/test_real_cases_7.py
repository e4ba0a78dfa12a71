"""The seventh batch of real failure reports (docs/real_cases.md, "Seventh batch"): launches carried by files
other than plain shell scripts (Kubernetes manifests, a Dynamo graph, compose files, `docker run` lines),
measured before any fix.

Each case under ``tests/data/real_cases_7/`` is our reconstruction of the file a public report posted; its
header names the URL. The machine is a new user's (no resolver environment, no Hugging Face cache); the
release or the GPU is passed only when the report states it. A miss is a strict ``xfail`` whose reason names
the mechanism, so a change that alters the outcome turns the test red. The ``ok_`` files are launches whose
failure was not the launch: they must stay clean (no error, no warning). The variant tests run each mechanism
fixed here on our own minimal inputs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check
from tests.conftest import Launch, Missed, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_7"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(launch: Launch) -> dict[str, Any]:
    return recorded_check(CASES, launch)


def check_text(tmp_path: Path, name: str, text: str, *options: str) -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, name], cwd=tmp_path)
    report: dict[str, Any] = result.json
    return report


def check_command(tmp_path: Path, command: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-resolve", "-c", command], cwd=tmp_path)
    report: dict[str, Any] = result.json
    return report


def coded(report: dict[str, Any], code: str) -> list[tuple[str, str, str | None]]:
    return [(f["severity"], f["message"], f.get("fix")) for f in report["findings"] if f["code"] == code]


LAUNCHES = {
    "aiconfig377": Launch("aiconfig377_k8s_capture_sizes_one_item.yaml"),
    # "I don't have 8 x NVIDIA H200 GPUs (in fact, I only have one)"
    "dsv3_401": Launch("dsv3_401_docker_sglang_tp8_one_gpu.sh", ("--gpu", "h200x1")),
    "dynamo14321": Launch("dynamo14321_folded_continuations.yaml"),
    "llmdsim533": Launch("llmdsim533_entrypoint_after_image.sh"),
    "vllm3435": Launch("vllm3435_compose_kv_cache.yaml"),
}

CORRECT = {
    "gpuop920": Launch("ok_gpuop920_k8s_tp4.yaml"),
    "lightspeed1014": Launch("ok_lightspeed1014_servingruntime_spaces.yaml"),
    "sglang10216": Launch("ok_sglang10216_sts_bash_c.yaml"),
    "vllm13451": Launch("ok_vllm13451_docker_mistral.sh"),
    "vllm14025": Launch("ok_vllm14025_k8s_args_v073.yaml"),
    "vllm14403": Launch("ok_vllm14403_compose_model.yaml"),
    "vllm3710": Launch("ok_vllm3710_docker_tp2.sh"),
    "vllm5790": Launch("ok_vllm5790_docker_tp2.sh"),
}

# --- class a: the root cause and a correct fix on the first screen -----------------------------------------

SIZES = "1,2,4,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128"
FOLDED = (
    "the `args` item is a folded block (`>`): YAML joins its lines with a space, so each `\\` at a line's "
    "end escapes that space instead of continuing the line ('dynamo.vllm \\ --model'); the next flag then "
    "reaches the server as one word that starts with a space, which argparse does not take for a flag "
    '("unrecognized arguments")'
)
FOUND_7: dict[str, tuple[str, list[tuple[str, str, str | None]]]] = {
    # fixed 2026-12-02 (was PA010 info: the option takes several values, the refusal was not read as
    # holding on every release)
    "aiconfig377": (
        "PA010",
        [
            (
                "warning",
                f"argument --cudagraph-capture-sizes: invalid int value: '{SIZES}' (argparse exit 2)",
                "give each value as a word of its own: --cudagraph-capture-sizes 1 2 4 8 ... (in a YAML "
                "list, one item per value); the flag takes several values and converts each word, and "
                f"'{SIZES}' is one word",
            )
        ],
    ),
    # found before any change, once the report's one GPU is passed
    "dsv3_401": (
        "RS005",
        [
            (
                "error",
                "the parallel sizes need 8 GPUs (tp_size 8 x pp_size 1) but --gpu h200x1 gives 1",
                "lower --tp-size / --pp-size, or run on a node with enough GPUs",
            )
        ],
    ),
    # fixed 2026-12-02 (was 15 PA001 errors on ' --model' and its neighbours, fix "quote the value")
    "dynamo14321": (
        "TP021",
        [
            (
                "error",
                FOLDED,
                # the edit `>-` -> `|-` at the block's indicator, proven by the re-check (carriers8)
                "Write the block as a literal scalar: `|-` at dynamo14321_folded_continuations.yaml:28:15: a "
                "literal block keeps its line breaks, so each `\\` at a line's end continues the command (or "
                "drop the backslashes: a folded block joins the lines itself).",
            )
        ],
    ),
    # fixed 2026-12-02 (was TP040/SH019 notes only)
    "llmdsim533": (
        "TP020",
        [
            (
                "warning",
                "`--entrypoint vllm` comes after the image vllm/vllm-openai-cpu:v0.19.1: docker reads its "
                "own options only before the image (`docker run [OPTIONS] IMAGE [COMMAND] [ARG...]`), so "
                "--entrypoint is not applied and reaches the container's program as a word of its command",
                "Move `--entrypoint vllm` before the image: `docker run ... --entrypoint vllm "
                "vllm/vllm-openai-cpu:v0.19.1 ...`.",
            )
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(FOUND_7))
def test_batch_7_the_root_cause_is_named(name: str) -> None:
    code, expected = FOUND_7[name]
    report = check(LAUNCHES[name])
    assert coded(report, code) == expected
    # the root cause comes first among the errors and warnings (the first screen)
    assert alarms(report)[0]["code"] == code


def test_dynamo14321_the_split_words_are_the_folded_blocks_consequences() -> None:
    """The parser's refusals of the words the folding made (' --model', and the value after it) follow from
    TP021 (causes.py, folded-continuation): one cause on the first screen, the refusals folded under it."""
    report = check(LAUNCHES["dynamo14321"])
    top = [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")]
    assert top == ["TP021"]
    (tp021,) = [f for f in report["findings"] if f["code"] == "TP021"]
    words = [c["message"].split(" (", 1)[0] for c in tp021["consequences"]]
    assert {c["code"] for c in tp021["consequences"]} == {"PA001"}
    assert words[:3] == ["' --model'", "'Qwen/Qwen3-VL-32B-Instruct-FP8'", "' --served-model-name'"]
    assert len(words) == 14


FOLDED_WITH_A_MISSPELLING = """\
apiVersion: v1
kind: Pod
metadata:
  name: vllm
spec:
  containers:
    - name: main
      image: vllm/vllm-openai:v0.10.2
      command: ["/bin/sh", "-c"]
      args:
        - >-
          vllm serve /models/qwen \\
          --max-num-seqs 40 --tensor-parralel-size 1
"""


def test_a_misspelt_flag_the_folding_did_not_make_stays_a_cause(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(FOLDED_WITH_A_MISSPELLING)
    report = run_cli(["check", "--format", "json", "--no-resolve", str(tmp_path / "pod.yaml")]).json
    top = [(f["code"], f["message"].split(" ", 1)[0]) for f in report["findings"] if f["severity"] == "error"]
    assert ("TP021", "the") in top
    assert ("PA001", "--tensor-parralel-size") in top  # no blank glued to it: a misspelling of its own
    (tp021,) = [f for f in report["findings"] if f["code"] == "TP021"]
    assert [c["message"].split(" (", 1)[0] for c in tp021["consequences"]] == ["' --max-num-seqs'", "'40'"]


# --- misses: no error or warning names the root cause ------------------------------------------------------


MISSED_7 = [
    Missed(
        "vllm3435",
        "the KV cache (16832 tokens on the report's one GPU) is smaller than Mistral-7B's max_model_len "
        "32768: needs the model's config.json and the GPU, neither on a new user's machine nor named in the "
        "report; TP019 (the quoted HUGGING_FACE_HUB_TOKEN) is true of the file but not the cause",
        besides=("TP019",),
    ),
]


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.name, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in MISSED_7]
)
def test_batch_7_a_missed_root_cause_is_still_missed(case: Missed) -> None:
    found = alarms(check(LAUNCHES[case.name]))
    assert [f for f in found if f["code"] not in case.besides] != []


def test_batch_7_the_misses_raise_no_other_alarm() -> None:
    got = {case.name: sorted({f["code"] for f in alarms(check(LAUNCHES[case.name]))}) for case in MISSED_7}
    assert got == {"vllm3435": ["TP019"]}


# --- correct launches: no error, no warning -----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_batch_7_a_correct_launch_stays_clean(name: str) -> None:
    report = check(CORRECT[name])
    assert [(f["severity"], f["code"], f["message"]) for f in alarms(report)] == []


# --- the mechanisms, on our own minimal inputs --------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # docker's own options after the image: not applied (Docker CLI reference, docker container run)
        ("docker run vllm/vllm-openai:v0.11.0 --gpus all --model m", ["`--gpus all`"]),
        ("docker run vllm/vllm-openai:v0.11.0 --model m --ipc=host", ["`--ipc=host`"]),
        ("docker run vllm/vllm-openai:v0.11.0 --model m --rm", ["`--rm`"]),
        # before the image they are docker's
        ("docker run --gpus all --ipc=host --rm vllm/vllm-openai:v0.11.0 --model m", []),
        # --device is also an SGLang and vLLM flag: after the image it is the server's
        ("docker run vllm/vllm-openai:v0.11.0 --model m --device cuda", []),
        # a value that happens to spell an option's name is not the option
        ("docker run vllm/vllm-openai:v0.11.0 --model m --served-model-name gpus", []),
        # another program may take the word as its own: only the first word after the image counts there
        ("docker run pytorch/pytorch:latest python train.py --name exp1", []),
        ("docker run pytorch/pytorch:latest --name exp1 python train.py", ["`--name exp1`"]),
    ],
)
def test_a_docker_run_option_after_the_image(tmp_path: Path, command: str, expected: list[str]) -> None:
    report = check_command(tmp_path, command)
    assert [m.split(" comes after")[0] for _s, m, _f in coded(report, "TP020")] == expected


_POD = """apiVersion: v1
kind: Pod
metadata:
  name: vllm
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.11.0
      command: ["/bin/sh", "-c"]
      args:
        - {style}
          vllm serve Qwen/Qwen3-8B{cont}
          --max-model-len 8192
"""


@pytest.mark.parametrize(
    ("style", "cont", "codes"),
    [
        # folded: `\` + the space the line break became is an escaped space (YAML 1.2 6.5, POSIX 2.2.1)
        (">-", " \\", ["PA001", "TP021"]),
        (">", " \\", ["PA001", "TP021"]),
        # literal: the newline stays, the backslash continues the line
        ("|-", " \\", []),
        # folded without backslashes: the lines are joined by a space, which is what the shell needs
        (">-", "", []),
    ],
)
def test_a_folded_block_with_continuations(tmp_path: Path, style: str, cont: str, codes: list[str]) -> None:
    report = check_text(tmp_path, "pod.yaml", _POD.format(style=style, cont=cont))
    assert sorted({f["code"] for f in alarms(report)}) == codes


def test_a_folded_compose_command_with_continuations(tmp_path: Path) -> None:
    compose = (
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command: >-\n"
        "      --model Qwen/Qwen3-8B \\\n      --max-model-len 8192\n"
    )
    report = check_text(tmp_path, "compose.yaml", compose)
    assert [(s, m.split(": YAML")[0]) for s, m, _f in coded(report, "TP021")] == [
        ("error", "the `command:` string is a folded block (`>`)")
    ]


@pytest.mark.parametrize(
    ("command", "severity", "fix"),
    [
        # every bundled release that has the option converts each item with int: the refusal holds on all
        (
            "vllm serve m --cudagraph-capture-sizes 1,2,4",
            "error",
            "give each value as a word of its own: --cudagraph-capture-sizes 1 2 4 (in a YAML list, one item "
            "per value); the flag takes several values and converts each word, and '1,2,4' is one word",
        ),
        # one item that is no value at all: the generic fix
        ("vllm serve m --cudagraph-capture-sizes 1 2 x", "error", "give a value of the flag's type"),
        # an option of one value: two values in one word are not a list to split
        ("vllm serve m --port 80,81", "error", "give a value of the flag's type"),
    ],
)
def test_a_multi_value_item_refused_by_every_release(
    tmp_path: Path, command: str, severity: str, fix: str
) -> None:
    report = check_command(tmp_path, command)
    assert [(s, f) for s, _m, f in coded(report, "PA010")] == [(severity, fix)]


SOURCE = re.compile(r"^# Reconstructed \(not copied\) after https://\S+ .*seen \d{4}-\d{2}-\d{2}: \S", re.M)


@pytest.mark.parametrize("path", sorted(CASES.iterdir()), ids=lambda p: p.name)
def test_every_batch_7_case_names_its_source(path: Path) -> None:
    assert SOURCE.search(path.read_text().splitlines()[0]), path.name


def test_every_batch_7_case_file_is_used() -> None:
    used = {launch.file for launch in [*LAUNCHES.values(), *CORRECT.values()]}
    assert sorted(p.name for p in CASES.iterdir()) == sorted(used)
