"""SGLang's ``extra_buffer_lazy`` Mamba strategy with speculative decoding, on the releases that refuse it
(RS086).

SGLang 0.5.13.post1-0.5.16 assert that ``extra_buffer_lazy`` is not used with speculative decoding
("extra_buffer_lazy unsupported with spec.", ``_validate_mamba_extra_buffer`` in srt/server_args.py; 0.5.14
line 4372), but only inside ``if speculative_num_draft_tokens is not None``; the validation runs from
``_handle_model_specific_adjustments``, which ``ServerArgs.__post_init__`` calls before
``handle_speculative_decoding`` fills the speculative defaults (0.5.14 lines 2533 and 2587). So a launch
that writes ``--speculative-num-draft-tokens`` stops at the assertion, and one that leaves it to the
defaults passes the check and starts a combination the release does not support: sglang#34786 (0.5.14,
NEXTN, lazy mode) died at the first verify with a TypeError in ``set_mamba_track_indices_from_reqs``
(``mamba_next_track_idx`` is None: lazy mode skips its assignment in the extend path). 0.5.17 and later
support the pair for EAGLE and NEXTN drafts (0.5.17 refuses DFLASH with it). The assertion, its guard and
the call order are read from the wheels by scripts/gen_sglang_lazy_spec.py
(frameworks/data/sglang_lazy_spec.json). The check reads the strategy only for hybrid architectures, which
a launch writing it is taken to serve.
"""

from __future__ import annotations

from argtrace.model import Evidence, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.model import Finding

_TABLE = "frameworks/data/sglang_lazy_spec.json"  # written by scripts/gen_sglang_lazy_spec.py
_STRATEGIES = ("mamba_radix_cache_strategy", "mamba_scheduler_strategy")
_FIX = (
    "use the extra_buffer strategy with speculative decoding (--mamba-scheduler-strategy extra_buffer, or "
    "--mamba-radix-cache-strategy where the release has it), or run sglang 0.5.17 or later, which supports "
    "extra_buffer_lazy with EAGLE and NEXTN drafts (0.5.17 still refuses it with DFLASH)"
)


def _releases() -> dict[str, Any]:
    from argtrace.package_data import releases_table

    return releases_table(_TABLE)


def _refuses(facts: Any) -> bool:
    return (
        isinstance(facts, dict)
        and "assert_at" in facts
        and bool(facts.get("before_spec_defaults"))
        and bool(facts.get("guard_reads_draft_tokens"))
    )


def lazy_spec(report: Report) -> list[Finding]:
    """RS086: extra_buffer_lazy with a speculative algorithm on a release that asserts against the pair."""
    if report.framework.name != "sglang" or report.written_value("speculative_algorithm") in (None, "None"):
        return []
    strategy = next(
        (report.written(n) for n in _STRATEGIES if report.written_value(n) == "extra_buffer_lazy"), None
    )
    release = report.parsed_release("sglang")
    if strategy is None or release is None or report.written_value("disable_radix_cache") is True:
        return []
    from argtrace.rules.resolution import RS086

    at = strategy.last_at
    draft = report.written("speculative_num_draft_tokens")
    evidence = [Evidence("parser", at, f"{strategy.name}=extra_buffer_lazy, speculative decoding on")]
    facts = _releases().get(release)
    if _refuses(facts):
        assert isinstance(facts, dict)
        where = f"sglang/{facts['assert_at']}"
        evidence.append(
            Evidence(
                "resolution", f"sglang {release}: {where}", f"the assertion runs only if {facts['guard']}"
            )
        )
        if draft is not None:
            return [
                RS086.finding(
                    f"sglang {release} refuses extra_buffer_lazy with speculative decoding: with "
                    f"--speculative-num-draft-tokens {draft.effective} its Mamba radix-cache check asserts "
                    f'"{facts["message"]}" ({facts["function"]}, {where}) and the server does not start',
                    at=at,
                    evidence=evidence,
                    setting=strategy.name,
                    fix=_FIX,
                    severity="error",
                )
            ]
        return [
            RS086.finding(
                f"sglang {release} does not support extra_buffer_lazy with speculative decoding, and its "
                f'check ("{facts["message"]}", {facts["function"]}, {where}) does not run here: it tests '
                "--speculative-num-draft-tokens before the speculative defaults fill it "
                "(handle_speculative_decoding runs after the check in ServerArgs.__post_init__), and this "
                "launch leaves it to the defaults, so the server starts the pair unchecked (sglang#34786 on "
                "0.5.14: TypeError in set_mamba_track_indices_from_reqs at the first verify)",
                at=at,
                evidence=evidence,
                setting=strategy.name,
                fix=_FIX,
            )
        ]
    if report.framework.version is not None:
        return []
    others = [r for r in report.framework.accepted_by or () if r != release and _refuses(_releases().get(r))]
    if not others:
        return []
    from argtrace.layers.disagg_spec import _span

    return [
        RS086.finding(
            f"if this runs sglang {_span(others)}, extra_buffer_lazy with speculative decoding is a pair the "
            'release refuses ("extra_buffer_lazy unsupported with spec.") only when --speculative-num-draft-'
            "tokens is written; left to the defaults it starts unchecked and can die at the first verify "
            f"(sglang#34786 on 0.5.14); sglang {release}, which the analysis assumes, supports it",
            at=at,
            evidence=evidence,
            setting=strategy.name,
            fix=_FIX,
            severity="info",
            basis="assumed",
        )
    ]
