"""SGLang batch of the 32nd session (docs/real_cases.md, "SGLang sgl32: speculative decoding on the decode
side of PD disaggregation, DCP with DSPARK, transfer NICs, tool-call parsers, FP8 KV with FlashInfer MLA"),
measured before any fix.

Seven failure reports of 2025-2026 whose cause lies in the launch (a DSPARK decode server on plain 0.5.16
and on a July 2026 nightly, DCP with DSPARK across PD, DeepSeek-V4 EAGLE on a PD decode server, two
Mooncake NICs, a Qwen3.6 server with the qwen25 tool-call parser, FlashInfer MLA with an FP8 KV cache on
an FP4 DeepSeek-R1) and three correct launches (``ok_*``). Each case under ``tests/data/real_cases_sgl32/``
names its URL in its header. A new user's machine (no resolver environment, no Hugging Face cache);
``--framework-version`` only where the report names its release (sglang PR#31513's comment: plain 0.5.16).
Classes by the better of `check` and `why` on the message a report quotes (the AttributeError of PR#31513
and PR#28390, PR#34343's geometry error). Each command runs once per worker (tests/batches.py's
``recorded_*``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
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

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl32"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report, by the better of `check` and `why`: first seen (a11d79e8) and now.
CLASSES = {
    "sglangpr31513_dspark_pd_decode_0516.cmd": ("c", "a"),  # RS080 (and why's signature)
    "sglangpr28390_dspark_pd_decode_nightly.cmd": ("c", "a"),  # why's signature; check: RS080's note
    "sglangpr34343_dcp_dspark_pd_decode_hang.cmd": ("b", "b"),
    "sglang24747_dsv4_eagle_pd_decode.cmd": ("c", "c"),
    "mooncake507_multi_nic_ib_device.cmd": ("c", "c"),
    "sglang26790_qwen36_tool_call_parser_qwen25.cmd": ("c", "c"),
    "sglang9704_dsr1_fp4_flashinfer_fp8_kv.cmd": ("c", "c"),
}
# the release a report names
OPTIONS: dict[str, tuple[str, ...]] = {
    "sglangpr31513_dspark_pd_decode_0516.cmd": ("--framework-version", "0.5.16"),
}
CORRECT = [
    "ok_sglangpr33411_dspark_pd_decode.cmd",
    "ok_sglangpr25550_gemma4_nvfp4_triton.cmd",
    "ok_sglangpr12801_dsr1_fp4_pd_prefill_trtllm_mla.cmd",
]
# the error each report quotes
QUOTED = {
    "sglangpr31513_dspark_pd_decode_0516.cmd": "AttributeError: 'NoneType' object has no attribute "
    "'prepare_for_decode'",
    "sglangpr28390_dspark_pd_decode_nightly.cmd": "AttributeError: 'NoneType' object has no attribute "
    "'prepare_for_decode'",
    "sglangpr34343_dcp_dspark_pd_decode_hang.cmd": (
        "RuntimeError: PD DCP source/destination KV geometry differs:"
    ),
}


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([0, 1, 6, 0], [2, 1, 4, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-05: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


ALARMS = {"sglangpr31513_dspark_pd_decode_0516.cmd": [("RS080", "warning")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm from `check` on any failure report, before or after: RS080 is PR#31513's cause."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_a_dspark_decode_server_on_0_5_16() -> None:
    """PR#31513's comment by `check` (RS080): 0.5.16's build_disagg_draft_input has no DSPARK branch."""
    rs080 = finding(check("sglangpr31513_dspark_pd_decode_0516.cmd"), "RS080")
    assert rs080["message"] == (
        "sglang 0.5.16's decode server builds no draft input for DSPARK: with --disaggregation-mode decode "
        "each transferred request's draft input comes from build_disagg_draft_input, which builds one for "
        "EAGLE, EAGLE3, FROZEN_KV_MTP only and returns None for DSPARK (sglang/srt/speculative/spec_info.py:"
        "164); the decode step then dereferences it (sglang/srt/speculative/spec_utils.py:837: "
        "\"AttributeError: 'NoneType' object has no attribute 'prepare_for_decode'\", the scheduler dies) "
        "or, where the batch falls back to the non-speculative relay, DSPARK never drafts"
    )
    assert rs080["fix"] == (
        "run sglang 0.5.17 or newer, which builds its draft input, or drop --speculative-algorithm DSPARK "
        "from the prefill and decode servers"
    )
    assert rs080["setting"] == "speculative_algorithm"


def test_without_a_release_named_a_note() -> None:
    """PR#28390's nightly and PR#33411's launch name no release: analysed as 0.5.23, which builds DSPARK's
    draft input, so RS080 is a note naming 0.5.16 (b by `check`; `why` on the quoted error is a)."""
    for name in ("sglangpr28390_dspark_pd_decode_nightly.cmd", "ok_sglangpr33411_dspark_pd_decode.cmd"):
        note = finding(check(name), "RS080")
        assert note["severity"] == "info"
        assert note["message"] == (
            "if this runs sglang 0.5.16, that release's decode server builds no draft input for DSPARK "
            "(build_disagg_draft_input returns None): its decode step fails (\"AttributeError: 'NoneType' "
            "object has no attribute 'prepare_for_decode'\") or never drafts; sglang 0.5.23, which the "
            "analysis assumes, builds one"
        )


