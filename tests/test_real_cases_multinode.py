"""Multi-node launches of SGLang and vLLM (docs/real_cases.md, "Multi-node launches"), measured first.

15 public failure reports collected on 2026-12-03 with the `search` tool (corpus `issues`): SGLang's
``--nnodes/--node-rank/--dist-init-addr``, vLLM's ``--nnodes/--node-rank/--master-addr`` and ``--headless``,
Ray clusters, SLURM batch scripts, Singularity/Apptainer, LeaderWorkerSets and kthena's ModelServing, and the
network interface variables (``GLOO_SOCKET_IFNAME``, ``NCCL_SOCKET_IFNAME``) behind Gloo's "connectFullMesh
failed". Each case under ``tests/data/real_cases_multinode/`` names its URL on its first line: ``.sh`` and
``.yaml`` files are checked as files, ``.cmd`` files with ``-c``, ``.txt`` files are the error text a report
quotes (``argtrace why``), ``logs/*.log`` a quoted log (``argtrace log``). The 5 correct launches collected
with them are in the false-alarm gate (``tests/data/false_alarms/scripts/mn15_*.sh``,
``tests/data/false_alarms/k8s/mn15_*.yaml``) and are checked here too. A new user's machine: no resolver
environment, no Hugging Face cache, no release passed (none of the reports names one that changes a verdict).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.commands.why_text import render_why
from tests.batches import recorded_check, table_counts, unsourced
from tests.conftest import Launch, alarms, check_launch, log_report, quoted_text, quoted_url

CASES = Path(__file__).resolve().parent / "data" / "real_cases_multinode"
GATE = Path(__file__).resolve().parent / "data" / "false_alarms"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check`, `why` and `log`: first seen (on ca8b1c1, this
# branch's base) and now.
CLASSES = {
    "sglang3467_dist_init_addr_differs.sh": ("b", "a"),
    "sglang3206_singularity_hostname_rank1.sh": ("c", "a"),  # a since session 28 (layers/shell/holes.py)
    "mia48_vllm_nnodes_without_node_rank.sh": ("c", "a"),
    "awsdoeks51_gloo_ifname_nccl_syntax.yaml": ("c", "a"),  # with its .txt (the same report)
    "awsdoeks50_gloo_loopback_fallback.txt": ("c", "a"),
    "logs/awsdoeks69_actorhandle_after_gloo_loopback.log": ("b", "a"),
    "sglang3226_gloo_connectfullmesh.txt": ("c", "a"),
    "gpustack2125_gloo_connectfullmesh_vllm.txt": ("c", "a"),
    "deepresearch107_gloo_ifname_eth0.txt": ("c", "a"),
    "gpustack4128_numeric_hostname.txt": ("c", "a"),
    "kthena487_undefined_leader_address.yaml": ("c", "c"),
    "llmflux141_sbatch_nodes_unused.sh": ("c", "a"),
    "mia3_sglang_no_host_ip.sh": ("c", "c"),
    "vllm7074_ifname_on_head_only.cmd": ("c", "a"),  # with its .txt (the same report)
    "primus1063_ifname_is_an_address.txt": ("c", "a"),
}
# the second file of a report classed once, under its first
SAME_REPORT = {"awsdoeks51_gloo_ifname_nccl_syntax.txt", "vllm7074_worker_loopback.txt"}

CORRECT = [
    GATE / "scripts" / "mn15_sglang3467_same_dist_init_addr.sh",
    GATE / "scripts" / "mn15_mia_upstream_node_ranks.sh",
    GATE / "scripts" / "mn15_llmflux141_srun_rank_launch.sh",
    GATE / "scripts" / "mn15_sglang29991_apptainer_srun.sh",
    GATE / "k8s" / "mn15_awsdoeks51_gloo_ifname_resolved.yaml",
]


def test_batch_inventory_and_counts() -> None:
    files = {str(p.relative_to(CASES)) for p in CASES.rglob("*") if p.is_file()}
    assert files == set(CLASSES) | SAME_REPORT
    assert table_counts(CLASSES) == ([0, 2, 13, 0], [13, 0, 2, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, recursive=True) == []


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name))


def found(report: dict[str, Any]) -> list[tuple[str, str, str, str | None, str | None]]:
    return [(f["code"], f["severity"], f["message"], f["fix"], f.get("basis")) for f in alarms(report)]


# --- check: the launches ----------------------------------------------------------------------------------


def test_sglang3467_a_second_address_on_node_2_is_one_launch_split_by_it() -> None:
    """was b: PA030 info "read as separate launches"; the ranks 0 and 1 of nnodes 2 are one launch."""
    assert found(check("sglang3467_dist_init_addr_differs.sh")) == [
        (
            "PA030",
            "warning",
            "2 starts of /data/fffan/models/DeepSeek-R1-Distill-Llama-70B name different rendezvous "
            "(server(s) "
            "1: dist_init_addr 10.68.27.12:5000; server(s) 2: dist_init_addr 10.0.1.104:5000), and their "
            "node "
            "ranks (0, 1) are exactly one launch of nnodes 2: every node must meet at rank 0's address "
            "(10.68.27.12:5000), so each waits at its own and the launch hangs",
            "give every node --dist-init-addr 10.68.27.12:5000, rank 0's (one variable the node commands "
            "share)",
            "assumed",
        )
    ]


def test_mia48_a_headless_worker_without_node_rank_is_node_0_again() -> None:
    assert found(check("mia48_vllm_nnodes_without_node_rank.sh")) == [
        (
            "PA046",
            "warning",
            "--headless on a --nnodes 2 start without --node-rank: vLLM takes node rank 0, the head's "
            "place, so "
            'this worker joins as a second rank 0 (its log says "Inferred data_parallel_rank 0 from '
            "node_rank "
            "0\") and runs an engine that waits for a front end instead of the head's workers; the launch "
            "hangs at the rendezvous",
            "give the worker node --node-rank 1 (the head keeps 0)",
            "assumed",
        )
    ]


def test_awsdoeks51_nccl_s_exclusion_list_in_gloo_socket_ifname() -> None:
    assert found(check("awsdoeks51_gloo_ifname_nccl_syntax.yaml")) == [
        (
            "TP030",
            "error",
            "GLOO_SOCKET_IFNAME=^lo,docker,veth,eni uses NCCL's syntax (`^` excludes, `=` matches exactly): "
            "torch splits GLOO_SOCKET_IFNAME at commas and Gloo looks each part up as a whole interface "
            "name, "
            "so `^lo` names no interface and the server's first Gloo group stops with \"Unable to find "
            "address "
            'for: ^lo"',
            "set GLOO_SOCKET_IFNAME to the interface's own name (`ip -o -4 addr` lists them; the one that "
            "reaches the other nodes) and keep the `^...` list for NCCL_SOCKET_IFNAME only",
            "static",
        )
    ]


def test_llmflux141_a_two_node_job_whose_batch_shell_starts_a_one_node_server() -> None:
    """was c: SH040 "argtrace does not follow `apptainer`"; now the server inside `apptainer exec` is read."""
    assert found(check("llmflux141_sbatch_nodes_unused.sh")) == [
        (
            "PA047",
            "warning",
            "the job allocates 2 node(s) (llmflux141_sbatch_nodes_unused.sh:4), but the batch shell starts "
            "server(s) 1 itself, without srun: SLURM runs the batch script on the first node only, the "
            "server(s) "
            "fit on it and span no nodes, so the other 1 node(s) are allocated for the job's walltime and "
            "never "
            "used",
            "ask for one node (`#SBATCH --nodes=1`), or start the server on every node as a multi-node "
            "launch "
            "(one `srun` task per node with `--nnodes`/`--node-rank`)",
            "assumed",
        )
    ]


def test_sglang3206_the_node_s_own_name_inside_a_bash_c_string() -> None:
    """was c: the `bash -c` string holds `$(hostname)`, which the outer shell expands, so the string was
    unknown and its server not followed; since session 28 the string's other words are read with that one
    unknown (layers/shell/holes.py), and PA045 names the cause."""
    ((code, severity, message, _fix, basis),) = found(check("sglang3206_singularity_hostname_rank1.sh"))
    assert (code, severity, basis) == ("PA045", "warning", "assumed")
    assert message.startswith(
        "--dist-init-addr $(hostname):5000 on the node started with --node-rank 1: the node's own shell "
        "expands $(hostname) to that node's own name"
    )


@pytest.mark.parametrize(
    "name",
    [
        # kthena's ModelServing resource is not read as pods; `$(Leader_Node_Address)` stays a Kubernetes
        # reference argtrace does not see
        "kthena487_undefined_leader_address.yaml",
        # which address SGLang's MessageQueue advertises is the node's own auto-detection
        "mia3_sglang_no_host_ip.sh",
        # whether tp 16 spans nodes through Ray depends on the GPUs per node, which the command does not say
        "vllm7074_ifname_on_head_only.cmd",
    ],
)
def test_what_check_still_does_not_find(name: str) -> None:
    assert found(check(name)) == []


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.name)
def test_the_correct_launches_raise_nothing(path: Path) -> None:
    report = check_launch(path.parent, Launch(path.name))
    assert report["servers"]
    assert found(report) == []


# --- why and log: the quoted errors ----------------------------------------------------------------------

WHY_FIRST = {
    "awsdoeks50_gloo_loopback_fallback.txt": "gloo-loopback-fallback",
    "awsdoeks51_gloo_ifname_nccl_syntax.txt": "gloo-socket-ifname-not-found",
    "sglang3226_gloo_connectfullmesh.txt": "gloo-connect-full-mesh",
    "gpustack2125_gloo_connectfullmesh_vllm.txt": "gloo-connect-full-mesh",
    "deepresearch107_gloo_ifname_eth0.txt": "gloo-socket-ifname-not-found",
    "gpustack4128_numeric_hostname.txt": "gloo-hostname-no-interface",
    "primus1063_ifname_is_an_address.txt": "gloo-socket-ifname-not-found",
    "vllm7074_worker_loopback.txt": "gloo-loopback-fallback",
}


@pytest.mark.parametrize(("name", "signature"), sorted(WHY_FIRST.items()))
def test_why_shows_the_interface_signature_first(name: str, signature: str) -> None:
    path = CASES / name
    assert quoted_url(path).startswith("https://github.com/")
    screen = render_why(explain(quoted_text(path))).splitlines()
    first = next(line for line in screen if line.startswith(("log signature", "vllm:", "sglang:")))
    assert first.startswith(f"log signature {signature} (LG007): ")
    fix = next(line for line in screen if line.strip().startswith("fix:"))
    assert "GLOO_SOCKET_IFNAME" in fix


def test_why_puts_the_cause_before_the_site_that_reports_the_failure() -> None:
    """awsdoeks51: "EngineCore failed to start." is vLLM's site (matched best) but only reports start-up
    failed, its own signature says the cause is above; the Gloo line's signature now comes first."""
    screen = render_why(explain(quoted_text(CASES / "awsdoeks51_gloo_ifname_nccl_syntax.txt")))
    lines = screen.splitlines()
    assert lines[0].startswith("log signature gloo-socket-ifname-not-found (LG007): ")
    assert "(the site below reports the failure this error caused: EngineCore failed to start.)" in lines
    site = lines.index(
        "vllm: exception logged in EngineCoreProc.run_engine_core (vllm/v1/engine/core.py:1584)"
    )
    assert site > lines.index(
        "(the site below reports the failure this error caused: EngineCore failed to start.)"
    )


