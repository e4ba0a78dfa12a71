"""PR012 and TP033 on launches that are not the reports (tests/test_real_cases_platforms.py has those):
the table of device variables is generated (scripts/gen_device_variables.py), so each variant names the
source it rests on."""

from __future__ import annotations

import json
from typing import Any

import pytest

from argtrace.layers.device_env import _distance, near_known, vendors
from argtrace.package_data import package_file
from tests.conftest import alarms, run_cli

pytestmark = pytest.mark.usefixtures("new_user_machine")


def codes(command: str) -> list[tuple[str, str]]:
    report: dict[str, Any] = run_cli(["check", "--format", "json", "-c", command]).json
    return [(f["code"], f["severity"]) for f in alarms(report)]


def test_the_table_is_generated_from_the_runtimes_sources() -> None:
    data = json.loads(package_file("data/device_variables.json").read_text())
    assert set(data["sources"]) == {
        "ray",
        "ROCm/clr",
        "ROCm/ROCR-Runtime",
        "Ascend/ascend-docker-runtime",
        "NVIDIA/nvidia-container-toolkit",
    }
    by_key = {v.key: v for v in vendors()}
    # HIP reads HIP_VISIBLE_DEVICES, then CUDA_VISIBLE_DEVICES; ROCR_VISIBLE_DEVICES is the HSA runtime's
    assert by_key["amd_gpu"].process == (
        "HIP_VISIBLE_DEVICES",
        "CUDA_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
    )
    assert by_key["npu"].process == ("ASCEND_RT_VISIBLE_DEVICES",)
    assert by_key["npu"].container == ("ASCEND_VISIBLE_DEVICES",)
    assert by_key["intel_gpu"].process == ("ZE_AFFINITY_MASK", "ONEAPI_DEVICE_SELECTOR")
    assert by_key["hpu"].process == ("HABANA_VISIBLE_MODULES",)


@pytest.mark.parametrize(
    ("name", "meant"),
    [
        ("CUDA_VISIBLE_DEVICE", "CUDA_VISIBLE_DEVICES"),
        ("CUDA_VISABLE_DEVICES", "CUDA_VISIBLE_DEVICES"),
        ("HIP_VISIBLE_DEVICE", "HIP_VISIBLE_DEVICES"),
        ("ZE_AFFINITY_MAKS", "ZE_AFFINITY_MASK"),
        # another vendor's real variable, two edits from CUDA's: not a misspelling of it
        ("MUSA_VISIBLE_DEVICES", None),
        ("MLU_VISIBLE_DEVICES", None),
        ("CUDA_VISIBLE_DEVICES", None),
    ],
)
def test_near_known(name: str, meant: str | None) -> None:
    assert near_known(name) == meant


def _full_table(a: str, b: str) -> int:
    """The whole optimal-string-alignment table, with no bound: what the bounded one must agree with."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def test_the_bounded_distance_agrees_with_the_whole_table() -> None:
    """near_known asks only whether a name is within 1 or 2 edits (issue 18: the whole table for every
    exported name of a 1 MB script was 1.1 s); every pair of short words over a small alphabet, each bound."""
    import itertools

    words = ["".join(p) for n in range(5) for p in itertools.product("AB_", repeat=n)]
    for a, b in itertools.product(words, repeat=2):
        exact = _full_table(a, b)
        assert _distance(a, b) == exact, (a, b)
        for limit in (0, 1, 2):
            assert _distance(a, b, limit) == (exact if exact <= limit else limit + 1), (a, b, limit)
    assert _distance("CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVCIES", 1) == 1  # a swap is one edit
    assert _distance("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", 2) == 3


def test_the_pieces_filter_keeps_every_word_within_the_bound() -> None:
    """near_known skips the distance when no piece of the known name is in the word (issue 18): every word
    one or two edits (insert, delete, substitute, swap) from a known name, over an alphabet that also holds
    the name's own letters, either holds a piece or is farther than the bound."""
    import itertools
    import random

    from argtrace.layers.device_env import _known, _pieces

    rng = random.Random(18)
    alphabet = "ABCDEIVX_0"

    def edited(word: str) -> str:
        i = rng.randrange(len(word))
        kind = rng.choice("isdt")
        if kind == "i":
            return word[:i] + rng.choice(alphabet) + word[i:]
        if kind == "s":
            return word[:i] + rng.choice(alphabet) + word[i + 1 :]
        if kind == "d":
            return word[:i] + word[i + 1 :]
        return word[:i] + word[i + 1 : i + 2] + word[i : i + 1] + word[i + 2 :]

    checked = 0
    for known, edits in itertools.product(sorted(_known()), (1, 2)):
        for _ in range(400):
            word = known
            for _ in range(edits):
                word = edited(word)
            for limit in (1, 2):
                if _distance(word, known, limit) <= limit:
                    checked += 1
                    assert any(piece in word for piece in _pieces(known, limit)), (known, word, limit)
    assert checked > 10_000
    assert _pieces("CUDA_VISIBLE_DEVICES", 1) == ("CUDA_V", "ISIBLE_", "DEVICES")