def _codes(command: str, *options: str) -> list[tuple[str, str]]:
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command]).json
    return [(f["code"], f["severity"]) for f in report["findings"] if f["code"] == "RS080"]


def test_rs080_only_where_the_release_builds_no_draft_input() -> None:
    """DFLASH on 0.5.15.post1-0.5.19 and DSPARK on 0.5.16 say it; DSPARK on 0.5.17, DFLASH on 0.5.20, EAGLE
    anywhere, a prefill or a plain server, and 0.5.14 (no unguarded dereference) do not."""
    launch = "python -m sglang.launch_server --model-path m/x {extra} --speculative-algorithm {algo}"
    decode = "--disaggregation-mode decode"
    for algo, release in (("DFLASH", "0.5.15.post1"), ("DFLASH", "0.5.19"), ("dspark", "0.5.16")):
        codes = _codes(launch.format(extra=decode, algo=algo), "--framework-version", release)
        assert codes == [("RS080", "warning")], (algo, release)
    for algo, release, extra in (
        ("DSPARK", "0.5.17", decode),
        ("DFLASH", "0.5.20", decode),
        ("EAGLE", "0.5.16", decode),
        ("DFLASH", "0.5.14", decode),
        ("DFLASH", "0.5.16", "--disaggregation-mode prefill"),
        ("DFLASH", "0.5.16", ""),
    ):
        assert _codes(launch.format(extra=extra, algo=algo), "--framework-version", release) == [], (
            algo,
            release,
        )


def test_the_assumed_release_is_said_as_an_assumption() -> None:
    """Nothing names the release but a flag 0.5.18 drops makes the analysis assume 0.5.17, whose decode
    server builds no DFLASH draft input: a warning resting on that assumption."""
    command = (
        "python -m sglang.launch_server --model-path m/x --disaggregation-mode decode "
        "--speculative-algorithm DFLASH --enable-expert-distribution-metrics"
    )
    report = run_cli(["check", "--format", "json", "--no-resolve", "-c", command]).json
    rs080 = next(f for f in report["findings"] if f["code"] == "RS080")
    assert report["framework"]["analysed_with"] == "0.5.17"
    assert (rs080["severity"], rs080["basis"]) == ("warning", "assumed")
    assert rs080["message"].endswith(
        "(assumed: nothing names the release; the newest that takes these flags)"
    )


def test_a_decode_server_beside_the_described_one(tmp_path: Path) -> None:
    """A PD script (PR#34285's shape): the prefill server is the one described, the decode server is the
    second; RS080 is said for the second, once, and not for the prefill server."""
    script = tmp_path / "pd.sh"
    lines = [
        "python3 -m sglang.launch_server --model-path m/x --speculative-algorithm DFLASH "
        f"--speculative-draft-model-path m/d --disaggregation-mode {mode} --port {port} &"
        for mode, port in (("prefill", 30000), ("decode", 30001))
    ]
    script.write_text("#!/bin/bash\n" + "\n".join(lines) + "\nwait\n")
    argv = ["check", "--format", "json", "--no-resolve", "--framework-version", "0.5.18", str(script)]
    report = run_cli(argv).json
    said = [(f["severity"], f.get("server"), f["at"]) for f in report["findings"] if f["code"] == "RS080"]
    assert said == [("warning", 2, f"{script}:3:1")]


def test_the_table_as_read_from_the_wheels() -> None:
    """scripts/gen_sglang_disagg_spec.py's reading: the builder's branches resolved through the is_*
    predicates (is_eagle holds FROZEN_KV_MTP), the unguarded dereference's predicate (is_dflash in
    0.5.15.post1, is_dflash_family from 0.5.16), and no dereference in 0.5.13.post1-0.5.14."""
    data = json.loads((REPO / "src/argtrace/frameworks/data/sglang_disagg_spec.json").read_text())
    unbuilt = {r: f["unbuilt"] for r, f in data["releases"].items() if "unbuilt" in f}
    assert unbuilt == {
        "0.5.15.post1": ["DFLASH"],
        "0.5.16": ["DFLASH", "DSPARK"],
        "0.5.17": ["DFLASH"],
        "0.5.18": ["DFLASH"],
        "0.5.19": ["DFLASH"],
    }
    assert data["releases"]["0.5.14"]["built"] == ["EAGLE", "EAGLE3", "FROZEN_KV_MTP"]
    assert "dereferenced" not in data["releases"]["0.5.14"]
    assert data["releases"]["0.5.23"]["built"] == ["DFLASH", "DSPARK", "EAGLE", "EAGLE3", "FROZEN_KV_MTP"]


