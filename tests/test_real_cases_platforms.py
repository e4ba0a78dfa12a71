"""The batch of launches on other platforms (docs/real_cases.md, "Launches on other platforms"), measured
before any fix: AMD ROCm (Ray's device variables), Ascend NPUs (vllm-ascend's tutorials, containers, a
Kubernetes device plugin), Intel XPU and Gaudi, vLLM's CPU backend. Each case under
``tests/data/real_cases_platforms/`` names its URL on its first line (a ``.sh`` script on its second):
``.cmd`` launches (``argtrace check -c``), ``.sh`` scripts (``argtrace check FILE ARGS``), ``.txt`` the error
text a report quotes (``argtrace why``), ``ok_*`` the correct launches collected with them. The machine is
a new user's (no resolver environment, no Hugging Face cache)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import check_case, table_counts, unsourced
from tests.conftest import alarms, quoted_text

CASES = Path(__file__).resolve().parent / "data" / "real_cases_platforms"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check` and `why`: first seen (on ca8b1c1) and now.
CLASSES = {
    "ascend5580_misspelt_rt_visible_devices.sh": ("c", "a"),
    "ascend5568_rt_visible_device_no_s.sh": ("c", "a"),
    "ascend6942_container_runtime_variable_inside.sh": ("c", "a"),
    "ascend6063_cuda_visible_devices_on_npu.cmd": ("c", "a"),
    "ascend3749_nonzero_first_card.cmd": ("c", "c"),
    "ascend1440_image_lacks_op_kernels.cmd": ("c", "c"),
    "ascend9428_k8s_non_first_cards.cmd": ("c", "c"),
    "rocm12572_ray_sets_rocr.cmd": ("c", "c"),
    "rocm21522_ray_tp2_without_noset.cmd": ("c", "c"),
    "ray58449_rocm_ray_tp8_pp2.cmd": ("c", "c"),
    "cpu10556_omp_threads_bind_docker.cmd": ("c", "c"),
    "sglang22714_minimax_mi300x_triton.cmd": ("c", "c"),
    "xpu32410_w4a16_moe_arc_b60.cmd": ("c", "c"),
    "hami1894_open_device_without_rt_variable.txt": ("c", "c"),
    "cpu19461_v1_not_on_cpu.txt": ("b", "b"),
    "genaicomps1038_hpu_device_acquire.txt": ("c", "c"),
    "ascend449_invalid_device_id_v1.txt": ("c", "c"),
    "xpu20743_free_memory_query.txt": ("d", "d"),
    "rocm12572_invalid_device_ordinal.txt": ("c", "c"),
    # why29: the ROCm runtime's memory fault is read as such, with another --attention-backend first
    "sglang39517_aiter_memory_fault.txt": ("c", "a"),
}
CORRECT = [
    "ok_rocm21522_noset_hip.cmd",
    "ok_ascend5581_fixed_deploy.sh",
    "ok_ascend2238_first_container.cmd",
    "ok_vllm32580_rocm_docker_run.cmd",
    "ok_sglang22714_aiter_no_custom_ar.cmd",
]
# The arguments launch_dp_program.py gives the DeepSeek-V3.1 tutorial's script (prefill node 0, rank 0).
SCRIPT_ARGS = {
    "ascend5568_rt_visible_device_no_s.sh": ("0,1,2,3,4,5,6,7", "7100", "2", "0", "141.xx.xx.1", "12321", "8")
}


def check(name: str) -> dict[str, Any]:
    return check_case(CASES, name, script_args=tuple(SCRIPT_ARGS.get(name, ())))


def found(report: dict[str, Any]) -> list[tuple[str, str, str, str | None]]:
    return [(f["code"], f["severity"], f["message"], f["fix"]) for f in alarms(report)]


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([0, 1, 18, 1], [5, 1, 13, 1])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, lines=2) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert found(check(name)) == []


_NPU = "which the runtime of Ascend NPU accelerators reads (ray 2.60.0 ray/_private/accelerators/npu.py)"


@pytest.mark.parametrize(
    ("name", "written", "meant"),
    [
        (
            "ascend5580_misspelt_rt_visible_devices.sh",
            "ASCEBD_RT_VISIBLE_DEVICES=0",
            "ASCEBD_RT_VISIBLE_DEVICES",
        ),
        (
            "ascend5568_rt_visible_device_no_s.sh",
            "ASCEND_RT_VISIBLE_DEVICE=0,1,2,3,4,5,6,7",
            "ASCEND_RT_VISIBLE_DEVICE",
        ),
    ],
)
def test_a_misspelt_device_variable_in_vllm_ascend_s_tutorials(name: str, written: str, meant: str) -> None:
    """was c: the misspelt name was nobody's and said nothing (PR#5581 and PR#5570 fixed the docs)."""
    assert found(check(name)) == [
        (
            "PR012",
            "warning",
            f"{written}: no accelerator runtime, container runtime or Ray reads {meant}; it is 1 edit(s) "
            f"from ASCEND_RT_VISIBLE_DEVICES, {_NPU}, so the server is not limited to the devices it "
            "names and uses every one it can see",
            f"Write ASCEND_RT_VISIBLE_DEVICES instead of {meant}.",
        )
    ]