def test_awsdoeks69_log_names_the_gloo_loopback_not_argument_validation() -> None:
    """was b: LG011 "died during argument validation with: RuntimeError: Gloo connectFullMesh ..." and the
    fix "Read the exception"; the Ray actor handle error after it is a consequence."""
    report = log_report(CASES / "logs" / "awsdoeks69_actorhandle_after_gloo_loopback.log")
    errors = [
        (f["code"], f["message"].split("]", 1)[0]) for f in report["findings"] if f["severity"] == "error"
    ]
    assert errors == [("LG007", "[gloo-connect-full-mesh-loopback")]
    finding = next(f for f in report["findings"] if f["severity"] == "error")
    assert finding["fix"].startswith(
        "Set GLOO_SOCKET_IFNAME (and NCCL_SOCKET_IFNAME) in the server's environment"
    )


# --- the mechanisms on inputs that are not the reports ----------------------------------------------------


def _check_command(tmp_path: Path, command: str) -> list[tuple[str, str, str]]:
    (tmp_path / "c.cmd").write_text("# https://example.invalid/ variant\n" + command + "\n")
    return [(f["code"], f["severity"], f["message"]) for f in alarms(check_launch(tmp_path, Launch("c.cmd")))]


SG = "python3 -m sglang.launch_server --model-path m --tp-size 16 --nnodes 2"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            f"{SG} --node-rank 1 --dist-init-addr $(hostname):5000",
            "--dist-init-addr $(hostname):5000 on the node started with --node-rank 1: the node's own shell "
            "expands $(hostname) to that node's own name",
        ),
        (
            f"{SG} --node-rank 1 --dist-init-addr `hostname`:5000",
            "--dist-init-addr `hostname`:5000 on the node started with --node-rank 1: the node's own shell "
            "expands `hostname` to that node's own name",
        ),
        (
            'vllm serve m --tensor-parallel-size 8 --nnodes 2 --node-rank 1 --master-addr "$(hostname -I | '
            "cut "
            '-d" " -f1)" --headless',
            '--master-addr $(hostname -I | cut -d" " -f1) on the node started with --node-rank 1: the '
            "node's "
            'own shell expands $(hostname -I | cut -d" " -f1) to that node\'s own name',
        ),
        (
            "vllm serve m --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-start-rank 1 "
            "--data-parallel-address $HOSTNAME --headless",
            "--data-parallel-address $HOSTNAME on the node started with --data-parallel-start-rank 1: the "
            "node's own shell expands $HOSTNAME to that node's own name",
        ),
    ],
)
def test_pa045_variants(tmp_path: Path, command: str, expected: str) -> None:
    got = [f for f in _check_command(tmp_path, command) if f[0] == "PA045"]
    assert len(got) == 1 and got[0][1] == "warning" and got[0][2].startswith(expected), got


