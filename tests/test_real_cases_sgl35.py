"""SGLang batch of the 35th session (docs/real_cases.md, "SGLang sgl35: hybrid models, speculative decoding
and MTP"), measured before any fix.

Eight failure reports of 2025-2026 whose cause lies in a hybrid (Mamba / linear-attention) model's settings
or its speculative decoding (HiCache's host pools for Qwen3.5, extra_buffer_lazy with NEXTN on 0.5.14,
spec v2 with extra_buffer, Granite-4.0-H with an n-gram draft, Qwen3-Next MTP with FlashInfer and an FP8
KV cache, n-gram drafts on Qwen3.5, fine-tuned checkpoints served with their MTP head) and two correct
launches of Qwen3-Next with the extra buffer (``ok_*``). Each case under ``tests/data/real_cases_sgl35/``
names its URL in its header. A new user's machine (no resolver environment, no Hugging Face cache);
``--gpu`` and ``--framework-version`` where the report names them. Each command runs once per worker
(tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.batches import (
    RECONSTRUCTED,
    finding,
    missing_cases,
    recorded_check,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import REPO, Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl35"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report, by the better of `check` and `why`: first seen (2d1cff86) and now.
CLASSES = {
    # MM014 was a note of 160 GB for the node (per rank, not the Mamba pool's second 20 GB)
    "sglang29034_qwen35_hicache_size_mamba_host.cmd": ("b", "a"),
    "sglang34786_qwen36_nextn_lazy_3090.sh": ("c", "a"),  # RS086
    "sglang27325_qwen36_specv2_extra_buffer.sh": ("c", "c"),
    "vllm57721_granite4h_ngram_spec.cmd": ("c", "c"),
    "vllm33364_qwen3next_mtp3_flashinfer_fp8kv.cmd": ("c", "c"),
    "vllm39273_qwen35_ngram_corrupted.cmd": ("c", "c"),
    "msswift6221_qwen3next_finetuned_mtp_vllm.cmd": ("c", "c"),
    "msswift9050_qwen35_mtp_trained_vllm.cmd": ("c", "c"),
}
# the GPU and the release a report names (sglang#29034 quotes hybrid_pool_assembler.py:513-518: 0.5.14's)
OPTIONS: dict[str, tuple[str, ...]] = {
    "sglang29034_qwen35_hicache_size_mamba_host.cmd": ("--gpu", "h200x8", "--framework-version", "0.5.14"),
    "sglang34786_qwen36_nextn_lazy_3090.sh": ("--gpu", "rtx-3090x2", "--framework-version", "0.5.14"),
    "vllm33364_qwen3next_mtp3_flashinfer_fp8kv.cmd": ("--gpu", "h100x4"),
    "vllm39273_qwen35_ngram_corrupted.cmd": ("--gpu", "gh200x1"),
}
CORRECT = [
    "ok_sglangpr16657_qwen3next_extra_buffer_page128.cmd",
    "ok_sglangpr19663_qwen3next_fp8_hicache_extra_buffer.cmd",
]


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([0, 1, 7, 0], [2, 0, 6, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-05: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


# what `check` rightly says of a failure report since this batch (every other gives no error or warning)
ALARMS = {
    "sglang29034_qwen35_hicache_size_mamba_host.cmd": [("MM014", "warning")],
    "sglang34786_qwen36_nextn_lazy_3090.sh": [("RS086", "warning")],
}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm from `check` on any failure report, before or after: only the two causes found."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_hicache_size_pinned_twice_on_a_hybrid_model() -> None:
    """sglang#29034: 0.5.14 passes the unscaled --hicache-size to the Mamba host pool too (a)."""
    report = check("sglang29034_qwen35_hicache_size_mamba_host.cmd")
    note = finding(report, "MM014")
    assert note["message"] == (
        "--hicache-size 20 is pinned twice per rank on this hybrid model: sglang 0.5.14 gives the Mamba host "
        "pool the same unscaled size as the KV host pool (MambaPoolHost(..., server_args.hicache_size), "
        "sglang/srt/mem_cache/hybrid_cache/hybrid_pool_assembler.py:513), so each rank pins 40 GB and the 8 "
        "ranks on this node (tp_size 8 x pp_size 1) 320 GB of host memory, twice what the flag names"
    )
    assert note["fix"] == (
        "halve --hicache-size (sglang 0.5.14 pins it twice per rank), or use --hicache-ratio, which sizes "
        "each host pool from its own device pool; sglang 0.5.17 and later split --hicache-size between the "
        "pools"
    )
    assert (note["severity"], note["basis"], note["setting"]) == ("warning", "framework-code", "hicache_size")
    assert [e["text"] for e in note["evidence"]] == [
        "--hicache-size 20, 8 ranks per node",
        "mamba_full_memory_ratio: read by hybrid models only",
        "MambaPoolHost(..., server_args.hicache_size)",
    ]


