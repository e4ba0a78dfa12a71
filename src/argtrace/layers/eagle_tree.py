"""The three counts of an SGLang EAGLE/NEXTN draft tree, as the release resolves them (RS088, RS085).

SGLang picks ``--speculative-num-steps``, ``--speculative-eagle-topk`` and ``--speculative-num-draft-tokens``
itself only when num_steps is None, and then asserts that the other two are None as well (0.5.5.post3
srt/server_args.py:1594, 0.5.14 srt/arg_groups/speculative_hook.py:320): a launch that writes topk or the
draft tokens without num_steps stops at a bare AssertionError (gpustack PR#3396). A launch that writes
num_steps alone keeps topk None, and the next ``speculative_eagle_topk > 1`` comparison raises "TypeError: '>'
not supported between instances of 'NoneType' and 'int'" (0.5.2 on; sglang PR#22895, aiconfigurator#1383).
With all three written and topk > 1, the draft tree keeps the best draft-tokens - 1 of its topk + (num_steps -
1) * topk^2 candidates (``torch.topk(score_list, num_draft_token - 1)``, organize_draft_results, 0.5.23
srt/speculative/eagle_utils.py:110): more than that fails with "selected index k out of range" while the
draft's CUDA graphs are captured (sglang#5160); topk 1 makes the server set the draft tokens to num_steps + 1
itself. Every line is read from the wheels by scripts/gen_sglang_eagle_tree.py
(frameworks/data/sglang_eagle_tree.json). Only EAGLE, EAGLE3 and NEXTN (which SGLang turns into EAGLE) are
judged, and not with --speculative-adaptive (which picks the counts from its own configuration).
"""

from __future__ import annotations

from argtrace.model import Evidence, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.model import Finding

_TABLE = "frameworks/data/sglang_eagle_tree.json"  # written by scripts/gen_sglang_eagle_tree.py
_ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN")
_COUNTS = ("speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def eagle_tree(report: Report) -> list[Finding]:
    """RS088 for the counts written in part, RS085 for a tree with fewer candidates than it keeps."""
    release = report.parsed_release("sglang")
    algorithm = report.written_value("speculative_algorithm")
    if release is None or not isinstance(algorithm, str) or algorithm.upper() not in _ALGORITHMS:
        return []
    if report.written_value("speculative_adaptive") is True:
        return []
    from argtrace.package_data import release_facts

    facts = release_facts(_TABLE, release)
    if not facts:
        return []
    written = [n for n in _COUNTS if report.written(n) is not None]
    if not written:
        return []
    if "speculative_num_steps" not in written:
        return _steps_missing(report, release, facts, written)
    if "speculative_eagle_topk" not in written:
        return _topk_missing(report, release, facts)
    return _tree_too_small(report, release, facts)


def _at(report: Report, name: str) -> str | None:
    setting = report.written(name)
    return setting.last_at if setting is not None else None


def _steps_missing(report: Report, release: str, facts: dict[str, Any], written: list[str]) -> list[Finding]:
    if "steps_assert" not in facts:
        return []
    from argtrace.rules.resolution import RS088

    shown = " and ".join(_flag(n) for n in written)
    at = _at(report, written[0])
    return [
        RS088.finding(
            f"{shown} without --speculative-num-steps: sglang {release} picks the three draft counts itself "
            "only when num_steps is None, and then asserts the other two are None as well "
            f"({facts['function']}, sglang/{facts['steps_assert']}): the start stops at a bare "
            "AssertionError",
            at=at,
            evidence=[
                Evidence("parser", at, ", ".join(f"{n}={report.written_value(n)}" for n in written)),
                Evidence("resolution", f"sglang {release}: {facts['steps_assert']}", facts["steps_guard"]),
            ],
            setting=written[0],
            fix="write --speculative-num-steps with them (and --speculative-eagle-topk), or leave all three "
            "to the server",
            severity="error",
        )
    ]


def _topk_missing(report: Report, release: str, facts: dict[str, Any]) -> list[Finding]:
    if "none_compare" not in facts:
        return []
    from argtrace.rules.resolution import RS088

    at = _at(report, "speculative_num_steps")
    steps = report.written_value("speculative_num_steps")
    return [
        RS088.finding(
            f"--speculative-num-steps {steps} without --speculative-eagle-topk: sglang {release} picks the "
            "draft counts itself only when num_steps is None, so topk stays None and its check "
            f"`{facts['none_compare_test']}` (sglang/{facts['none_compare']}) raises \"TypeError: '>' not "
            "supported between instances of 'NoneType' and 'int'\": the server does not start",
            at=at,
            evidence=[
                Evidence("parser", at, f"speculative_num_steps={steps}, speculative_eagle_topk not written"),
                Evidence("resolution", f"sglang {release}: {facts['steps_assert']}", facts["steps_guard"]),
                Evidence(
                    "resolution", f"sglang {release}: {facts['none_compare']}", facts["none_compare_test"]
                ),
            ],
            setting="speculative_num_steps",
            fix="write --speculative-eagle-topk (1 for a chain; the server then sets the draft tokens to "
            "num_steps + 1) and --speculative-num-draft-tokens, or leave all three to the server",
            severity="error",
        )
    ]


def _tree_too_small(report: Report, release: str, facts: dict[str, Any]) -> list[Finding]:
    tree = facts.get("tree_topk")
    steps = report.effective_int("speculative_num_steps")
    topk = report.effective_int("speculative_eagle_topk")
    draft = report.effective_int("speculative_num_draft_tokens")
    if not isinstance(tree, dict) or steps is None or topk is None or draft is None:
        return []
    if topk <= 1 or steps < 1 or report.written("speculative_num_draft_tokens") is None:
        return []  # topk 1: the server sets the draft tokens to num_steps + 1 itself
    candidates = topk + (steps - 1) * topk * topk
    if draft - 1 <= candidates:
        return []
    from argtrace.rules.resolution import RS085

    at = _at(report, "speculative_num_draft_tokens")
    return [
        RS085.finding(
            f"--speculative-num-draft-tokens {draft} keeps the best {draft - 1} of the draft tree's "
            f"candidates, and --speculative-eagle-topk {topk} with --speculative-num-steps {steps} makes "
            f"{candidates} ({topk} + ({steps} - 1) * {topk}^2): sglang {release}'s "
            f"torch.topk(score_list, num_draft_token - 1) ({tree['function']}, sglang/{tree['at']}) fails "
            'with "selected index k out of range" when the draft runs (its CUDA graphs are captured at '
            "start-up)",
            at=at,
            evidence=[
                Evidence(
                    "parser",
                    at,
                    f"speculative_num_steps={steps}, speculative_eagle_topk={topk}, "
                    f"speculative_num_draft_tokens={draft}",
                ),
                Evidence("resolution", f"sglang {release}: {tree['at']}", "torch.topk(score_list, N - 1)"),
            ],
            setting="speculative_num_draft_tokens",
            fix=f"lower --speculative-num-draft-tokens to at most {candidates + 1}, or raise "
            "--speculative-eagle-topk or --speculative-num-steps",
            severity="error",
        )
    ]