@pytest.mark.parametrize(
    "command",
    [
        f"{SG} --node-rank 0 --dist-init-addr $(hostname):5000",  # rank 0 serves the store on itself
        f"{SG} --node-rank 1 --dist-init-addr $(hostnamectl):5000",  # not the node's own name
        f"{SG} --node-rank 1 --dist-init-addr $HEAD:5000",
    ],
)
def test_pa045_not_on_rank_0_or_another_address(tmp_path: Path, command: str) -> None:
    assert [f for f in _check_command(tmp_path, command) if f[0] == "PA045"] == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("=eth0", "GLOO_SOCKET_IFNAME==eth0 uses NCCL's syntax"),
        ("eth0,^docker", "GLOO_SOCKET_IFNAME=eth0,^docker uses NCCL's syntax"),
        ("10.0.0.5", "GLOO_SOCKET_IFNAME=10.0.0.5 gives an address where Gloo takes interface names"),
        ("eth0", None),
        ("eth0,ib0", None),
    ],
)
def test_tp030_gloo_values(tmp_path: Path, value: str, expected: str | None) -> None:
    command = f"GLOO_SOCKET_IFNAME={value} vllm serve m --tensor-parallel-size 2 --nnodes 2 --node-rank 0"
    got = [message for code, _s, message in _check_command(tmp_path, command) if code == "TP030"]
    if expected is None:
        assert got == []
    else:
        assert len(got) == 1 and got[0].startswith(expected), got