def test_lazy_buffer_with_nextn_on_a_release_that_refuses_the_pair() -> None:
    """sglang#34786: 0.5.14 asserts against extra_buffer_lazy with speculative decoding only when
    --speculative-num-draft-tokens is written; left to the defaults, the pair starts unchecked (a)."""
    note = finding(check("sglang34786_qwen36_nextn_lazy_3090.sh"), "RS086")
    assert note["message"] == (
        'sglang 0.5.14 does not support extra_buffer_lazy with speculative decoding, and its check ("extra_'
        'buffer_lazy unsupported with spec.", _validate_mamba_extra_buffer, sglang/srt/server_args.py:4372) '
        "does not run here: it tests --speculative-num-draft-tokens before the speculative defaults fill it "
        "(handle_speculative_decoding runs after the check in ServerArgs.__post_init__), and this launch "
        "leaves it to the defaults, so the server starts the pair unchecked (sglang#34786 on 0.5.14: "
        "TypeError in set_mamba_track_indices_from_reqs at the first verify)"
    )
    assert note["fix"] == (
        "use the extra_buffer strategy with speculative decoding (--mamba-scheduler-strategy extra_buffer, "
        "or --mamba-radix-cache-strategy where the release has it), or run sglang 0.5.17 or later, which "
        "supports extra_buffer_lazy with EAGLE and NEXTN drafts (0.5.17 still refuses it with DFLASH)"
    )
    assert (note["severity"], note["basis"]) == ("warning", "framework-code")


def _check(command: str, *options: str) -> list[dict[str, Any]]:
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command]).json
    return [f for f in report["findings"] if f["code"] in ("MM014", "RS086")]


_HICACHE = (
    "python -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --enable-hierarchical-cache {extra}"
)


def test_mm014_doubles_only_for_a_hybrid_model_on_the_releases_that_do() -> None:
    """Twice per rank (a warning, one rank included) on 0.5.10.post1-0.5.16 with a hybrid-only flag; the
    per-rank note from 0.5.17 (the pools split the size) and without a hybrid flag; with no release named,
    the note names the releases that double it; nothing with --hicache-ratio."""
    hybrid = "--mamba-scheduler-strategy extra_buffer --hicache-size 10"
    cases = [
        ((f"{hybrid} --tp-size 2", "--framework-version", "0.5.16"), [("warning", "framework-code")]),
        ((hybrid, "--framework-version", "0.5.11"), [("warning", "framework-code")]),
        ((f"{hybrid} --tp-size 2", "--framework-version", "0.5.17"), [("info", "static")]),
        ((hybrid, "--framework-version", "0.5.17"), []),
        (("--hicache-size 10 --tp-size 2", "--framework-version", "0.5.14"), [("info", "static")]),
        (
            (
                "--mamba-scheduler-strategy extra_buffer --hicache-ratio 2 --tp-size 2",
                "--framework-version",
                "0.5.14",
            ),
            [],
        ),
        ((f"{hybrid} --tp-size 2",), [("info", "assumed")]),
    ]
    for (extra, *options), expected in cases:
        got = [(f["severity"], f["basis"]) for f in _check(_HICACHE.format(extra=extra), *options)]
        assert got == expected, (extra, options)
    (note,) = _check(_HICACHE.format(extra=f"{hybrid} --tp-size 2"))
    assert note["message"].endswith(
        "; if this runs sglang 0.5.10.post1-0.5.16, the Mamba host pool of this hybrid model takes the same "
        "10 GB per rank again (40 GB in all): those releases pass the unscaled --hicache-size to it"
    )