_SG = "python3 -m sglang.launch_server --framework-version 0.5.10.post1 --model-path /m"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # misspelt, with no platform shown
        ("CUDA_VISIBLE_DEVICE=0 vllm serve m", [("PR012", "warning")]),
        # SGLang's --device npu shows Ascend: CUDA's variable selects nothing there
        (
            "CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path /m --device npu",
            [("PR012", "warning")],
        ),
        # /dev/kfd shows AMD, whose HIP runtime reads CUDA_VISIBLE_DEVICES too: correct
        (
            "docker run --device /dev/kfd --device /dev/dri -e CUDA_VISIBLE_DEVICES=0 "
            "vllm/vllm-openai-rocm:v0.9.2 --model m",
            [],
        ),
        (
            "docker run --device /dev/kfd --device /dev/dri -e HIP_VISIBLE_DEVICES=0 "
            "vllm/vllm-openai-rocm:v0.9.2 --model m",
            [],
        ),
        # the container runtime's variable given to docker run -e: read where it should be
        (
            "docker run --device /dev/davinci0 -e ASCEND_VISIBLE_DEVICES=0 "
            "quay.io/ascend/vllm-ascend:v0.9.2rc1 vllm serve m",
            [],
        ),
        # exported to a server started here: nothing reads it
        ("export NVIDIA_VISIBLE_DEVICES=0\nvllm serve m", [("PR012", "warning")]),
        # a device variable the caller already had is left alone
        ("vllm serve m", []),
    ],
)
def test_device_variables(command: str, expected: list[tuple[str, str]]) -> None:
    assert [c for c in codes(command) if c[0] == "PR012"] == expected


def test_a_blank_in_a_docker_e_name() -> None:
    report: dict[str, Any] = run_cli(
        [
            "check",
            "--format",
            "json",
            "-c",
            "docker run --gpus all -e ' HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz123456' -e 'VLLM_USE_V1 =1' "
            "vllm/vllm-openai:v0.9.2 --model Qwen/Qwen3-8B",
        ]
    ).json
    assert [(f["code"], f["severity"], f["message"], f["fix"]) for f in alarms(report)] == [
        (
            "TP033",
            "error",
            "docker run -e: the name ' HF_TOKEN' has a blank before it, and docker takes the name before "
            "the first `=` as written (docker/cli opts.ValidateEnv checks only that it is not empty), so "
            "the container gets a variable named ' HF_TOKEN' and not HF_TOKEN",
            "Delete the blank before the name: `-e HF_TOKEN=...`.",
        ),
        (
            "TP033",
            "error",
            "docker run -e: the name 'VLLM_USE_V1 ' has a blank after it, and docker takes the name before "
            "the first `=` as written (docker/cli opts.ValidateEnv checks only that it is not empty), so "
            "the container gets a variable named 'VLLM_USE_V1 ' and not VLLM_USE_V1",
            "Delete the blank after the name: `-e VLLM_USE_V1=...`.",
        ),
    ]
    assert "hf_abcdefghijklmnopqrstuvwxyz123456" not in json.dumps(report)


def test_a_blank_inside_a_docker_e_value_is_no_finding() -> None:
    assert codes("docker run --gpus all -e 'HF_HOME=/a b' vllm/vllm-openai:v0.9.2 --model m") == []


def test_the_one_search_finds_what_the_loop_finds() -> None:
    """near_known's search for any candidate's piece (issue 18) gives what the loop over the candidates gives
    without it: every known name edited once or twice, names of other vendors and lengths, random names."""
    import random

    from argtrace.layers import device_env as D

    def looped(name: str) -> str | None:
        if name in D._known() or len(name) < 8:
            return None
        vendor = name.split("_", 1)[0]
        best: tuple[int, str] | None = None
        for known, known_vendor in D._near_lengths(len(name)):
            limit = 2 if vendor == known_vendor else 1
            if abs(len(name) - len(known)) > limit:
                continue
            if not any(piece in name for piece in D._pieces(known, limit)):
                continue
            d = D._distance(name, known, limit)
            if d <= limit and (best is None or d < best[0]):
                best = (d, known)
        return best[1] if best else None

    rng = random.Random(27)
    alphabet = "ABCDEIVX_0cuda"
    names = [
        "MODEL_DIR_7",
        "HF_TOKEN_12",
        "CUDA_VISIBLE_DEVICE",
        "MUSA_VISIBLE_DEVICES",
        "XYZ_VISIBLE_DEVICES",
    ]
    for known in sorted(D._known()):
        for _ in range(30):
            word = list(known)
            for _ in range(rng.randint(1, 3)):
                i = rng.randrange(len(word))
                word[i : i + rng.randint(0, 1)] = rng.choice(["", rng.choice(alphabet)])
            names.append("".join(word))
    names += ["".join(rng.choice(alphabet) for _ in range(rng.randint(6, 24))) for _ in range(2000)]
    got = [D.near_known(n) for n in names]
    assert got == [looped(n) for n in names]
    assert sum(g is not None for g in got) > 200
