"""A check's test that reads a local: the raise-site index substitutes the local's one dominating assignment
(resolver/local_defs.py), and RS032/RS036 evaluate what it then reads. Synthetic sources for each rule, and
the bundled indexes' own sites (generated from the wheels by scripts/gen_schemas.py) before -> after."""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers import start_raises
from argtrace.resolver import ast_index
from argtrace.resolver.raise_index import load_index

SOURCE = """
class ServerArgs:
    def check(self, n):
        if self.attention_backend == "x" or self.prefill_attention_backend == "x":
            prefill = (
                self.prefill_attention_backend
                if self.prefill_attention_backend is not None
                else self.attention_backend
            )
            if prefill == "x" and not is_sm100_supported():
                raise ValueError("one")
        if self.a:
            branch = self.b
        if branch == 1:
            raise ValueError("two")
        either = self.c or self.d
        nested = either == "y"
        for item in self.items:
            inside = self.e
            if inside and nested:
                raise ValueError("three")
        errors = []
        if self.f:
            errors.append("f")
        if errors:
            raise ValueError("four")
        choices = ["p", "q"]
        taken = n
        n = 2
        assert self.g in choices and taken, "five"
        twice = self.h
        twice = self.i
        if twice:
            raise ValueError("six")
"""


def _sites(tmp_path: Path) -> dict[str, dict[str, object]]:
    path = tmp_path / "server_args.py"
    path.write_text(SOURCE)
    return {str(s["message"]): s for s in ast_index.raise_sites([path], tmp_path)}


def test_a_dominating_single_assignment_is_substituted(tmp_path: Path) -> None:
    one = _sites(tmp_path)["one"]
    assert one["conditions"][-1] == "prefill == 'x' and (not is_sm100_supported())"
    assert one["resolved"][-1] == (
        "(self.prefill_attention_backend if self.prefill_attention_backend is not None "
        "else self.attention_backend) == 'x' and (not is_sm100_supported())"
    )
    assert one["locals"] == ["prefill"]
    assert one["fields"] == ["attention_backend", "prefill_attention_backend"]


def test_what_is_not_exact_stays_a_name(tmp_path: Path) -> None:
    sites = _sites(tmp_path)
    assert "resolved" not in sites["two"]  # assigned in a branch the test is not in
    # assigned in the loop: stays; ``nested`` is followed through ``either``
    assert sites["three"]["resolved"] == ["inside and (self.c or self.d) == 'y'"]
    assert "resolved" not in sites["four"]  # a list appended to later
    # a list display no call changes is followed; a parameter assigned again later is not
    assert sites["five"]["resolved"] == ["not (self.g in ['p', 'q'] and taken)"]
    assert "resolved" not in sites["six"]  # assigned twice


def test_the_evaluator_follows_a_conditional_expression() -> None:
    test = start_raises.compile_test("(self.p if self.p is not None else self.a) == 'x'")
    assert test[0] == "cmp" and test[1][0] == "if"
    read: list[str] = []
    values = {"p": None, "a": "x"}
    assert start_raises._evaluate(test, "sglang", frozenset(), values, read) is True
    assert read == ["p", "a"]  # the branch not taken is not read
    read = []
    assert start_raises._evaluate(test, "sglang", frozenset(), {"p": "y", "a": "x"}, read) is False
    assert read == ["p", "p"]


# Real sites of the bundled indexes: (release, file:line of the raise, the innermost condition as the source
# says it, as resolved). The assignment each follows is cited.
REAL = [
    (  # server_args.py:2368 prefill_backend = (... if self.prefill_attention_backend is not None else ...)
        "sglang",
        "0.5.10.post1",
        "sglang/srt/server_args.py:2374",
        "prefill_backend == 'trtllm_mha' and (not is_sm100_supported())",
        "(self.prefill_attention_backend if self.prefill_attention_backend is not None else "
        "self.attention_backend) == 'trtllm_mha' and (not is_sm100_supported())",
    ),
    (  # server_args.py:2379 decode_backend = (... if self.decode_attention_backend is not None else ...)
        "sglang",
        "0.5.10.post1",
        "sglang/srt/server_args.py:2387",
        "decode_backend == 'trtllm_mha' and (not (is_sm90_supported() or is_sm100_supported() or "
        "is_sm120_supported()))",
        "(self.decode_attention_backend if self.decode_attention_backend is not None else "
        "self.attention_backend) == 'trtllm_mha' and (not (is_sm90_supported() or is_sm100_supported() or "
        "is_sm120_supported()))",
    ),
    (  # kv_cache_hook.py:78 explicit_decode_backend = cfg.decode_attention_backend
        "sglang",
        "0.5.23",
        "sglang/srt/arg_groups/kv_cache_hook.py:80",
        "explicit_decode_backend not in (None, 'trtllm_mha')",
        "cfg.decode_attention_backend not in (None, 'trtllm_mha')",
    ),
    (  # lora_hook.py:252 lora_spec_algorithms = ("EAGLE", "EAGLE3", "DFLASH", "DSPARK")
        "sglang",
        "0.5.23",
        "sglang/srt/arg_groups/lora_hook.py:260",
        "cfg.speculative_algorithm not in lora_spec_algorithms",
        "cfg.speculative_algorithm not in ('EAGLE', 'EAGLE3', 'DFLASH', 'DSPARK')",
    ),
    (  # hisparse_hook.py:114 enable_spec = (cfg.speculative_algorithm is not None and ...upper() != "NONE")
        "sglang",
        "0.5.23",
        "sglang/srt/arg_groups/hisparse_hook.py:119",
        "enable_spec and (cfg.speculative_eagle_topk or 1) != 1",
        "(cfg.speculative_algorithm is not None and cfg.speculative_algorithm.upper() != 'NONE') and "
        "(cfg.speculative_eagle_topk or 1) != 1",
    ),
    (  # config/parallel.py:1106 allowed_backends = ("mp", "uni", "external_launcher")
        "vllm",
        "0.33.0",
        "vllm/config/parallel.py:1111",
        "self.distributed_executor_backend not in allowed_backends and self.nnodes > 1",
        "self.distributed_executor_backend not in ('mp', 'uni', 'external_launcher') and self.nnodes > 1",
    ),
]