_LAZY = (
    "python -m sglang.launch_server --model-path Qwen/Qwen3.6-27B --mamba-scheduler-strategy {strategy} "
    "{extra}"
)


def test_rs086_error_warning_note_and_silence() -> None:
    """An error with --speculative-num-draft-tokens written (the assertion stops the start), a warning
    without it, a note with no release named, nothing for extra_buffer, without speculative decoding, with
    --disable-radix-cache, or on 0.5.17 (which supports the pair)."""
    nextn = "--speculative-algorithm NEXTN"
    cases = [
        (
            ("extra_buffer_lazy", f"{nextn} --speculative-num-draft-tokens 4", "0.5.14"),
            [("error", "framework-code")],
        ),
        (("extra_buffer_lazy", nextn, "0.5.13.post1"), [("warning", "framework-code")]),
        (("extra_buffer_lazy", nextn, "0.5.16"), [("warning", "framework-code")]),
        (("extra_buffer_lazy", nextn, "0.5.17"), []),
        (("extra_buffer", nextn, "0.5.14"), []),
        (("extra_buffer_lazy", "", "0.5.14"), []),
        (("extra_buffer_lazy", f"{nextn} --disable-radix-cache", "0.5.14"), []),
    ]
    for (strategy, extra, release), expected in cases:
        findings = _check(_LAZY.format(strategy=strategy, extra=extra), "--framework-version", release)
        assert [(f["severity"], f["basis"]) for f in findings] == expected, (strategy, extra, release)
    (error,) = _check(
        _LAZY.format(strategy="extra_buffer_lazy", extra=f"{nextn} --speculative-num-draft-tokens 4"),
        "--framework-version",
        "0.5.14",
    )
    assert error["message"] == (
        "sglang 0.5.14 refuses extra_buffer_lazy with speculative decoding: with "
        '--speculative-num-draft-tokens 4 its Mamba radix-cache check asserts "extra_buffer_lazy unsupported '
        'with spec." (_validate_mamba_extra_buffer, sglang/srt/server_args.py:4372) and the server does not '
        "start"
    )
    (note,) = _check(_LAZY.format(strategy="extra_buffer_lazy", extra=nextn))
    assert (note["severity"], note["basis"]) == ("info", "assumed")
    assert note["message"].startswith("if this runs sglang 0.5.13.post1-0.5.16, extra_buffer_lazy with")


def test_the_tables_as_read_from_the_wheels() -> None:
    """What the two generators read: the unscaled Mamba host size up to 0.5.16 (its first call site moved
    from hi_mamba_radix_cache.py to the pool assembler in 0.5.11); the lazy assertion in 0.5.13.post1-0.5.16,
    each under a draft-token test that runs before the speculative defaults."""
    data = REPO / "src/argtrace/frameworks/data"
    host = json.loads((data / "sglang_hicache_mamba_host.json").read_text())["releases"]
    assert {r for r, f in host.items() if f["unscaled"]} == {
        "0.5.10.post1",
        "0.5.11",
        "0.5.12.post1",
        "0.5.13.post1",
        "0.5.14",
        "0.5.15.post1",
        "0.5.16",
    }
    assert host["0.5.10.post1"]["calls"] == [
        {"at": "srt/mem_cache/hi_mamba_radix_cache.py:131", "host_size": "server_args.hicache_size"}
    ]
    assert host["0.5.17"]["calls"][0]["host_size"] == "mamba_host_size"
    lazy = json.loads((data / "sglang_lazy_spec.json").read_text())["releases"]
    assert sorted(r for r, f in lazy.items() if f) == ["0.5.13.post1", "0.5.14", "0.5.15.post1", "0.5.16"]
    assert all(f["before_spec_defaults"] and f["guard_reads_draft_tokens"] for f in lazy.values() if f)
    assert lazy["0.5.14"]["validation_call_at"] == 2533
    assert lazy["0.5.14"]["spec_defaults_call_at"] == 2587