_SPEC_INFO = '''
class SpeculativeAlgorithm(Enum):
    EAGLE = auto()
    EAGLE3 = auto()
    DFLASH = auto()
    DSPARK = auto()

    def is_eagle(self) -> bool:
        """the EAGLE workers"""
        return self in (SpeculativeAlgorithm.EAGLE, SpeculativeAlgorithm.EAGLE3)

    def is_dflash(self) -> bool:
        return self == SpeculativeAlgorithm.DFLASH

    def is_dspark(self) -> bool:
        return self == SpeculativeAlgorithm.DSPARK

    def is_dflash_family(self) -> bool:
        return self.is_dflash() or self.is_dspark()

    def build_disagg_draft_input(self, batch, last, future_map):
        if self.is_eagle():
            return build_eagle(batch)
        if self.is_dspark():
            return build_dspark(batch)
        return None
'''
_UTILS = """
def spec_prepare_for_decode(batch):
    if batch.spec_algorithm.is_dflash_family():
        {guard}batch.spec_info.prepare_for_decode(batch)
"""
_MIXIN = "        spec_info = self.spec_algorithm.build_disagg_draft_input(\n"


def test_the_generator_reads_predicates_and_the_guard() -> None:
    """The generator on a minimal module set: composite predicates resolve to enum members, and a None check
    before the dereference means nothing is unbuilt (PR#34285's proposed guard)."""
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_sglang_disagg_spec import facts

    texts = {
        "sglang/srt/speculative/spec_info.py": _SPEC_INFO,
        "sglang/srt/speculative/spec_utils.py": _UTILS.format(guard=""),
        "sglang/srt/disaggregation/decode_schedule_batch_mixin.py": _MIXIN,
    }
    read = facts(texts)
    assert (read["built"], read["dereferenced"], read["unbuilt"]) == (
        ["DSPARK", "EAGLE", "EAGLE3"],
        ["DFLASH", "DSPARK"],
        ["DFLASH"],
    )
    guarded = dict(texts)
    guarded["sglang/srt/speculative/spec_utils.py"] = _UTILS.format(
        guard="if batch.spec_info is None:\n            return\n        "
    )
    assert "unbuilt" not in facts(guarded)
    assert "unbuilt" not in facts({k: v for k, v in texts.items() if "mixin" not in k})


def test_why_names_the_decode_side_draft_input() -> None:
    """The AttributeError PR#31513 and PR#28390 quote: `why` keeps Python's own reading and adds the log
    signature that names DFLASH/DSPARK on a PD decode server, the releases read and the fix (RS080)."""
    section = explain(QUOTED["sglangpr28390_dspark_pd_decode_nightly.cmd"])
    assert [s["id"] for s in section["signatures"]] == ["sglang-pd-decode-no-draft-input"]
    assert section["signatures"][0]["fix"].startswith(
        "Run a release whose decode side builds the algorithm's draft input (DSPARK: 0.5.17 on, DFLASH: "
        "0.5.20 on)"
    )


def test_why_on_the_dcp_geometry_error_names_the_raise_site() -> None:
    """PR#34343 (b before and after): `why` finds the geometry check's raise site, whose condition reads the
    page size; the DSPARK draft KV sharing the target's DCP-virtualized indices is not in the condition."""
    section = explain(QUOTED["sglangpr34343_dcp_dspark_pd_decode_hang.cmd"])
    first = section["matches"][0]
    assert (first["function"], first["file"]) == (
        "CommonKVManager.prepare_dcp_token_item_lens",
        "sglang/srt/disaggregation/common/conn.py",
    )
    assert first["fix"].startswith("make the condition false")


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglangpr34343_dcp_dspark_pd_decode_hang.cmd": (
        "DCP",
        "DSPARK's draft KV shares the target's kv_indices, which DCP virtualizes on the decode side: which "
        "releases relayout the draft state apart is not read from the wheels; `why` names the geometry check",
    ),
    "sglang24747_dsv4_eagle_pd_decode.cmd": (
        "EAGLE",
        "an assertion of the DSv4 attention backend on the decode side's EAGLE draft path on a nightly: a "
        "backend bug, no release refuses the combination",
    ),
    "mooncake507_multi_nic_ib_device.cmd": (
        "ib-device",
        "Mooncake 0.3.1/0.3.3.post2 failing with two NICs and working with one: the transfer engine's "
        "release and the nodes' RDMA setup, not in the launch",
    ),
    "sglang26790_qwen36_tool_call_parser_qwen25.cmd": (
        "qwen3_coder",
        "which parser a chat template needs is the release's detection from the template (template_detection"
        ".py): a local /model with no config or template on a new user's machine",
    ),
    "sglang9704_dsr1_fp4_flashinfer_fp8_kv.cmd": (
        "flashinfer",
        "a FlashInfer MLA kernel's accuracy with an FP8 KV cache on B200: fixed in FlashInfer, a kernel path",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
