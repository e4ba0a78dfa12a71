"""Expert-distribution metrics with a multi-step draft inside its CUDA-graph capture (RS078).

With ``--enable-expert-distribution-metrics`` SGLang's expert-distribution recorder starts recording at
start-up, and every ``ModelRunner.forward`` is wrapped in its forward-pass boundary (``with_forward_pass``);
the boundary's end is not capture-aware (``_on_forward_pass_end``) and, with the metrics on, rank 0's
accumulator reduces the counts and reads them back to the host (``_append_utilization_rate``:
``utilization_rate_gpu.item()``). EAGLE's ``draft_forward`` runs a full ``ModelRunner.forward`` for each
draft step but the last, inside the draft model's CUDA-graph capture, so with ``--speculative-num-steps``
of 2 or more a host sync runs while the stream captures: "operation not permitted when stream is
capturing", then "Capture cuda graph failed", and the server crash-loops at start-up; with one step the loop
breaks before any forward and the launch serves (sglang#32105 on 0.5.15.post1; the fix proposed in sglang
PR#32106).

Read in the wheels: 0.5.10.post1 (srt/eplb/expert_distribution.py:195 and :723, srt/speculative/
eagle_worker.py:680) and 0.5.17 (expert_distribution.py:200 and :767, srt/speculative/eagle_worker_v2.py:651,
srt/model_executor/model_runner.py:1422); said for those two and the releases between them (0.5.18 and 0.5.19
refuse the flag, 0.5.20 dropped it). 0.4.6.post5's draft loop called the bare model's forward (no recorder
boundary), so older releases are not said. A warning: the recorder counts a MoE model's experts, which the
flag implies but the launch does not show.
"""

from __future__ import annotations

from argtrace.model import Evidence, LayerResult, Report

FIRST_READ, LAST_READ = "0.5.10.post1", "0.5.17"
SOURCE = (
    "sglang/srt/eplb/expert_distribution.py: _on_forward_pass_end (:200) and _append_utilization_rate's "
    ".item() (:767), srt/speculative/eagle_worker_v2.py: draft_forward's ModelRunner.forward per step (:651) "
    "in 0.5.17; expert_distribution.py:195/:723, eagle_worker.py:680 in 0.5.10.post1"
)
# the algorithms whose worker runs EAGLE's multi-step draft_forward (NEXTN is EAGLE's alias, STANDALONE's
# worker subclasses EAGLE's); NGRAM drafts without a model
DRAFT_LOOP = {"EAGLE", "EAGLE3", "NEXTN", "STANDALONE"}


def _in_read_range(release: str) -> bool:
    from argtrace.frameworks.release_index import release_index

    releases = list(release_index("sglang").releases)
    if release not in releases or FIRST_READ not in releases or LAST_READ not in releases:
        return False
    return releases.index(FIRST_READ) <= releases.index(release) <= releases.index(LAST_READ)


def eplb_draft_capture(report: Report) -> LayerResult:
    """RS078 for an SGLang launch with expert-distribution metrics and a draft of two or more steps."""
    result = LayerResult()
    release = report.parsed_release("sglang")
    if release is None or not _in_read_range(release):
        return result  # (Report.parsed_release)
    if report.written_value("enable_expert_distribution_metrics") is not True:
        return result
    algorithm = report.written_value("speculative_algorithm")
    if not isinstance(algorithm, str) or algorithm.upper() not in DRAFT_LOOP:
        return result
    steps = report.effective_int("speculative_num_steps")
    if report.written_value("speculative_num_steps") is None or steps is None or steps < 2:
        return result
    if report.written_value("disable_cuda_graph") is True:
        return result  # no draft graph is captured
    from argtrace.rules.start_values import RS078

    metrics = report.setting("enable_expert_distribution_metrics")
    at = metrics.last_at if metrics is not None else None
    result.findings.append(
        RS078.finding(
            f'sglang {release} will fail to start ("operation not permitted when stream is capturing", '
            'then "Capture cuda graph failed"): --enable-expert-distribution-metrics makes every '
            "ModelRunner.forward end with the expert recorder's pass boundary, whose metrics read the counts "
            f"back to the host, and {algorithm}'s draft_forward runs a ModelRunner.forward for each of its "
            f"{steps} draft steps but the last inside the draft model's CUDA-graph capture (srt/eplb/"
            "expert_distribution.py, srt/speculative/eagle_worker*.py); with one step none runs there "
            "(assumed: a MoE model, whose experts the metrics count)",
            at=at,
            evidence=[
                Evidence(
                    "parser",
                    at,
                    f"enable_expert_distribution_metrics=True, speculative_algorithm={algorithm}, "
                    f"speculative_num_steps={steps}, CUDA graphs on",
                ),
                Evidence("resolution", SOURCE, "the pass boundary's host sync runs inside the draft capture"),
            ],
            setting="enable_expert_distribution_metrics",
            fix="drop --enable-expert-distribution-metrics, or use --speculative-num-steps 1 (with "
            "--speculative-num-draft-tokens 2), or --disable-cuda-graph; the capture-aware boundary is "
            "sglang PR#32106",
            severity="warning",
            basis="assumed",
        )
    )
    return result
