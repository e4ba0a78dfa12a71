"""The pipe25 batch (docs/real_cases.md, "Here-documents in pipelines and pipes into runners"): correct
launch scripts of 2025-2026 that hand a manifest to ``kubectl apply -f -`` through a pipe, measured before
any fix as a new user (no options, no resolver environment, no Hugging Face cache). ``cat <<EOF | kubectl
apply -f -`` (vLLM's Kubernetes guide, sgl-project/rbg's guide) had every manifest line starting with `-`
read as a command (SH004 errors, SH040 warnings); a producer argtrace cannot run (``kubectl ... -o json |
envsubst``) is named as not read. Each file under ``tests/data/real_cases_pipe25/`` is a reconstruction whose
header names its source."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check, unsourced
from tests.conftest import Launch, alarms

CASES = Path(__file__).resolve().parent / "data" / "real_cases_pipe25"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# file -> (first seen, after): what a new user met, as the "at a glance" table counts correct launches
CLASSES = {
    "vllm_docs_k8s_cpu.sh": ("d", "clean"),  # 7 SH004 errors on the manifests' `- ` lines and `---`
    "rbg_sglang_pd.sh": ("d", "clean"),  # 53 SH004 errors, 4 SH040 warnings
    "flix_tube_deploy.sh": ("clean", "clean"),
}
# the servers each launch starts, as argtrace should find them
# rbg: the three SGLang engines of the two RoleBasedGroups (read since fa26: layers/transport/pods.py); the
# router role starts sglang_router, which argtrace reads as no server
SERVERS = {"vllm_docs_k8s_cpu.sh": 1, "rbg_sglang_pd.sh": 3, "flix_tube_deploy.sh": 0}
MISSING: dict[str, str] = {}


def report_of(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name))


def test_every_case_is_listed_and_names_its_source() -> None:
    assert sorted(p.name for p in CASES.iterdir()) == sorted(CLASSES)
    assert unsourced(CASES, prefix="# Reconstructed (not copied) after https://") == []


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_a_correct_launch_gets_no_error_or_warning(name: str) -> None:
    assert alarms(report_of(name)) == []


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=MISSING[n])) if n in MISSING else n
        for n in sorted(SERVERS)
    ],
)
def test_the_servers_the_manifests_start_are_found(name: str) -> None:
    assert len(report_of(name)["servers"]) == SERVERS[name]


def test_the_vllm_guides_deployment_is_read_from_the_pipe() -> None:
    report = report_of("vllm_docs_k8s_cpu.sh")
    words = [w["text"] for w in report["servers"][0]["words"]]
    assert words[-3:] == ["vllm", "serve", "meta-llama/Llama-3.2-1B-Instruct"]
    files = [f for h in report["transport"]["hops"] for f in h.get("files", [])]
    assert [f.get("read") for f in files] == [  # both here-documents read through the pipe
        "the output of `cat <<EOF` on stdin at vllm_docs_k8s_cpu.sh:3",
        "the output of `cat <<EOF` on stdin at vllm_docs_k8s_cpu.sh:24",
    ]


def test_a_producer_argtrace_cannot_run_is_named() -> None:
    report = report_of("flix_tube_deploy.sh")
    files = [f for h in report["transport"]["hops"] for f in h.get("files", [])]
    assert files == [
        {
            "file": "-",
            "read": "its stdin is the output of `envsubst`, which the script does not give statically (only "
            "cat, echo, printf and envsubst of known text are followed): not read",
        }
    ]