def _site(framework: str, release: str, where: str) -> dict[str, object]:
    file, _, line = where.rpartition(":")
    index = load_index(framework, release) or {}
    (site,) = [s for s in index["sites"] if s["file"] == file and s["line"] == int(line)]
    return site


@pytest.mark.parametrize(("framework", "release", "where", "before", "after"), REAL)
def test_bundled_sites_resolved(framework: str, release: str, where: str, before: str, after: str) -> None:
    site = _site(framework, release, where)
    assert site["conditions"][-1] == before
    assert site["resolved"][-1] == after


def test_bundled_sites_left_as_written() -> None:
    # expert_pack_hook.py:39 errors = [], appended to in a loop (:48): its value at the raise is not []
    errors = _site("sglang", "0.5.23", "sglang/srt/arg_groups/expert_pack_hook.py:192")
    assert errors["conditions"] == ["errors"] and "resolved" not in errors
    # kv_cache_hook.py:121 prefill_backend, decode_backend = attention_backends_of(...): a tuple target
    # from a call stays a name where the one-assignment local uses_sm100_trtllm_nvfp4 is substituted
    nvfp4 = _site("sglang", "0.5.23", "sglang/srt/arg_groups/kv_cache_hook.py:252")
    assert nvfp4["resolved"][-1] == (
        "(cfg.kv_cache_dtype == 'nvfp4' and get_platform().is_sm100 and ('trtllm_mha' in (prefill_backend, "
        "decode_backend))) and cfg.disaggregation_mode != 'null'"
    )


def test_the_checks_evaluate_a_resolved_site() -> None:
    """RS032's evaluator on 0.5.23's lora_hook.py:260 site: before, ``lora_spec_algorithms`` was unknown (the
    function's early ``return`` for NGRAM, :247, is not recorded: why RS032 judges combinations only)."""
    site = _site("sglang", "0.5.23", "sglang/srt/arg_groups/lora_hook.py:260")
    values = {"speculative_algorithm": "STANDALONE"}
    assert start_raises.refuses({**site, "resolved": None}, "sglang", values, {}) is None
    assert start_raises.refuses(site, "sglang", values, {}) == (True, ("speculative_algorithm",))
    assert start_raises.refuses(site, "sglang", {"speculative_algorithm": "EAGLE3"}, {}) == (
        False,
        ("speculative_algorithm",),
    )


def test_rs036_reads_the_prefill_backend_through_its_local() -> None:
    """0.5.10.post1's "TRTLLM MHA backend for prefill ..." (server_args.py:2374) tests the local
    prefill_backend: with both backends given, an H100 (SM90) is refused, a B200 (SM100) is not; with
    --prefill-attention-backend not given its default may be rewritten first, so nothing is said."""
    from argtrace.layers.device_refusals import Device, refusals

    message = (
        "TRTLLM MHA backend for prefill is only supported on Blackwell GPUs (SM100). Please use a different "
        "prefill backend."
    )
    both = {"attention_backend": "trtllm_mha", "prefill_attention_backend": "trtllm_mha"}
    h100 = Device("H100", "nvidia", 9, 0)
    refused = refusals("sglang", "0.5.10.post1", h100, both)
    assert list(refused) == [message]
    assert refused[message][1] == ("attention_backend", "prefill_attention_backend")
    assert refusals("sglang", "0.5.10.post1", Device("B200", "nvidia", 10, 0), both) == {}
    assert refusals("sglang", "0.5.10.post1", h100, {"attention_backend": "trtllm_mha"}) == {}
    prefill_fa3 = {"attention_backend": "trtllm_mha", "prefill_attention_backend": "fa3"}
    assert refusals("sglang", "0.5.10.post1", h100, prefill_fa3) == {}


def test_the_evidence_shows_what_was_evaluated() -> None:
    site = _site("sglang", "0.5.10.post1", "sglang/srt/server_args.py:2374")
    assert start_raises.when_text(site) == (
        "when: (self.attention_backend == 'trtllm_mha' or self.decode_attention_backend == 'trtllm_mha' or "
        "self.prefill_attention_backend == 'trtllm_mha') and (self.prefill_attention_backend if "
        "self.prefill_attention_backend is not None else self.attention_backend) == 'trtllm_mha' and (not "
        "is_sm100_supported())"
    )