def test_tp030_an_address_in_nccl_socket_ifname_but_not_an_excluded_one(tmp_path: Path) -> None:
    base = "vllm serve m --tensor-parallel-size 2"
    assert [
        f[2] for f in _check_command(tmp_path, f"NCCL_SOCKET_IFNAME=10.0.0.5 {base}") if f[0] == "TP030"
    ] == [
        "NCCL_SOCKET_IFNAME=10.0.0.5 gives an address where NCCL takes interface name prefixes: no interface "
        'name begins with 10.0.0.5, and NCCL\'s bootstrap stops with "no socket interface found"'
    ]
    assert [
        f for f in _check_command(tmp_path, f"NCCL_SOCKET_IFNAME=^lo,docker {base}") if f[0] == "TP030"
    ] == []


def test_pa046_not_when_the_rank_is_written(tmp_path: Path) -> None:
    base = "vllm serve m --tensor-parallel-size 8 --nnodes 2 --master-addr 10.0.0.1"
    for tail in ("--node-rank 1 --headless", "--node-rank 0 --headless", ""):
        assert [f for f in _check_command(tmp_path, f"{base} {tail}") if f[0] == "PA046"] == [], tail


def _script(tmp_path: Path, text: str) -> list[tuple[str, str, str]]:
    (tmp_path / "job.sh").write_text(text)
    return [
        (f["code"], f["severity"], f["message"]) for f in alarms(check_launch(tmp_path, Launch("job.sh")))
    ]


def test_pa047_not_for_one_node_more_gpus_than_a_node_or_srun(tmp_path: Path) -> None:
    head = "#!/bin/bash\n#SBATCH --nodes={n}\n#SBATCH --gpus-per-node=4\n"
    cases = {
        "one node": head.format(n=1) + "vllm serve m --tensor-parallel-size 4\n",
        "tp 8 over two 4-GPU nodes (Ray)": head.format(n=2) + "vllm serve m --tensor-parallel-size 8 "
        "--distributed-executor-backend ray\n",
        "under srun": head.format(n=2) + "srun -N1 vllm serve m --tensor-parallel-size 4\n",
    }
    for what, text in cases.items():
        assert [f for f in _script(tmp_path, text) if f[0] == "PA047"] == [], what


def test_an_exported_unknown_value_reaches_srun_bash_c(tmp_path: Path) -> None:
    """The correct LLMFlux launch's mechanism: `export HEAD=$(scontrol ...)` read in `srun bash -c '...'`
    was an empty word (SH026 warning); the task's shell has it, unknown."""
    text = (
        "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=4\n"
        'export HEAD=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)\n'
        "srun --ntasks-per-node=1 bash -c 'vllm serve m --tensor-parallel-size 8 --nnodes 2 "
        '--node-rank "$SLURM_PROCID" --master-addr "$HEAD"\'\n'
    )
    assert _script(tmp_path, text) == []
    # srun --export=NONE keeps it (and PATH) from the task: then the word is empty
    kept = text.replace("srun --ntasks", "srun --export=NONE --ntasks")
    assert [(c, s, m) for c, s, m in _script(tmp_path, kept) if c == "SH026"] == [
        ("SH026", "warning", '`"$HEAD"` is empty: `--master-addr` gets an empty value')
    ]