_ASSEMBLER = """
def build_hybrid_mamba_stack(server_args, mamba_pool):
    kv_host_pool = build_kv_host_pool(server_args=server_args)
    mamba_host_pool = MambaPoolHost(
        mamba_pool,
        server_args.hicache_ratio,
        {size},
        layout=server_args.hicache_mem_layout,
    )
"""
_SERVER_ARGS = """
class ServerArgs:
    def __post_init__(self):
        self._handle_model_specific_adjustments()
        handle_speculative_decoding(self)

    def _validate_mamba_extra_buffer(self, model_arch):
        if self.speculative_num_draft_tokens is not None:
            assert (
                not self.enable_mamba_extra_buffer_lazy()
            ), "extra_buffer_lazy unsupported with spec."
"""


def test_the_generators_on_minimal_modules() -> None:
    """Each generator on a minimal module: the host-size argument (unscaled or not, none without the call);
    the lazy assertion, its guard and the call order (none without the assertion)."""
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_sglang_hicache_mamba_host import facts as host_facts
    from gen_sglang_lazy_spec import facts as lazy_facts

    module = "sglang/srt/mem_cache/hybrid_cache/hybrid_pool_assembler.py"
    assert host_facts({module: _ASSEMBLER.format(size="server_args.hicache_size")}) == {
        "calls": [
            {
                "at": "srt/mem_cache/hybrid_cache/hybrid_pool_assembler.py:4",
                "host_size": "server_args.hicache_size",
            }
        ],
        "unscaled": True,
    }
    assert host_facts({module: _ASSEMBLER.format(size="mamba_host_size")})["unscaled"] is False
    assert host_facts({module: "x = 1\n"}) == {}
    assert lazy_facts({"sglang/srt/server_args.py": _SERVER_ARGS}) == {
        "assert_at": "srt/server_args.py:9",
        "before_spec_defaults": True,
        "function": "_validate_mamba_extra_buffer",
        "guard": "self.speculative_num_draft_tokens is not None",
        "guard_reads_draft_tokens": True,
        "message": "extra_buffer_lazy unsupported with spec.",
        "spec_defaults_call_at": 5,
        "validation_call_at": 4,
    }
    swapped = _SERVER_ARGS.replace(
        "        self._handle_model_specific_adjustments()\n        handle_speculative_decoding(self)\n",
        "        handle_speculative_decoding(self)\n        self._handle_model_specific_adjustments()\n",
    )
    assert swapped != _SERVER_ARGS
    assert lazy_facts({"sglang/srt/server_args.py": swapped})["before_spec_defaults"] is False
    assert lazy_facts({"sglang/srt/server_args.py": "class ServerArgs:\n    pass\n"}) == {}


_QWEN3_NEXT = REPO / "tests/data/models/qwen3-next-80b-a3b/config.json"


def _mtp_checkpoint(directory: Path, tensors: list[str]) -> Path:
    directory.mkdir()
    (directory / "config.json").write_text(_QWEN3_NEXT.read_text())
    index = {
        "metadata": {"total_size": 1},
        "weight_map": {name: "model-00001.safetensors" for name in tensors},
    }
    (directory / "model.safetensors.index.json").write_text(json.dumps(index))
    return directory