def test_ascend6942_the_container_runtime_s_variable_inside_the_container() -> None:
    """was c: the reporter's fix was ASCEND_RT_VISIBLE_DEVICES inside the container (and the container
    runtime's variable at docker run)."""
    assert found(check("ascend6942_container_runtime_variable_inside.sh")) == [
        (
            "PR012",
            "warning",
            "ASCEND_VISIBLE_DEVICES=6,7: ASCEND_VISIBLE_DEVICES is read by the container runtime of "
            "Ascend NPU accelerators when it creates a container (Ascend/ascend-docker-runtime "
            "runtime/main.go), not by the server's process, which starts in no container this launch "
            "creates; the runtime in the process reads ASCEND_RT_VISIBLE_DEVICES, so "
            "ASCEND_VISIBLE_DEVICES here selects nothing",
            "Set ASCEND_RT_VISIBLE_DEVICES for the server (ASCEND_RT_VISIBLE_DEVICES=6,7), or give "
            "ASCEND_VISIBLE_DEVICES to the `docker run -e` that creates the container.",
        )
    ]


def test_ascend6063_cuda_visible_devices_on_npus() -> None:
    assert found(check("ascend6063_cuda_visible_devices_on_npu.cmd")) == [
        (
            "PR012",
            "warning",
            "CUDA_VISIBLE_DEVICES=4,5: CUDA_VISIBLE_DEVICES selects the devices of AMD GPU accelerators, "
            "Metax GPU accelerators, NVIDIA GPU accelerators; this server runs on Ascend NPU "
            "accelerators (the container is given /dev/davinci4), whose runtime reads "
            "ASCEND_RT_VISIBLE_DEVICES (ray 2.60.0 ray/_private/accelerators/npu.py), so "
            "CUDA_VISIBLE_DEVICES limits nothing there and the server uses every device it can see",
            "Use ASCEND_RT_VISIBLE_DEVICES instead of CUDA_VISIBLE_DEVICES.",
        )
    ]


@pytest.mark.parametrize("name", [n for n, c in CLASSES.items() if c[1] == "c" and not n.endswith(".txt")])
def test_the_misses_raise_no_alarm(name: str) -> None:
    """c: framework bugs, images, Ray's own variables on ROCm, a device plugin's: nothing in the "
    "launch."""
    assert found(check(name)) == []


def test_xpu20743_why_still_sites_a_dtype_warning() -> None:
    """d, left: vLLM's "Your device {device_name} doesn't support {config_dtype}. Falling back to ..." is
    first (partial, 0.95) for torch's "The device (...) doesn't support querying the available free memory.
    You can file an issue ...". Requiring the text to stop with the message or follow it to its end fixed
    it, but took the weak sites of sglang#2431 (b) and ollama#15545 (a) away: not kept."""
    first = explain(quoted_text(CASES / "xpu20743_free_memory_query.txt"))["matches"][0]
    assert (first["function"], first["how"], first["score"]) == ("_resolve_auto_dtype", "partial", 0.95)


def test_cpu19461_why_names_the_v1_switch() -> None:
    """b: the raise and its setting (VLLM_USE_V1), no fix worded."""
    section = explain(quoted_text(CASES / "cpu19461_v1_not_on_cpu.txt"))
    first = section["matches"][0]
    assert (first["framework"], first["function"], first["message"]) == (
        "vllm",
        "_raise_or_fallback",
        "VLLM_USE_V1=1 is not supported with {feature_name}.",
    )
