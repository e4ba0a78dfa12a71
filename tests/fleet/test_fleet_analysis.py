"""The fleet analysis on its own (pure) and the bounded parallel reader (real threads, real time)."""

from __future__ import annotations

import threading
import time

from argtrace.layers.fleet.analysis import Replica, Unanswered, analyze_fleet
from argtrace.layers.fleet.parallel import GRACE, run_bounded

MODEL = "/models/DeepSeek-V3"


def _node(target: str, given: dict[str, object], **defaults: object) -> Replica:
    values = {"model_path": MODEL, "tp_size": 1, "dtype": "auto", "nnodes": 1, "node_rank": 0, **defaults}
    values.update(given)
    return Replica(target, "host", "sglang", values, source="argv", given=frozenset({"model_path", *given}))


def test_per_rank_and_per_replica_settings_are_not_drift() -> None:
    replicas = [
        _node(
            "a pid 1", {"port": 30000, "node_rank": 0, "random_seed": 11, "dist_init_addr": "10.0.0.1:5000"}
        ),
        _node(
            "b pid 2", {"port": 30001, "node_rank": 1, "random_seed": 12, "dist_init_addr": "10.0.0.2:5000"}
        ),
    ]
    result = analyze_fleet(replicas)
    assert (result.drift, result.findings) == ([], [])


def test_a_value_given_on_one_node_against_the_default_on_another_is_drift() -> None:
    replicas = [_node("a pid 1", {}), _node("b pid 2", {"dtype": "float16"})]
    result = analyze_fleet(replicas)
    assert result.drift == [
        {
            "setting": "dtype",
            "values": [
                {"target": "a pid 1", "value": "auto", "at": "a pid 1", "default": True},
                {"target": "b pid 2", "value": "float16", "at": "b pid 2"},
            ],
            "model": MODEL,
            "role": None,
        }
    ]
    (finding,) = result.findings
    assert (finding.code, finding.severity, finding.setting, finding.at) == (
        "LV050",
        "warning",
        "dtype",
        "b pid 2",
    )
    assert finding.message == (
        f"the 2 replicas of {MODEL} disagree on dtype: a pid 1: auto (default), b pid 2: float16"
    )


def test_nodes_of_one_launch_get_the_multinode_rules_and_separate_launches_do_not() -> None:
    launch = {"nnodes": 2, "dist_init_addr": "10.0.0.1:5000", "tp_size": 16}
    other = {"nnodes": 2, "dist_init_addr": "10.0.0.9:5000", "tp_size": 16}
    replicas = [
        _node("n0 pid 1", {**launch, "node_rank": 0}),
        _node("n1 pid 2", {**launch, "node_rank": 0}),  # the same rank twice: PA031
        _node("m0 pid 3", {**other, "node_rank": 0}),  # another launch of the model: ranks 0 and 1, fine
        _node("m1 pid 4", {**other, "node_rank": 1}),
    ]
    result = analyze_fleet(replicas)
    assert [(f.code, f.setting, f.message) for f in result.findings] == [
        ("PA031", "node_rank", "servers 1, 2 of one multi-node launch all have node_rank 0")
    ]


def test_unanswered_targets_and_intent() -> None:
    live = Replica("http://a", "url", "sglang", {"model_path": MODEL, "context_length": 8192}, at={})
    result = analyze_fleet(
        [live],
        [Unanswered("gpu7", "host", "cannot connect (ssh: connect to host gpu7 port 22: No route to host)")],
        ("launch.sh", "sglang", {"model_path": MODEL, "context_length": "8192", "port": 30001}),
    )
    assert [(f.code, f.severity, f.at, f.message) for f in result.findings] == [
        (
            "LV051",
            "error",
            "gpu7",
            "gpu7: cannot connect (ssh: connect to host gpu7 port 22: No route to host)",
        )
    ]  # "8192" given and 8192 reported are one value; the port is the replica's own


def test_roles_are_grouped_apart() -> None:
    prefill = Replica("p", "url", "sglang", {"model_path": MODEL, "disaggregation_mode": "prefill", "x": 1})
    decode = Replica("d", "url", "sglang", {"model_path": MODEL, "disaggregation_mode": "decode", "x": 2})
    vllm_producer = Replica(
        "v", "url", "vllm", {"model": MODEL, "kv_transfer_config": {"kv_role": "kv_producer"}}
    )
    result = analyze_fleet([prefill, decode, vllm_producer])
    assert [(g["framework"], g["role"]) for g in result.groups] == [
        ("sglang", "prefill"),
        ("sglang", "decode"),
        ("vllm", "kv_producer"),
    ]
    assert result.drift == []


def test_run_bounded_keeps_to_jobs_and_aborts_what_overruns() -> None:
    running = 0
    most = 0
    lock = threading.Lock()
    release = {i: threading.Event() for i in range(6)}

    def work(i: int) -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        try:
            if i == 3:  # stuck until aborted
                release[i].wait(30)
                raise OSError("aborted")
            time.sleep(0.1)
            return i * 10
        finally:
            with lock:
                running -= 1

    aborted: list[int] = []

    def abort(i: int) -> None:
        aborted.append(i)
        release[i].set()

    started = time.monotonic()
    outcomes = run_bounded(list(range(6)), work, jobs=2, timeout=lambda i: 0.5, abort=abort)
    elapsed = time.monotonic() - started
    assert most == 2
    assert aborted == [3]
    assert [(o.item, o.result, o.timed_out) for o in outcomes] == [
        (0, 0, False),
        (1, 10, False),
        (2, 20, False),
        (3, None, True),
        (4, 40, False),
        (5, 50, False),
    ]
    assert elapsed < 0.5 + GRACE


def test_run_bounded_gives_up_on_what_ignores_its_abort_and_goes_on() -> None:
    never = threading.Event()

    def work(i: int) -> int:
        if i == 0:
            never.wait(60)  # ignores everything
        return i

    started = time.monotonic()
    outcomes = run_bounded([0, 1], work, jobs=1, timeout=lambda i: 0.2, grace=0.3)
    elapsed = time.monotonic() - started
    never.set()  # let the abandoned (daemon) thread end
    assert [(o.timed_out, o.result) for o in outcomes] == [(True, None), (False, 1)]
    assert 0.5 <= elapsed < 0.5 + 0.5  # its time and the grace, then the next item's slot


def test_an_older_release_on_one_node_is_drift() -> None:
    replicas = [_node("a pid 1", {"release": "0.5.23"}), _node("b pid 2", {"release": "0.5.19"})]
    (entry,) = analyze_fleet(replicas).drift
    assert (entry["setting"], [v["value"] for v in entry["values"]]) == ("release", ["0.5.23", "0.5.19"])