def test_rs087_on_the_fine_tuned_qwen3_next_of_ms_swift_6221(tmp_path: Path) -> None:
    """ms-swift#6221's command with its checkpoint here (a stand-in: Qwen3-Next's config.json and an index
    without the mtp.* tensors a full fine-tune's export dropped): RS087, an error on a release named, a
    warning resting on the assumed one; with the tensors, nothing; nothing for a quantized checkpoint (the
    strict check is off), another method, or a release whose wheel was not read (0.32.0 and 0.33.0 were)."""
    command = (CASES / "msswift6221_qwen3next_finetuned_mtp_vllm.cmd").read_text().splitlines()[1]
    base = ["model.embed_tokens.weight", "model.layers.0.linear_attn.in_proj_qkvz.weight", "lm_head.weight"]
    without = _mtp_checkpoint(tmp_path / "without", base)
    with_head = _mtp_checkpoint(tmp_path / "with", [*base, "mtp.fc.weight", "mtp.layers.0.mlp.gate.weight"])

    def rs087(directory: Path, *options: str, method: str = "qwen3_next_mtp") -> list[dict[str, Any]]:
        launch = command.replace("/xxx/qwen3-next/20251017/hf-full-202510171312", str(directory))
        launch = launch.replace('"method":"qwen3_next_mtp"', f'"method":"{method}"')
        report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", launch]).json
        return [f for f in report["findings"] if f["code"] == "RS087"]

    (assumed,) = rs087(without)  # no release named: 0.33.0 is assumed, so a warning resting on it
    assert (assumed["severity"], assumed["basis"]) == ("warning", "assumed")
    (error,) = rs087(without, "--framework-version", "0.33.0")
    assert (error["severity"], error["basis"], error["setting"]) == (
        "error",
        "framework-code",
        "speculative_config",
    )
    assert error["message"] == (
        "the qwen3_next_mtp draft loads the checkpoint's mtp.* tensors, and this checkpoint has none "
        "(model.safetensors.index.json lists 3 tensors): vllm 0.33.0 leaves the draft's parameters unloaded "
        'and stops while building it ("Following weights were not initialized from checkpoint", '
        "DefaultModelLoader.track_weights_loading); a fine-tuned export often drops the MTP head"
    )
    assert [f["severity"] for f in rs087(without, "--framework-version", "0.32.0")] == ["error"]
    assert [f["severity"] for f in rs087(without, "--framework-version", "0.33.0", method="mtp")] == ["error"]
    assert rs087(with_head, "--framework-version", "0.33.0") == []
    assert rs087(without, "--framework-version", "0.33.0", method="ngram") == []
    assert rs087(without, "--framework-version", "0.20.0") == []
    config = json.loads((without / "config.json").read_text())
    config["quantization_config"] = {"quant_method": "fp8"}
    (without / "config.json").write_text(json.dumps(config))
    assert rs087(without, "--framework-version", "0.33.0") == []


def test_the_mtp_draft_table_as_read_from_the_wheels() -> None:
    """scripts/gen_vllm_mtp_weights.py on vLLM 0.32.0 and 0.33.0: Qwen3-Next to qwen3_next_mtp, the Qwen3.5
    types (and InternS2-preview) to qwen3_5_mtp, each keeping the mtp.* tensors; DeepSeek-V3, Hunyuan-V3 and
    the GLM-4.5 architectures (keyed by architecture, as hf_config_override tests them) keep the target's
    numbered MTP layers (mtp37). InternS2-Mobius's draft is another module's (interns2_mobius), V3.2's
    and V4's too, and Nemotron-H's rewrite is nested in a further test: not in it."""
    data = json.loads((REPO / "src/argtrace/frameworks/data/vllm_mtp_weights.json").read_text())["releases"]
    assert sorted(data) == ["0.32.0", "0.33.0"]
    assert data["0.32.0"] == data["0.33.0"]
    assert {
        t: (f["draft"], f.get("prefixes") or f["layers"]["count"]) for t, f in data["0.33.0"].items()
    } == {
        "arch:Glm4MoeForCausalLM": ("glm4_moe_mtp", "num_nextn_predict_layers"),
        "arch:Glm4MoeLiteForCausalLM": ("glm4_moe_lite_mtp", "num_nextn_predict_layers"),
        "arch:GlmOcrForConditionalGeneration": ("glm_ocr_mtp", "num_nextn_predict_layers"),
        "deepseek_v3": ("deepseek_mtp", "num_nextn_predict_layers"),
        "hy_v3": ("hy_v3_mtp", "num_nextn_predict_layers"),
        "intern_s2_preview": ("qwen3_5_mtp", ["mtp."]),
        "qwen3_5": ("qwen3_5_mtp", ["mtp."]),
        "qwen3_5_moe": ("qwen3_5_mtp", ["mtp."]),
        "qwen3_5_moe_text": ("qwen3_5_mtp", ["mtp."]),
        "qwen3_5_text": ("qwen3_5_mtp", ["mtp."]),
        "qwen3_next": ("qwen3_next_mtp", ["mtp."]),
    }
    assert data["0.33.0"]["deepseek_v3"]["layers"] == {
        "check": "MTP speculative decoding layer {layer_idx} weights missing from checkpoint.",
        "count": "num_nextn_predict_layers",
        "names": ["model.layers.{layer}.", "layers.{layer}.", "model.language_model.layers.{layer}."],
        "start": "num_hidden_layers",
    }
    assert data["0.33.0"]["arch:Glm4MoeForCausalLM"]["layers"]["check"] is None
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_vllm_mtp_weights import facts

    speculative = (
        "def hf_config_override(hf_config):\n"
        "    if hf_config.model_type == 'foo':\n"
        "        hf_config.model_type = 'foo_mtp'\n"
        "    if hf_config.model_type in ('bar', 'bar_text'):\n"
        "        hf_config.model_type = 'bar_mtp'\n"
    )
    draft = "def is_unused_checkpoint_weight(self, name):\n    return not name.startswith('mtp.')\n"
    assert facts(
        {
            "vllm/config/speculative.py": speculative,
            "vllm/model_executor/models/foo_mtp.py": draft,
            "vllm/model_executor/models/bar_mtp.py": "x = 1\n",
        }
    ) == {"foo": {"at": "model_executor/models/foo_mtp.py", "draft": "foo_mtp", "prefixes": ["mtp."]}}


# The failure reports `check` misses, with the word the cause's alarm must hold and the mechanism it lacks
# (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglang27325_qwen36_specv2_extra_buffer.sh": (
        "mamba_next_track_idx",
        "a bug of a development build (schedule_batch.py:1466 matches no release read): spec v2 with "
        "extra_buffer left mamba_next_track_idx None on the verify path; 0.5.16 and later guard it, and no "
        "release is named",
    ),
    "vllm57721_granite4h_ngram_spec.cmd": (
        "num_spec",
        "the Mamba page padding planned without the speculative widening: vLLM 0.32.0 and 0.33.0 (the wheels "
        "read) pass num_spec in granitemoehybrid.py, the report's build is not named",
    ),
    "vllm33364_qwen3next_mtp3_flashinfer_fp8kv.cmd": (
        "FlashInfer",
        "a FlashInfer (0.5.3) JIT compile error of its GMMA kernel for an FP8 KV cache with four query "
        "tokens on SM90: the kernel's limits are not read",
    ),
    "vllm39273_qwen35_ngram_corrupted.cmd": (
        "ngram",
        "a correctness bug of n-gram drafts on GDN layers (0.18.1rc1): no release refuses the pair",
    ),
    "msswift6221_qwen3next_finetuned_mtp_vllm.cmd": (
        "mtp",
        "the fine-tuned export lacks the mtp.* weights the qwen3_next_mtp draft loads; the checkpoint is the "
        "report's local path, not on this machine (RS087 says it where the checkpoint is: tested above)",
    ),
    "msswift9050_qwen35_mtp_trained_vllm.cmd": (
        "mtp",
        "the error is a screenshot and the checkpoint a local path: what the export lacks is not known",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
