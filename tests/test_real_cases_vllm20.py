"""The vLLM batch of session 20 (docs/real_cases.md, "vLLM, 20th session"), measured before any fix:
dual-batch overlap with an all2all backend that cannot microbatch, tensor parallelism wider than a node's
devices, fp8 KV caches an attention backend refuses, a multimodal budget written as key=value pairs or one
that no longer fits the context, a release that does not know the model class, a KV connector without its
role, a removed V0 variable. Each case under ``tests/data/real_cases_vllm20/`` names its URL on its first
line: ``.cmd`` launches (``argtrace check -c``), ``.txt`` the text a report quotes (``argtrace why``),
``ok_*`` the correct launches collected with them. The machine is a new user's (no resolver environment, no
Hugging Face cache).

The mechanism of the batch: a configuration field no flag of its own name sets (``ParallelConfig.
use_ubatching``, ``local_world_size``, ``SchedulerConfig.chunked_prefill_enabled``) is named by the flags
that make it, from a table generated from the wheels (scripts/gen_vllm_config_fields.py)."""

from __future__ import annotations

import copy
import functools
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from tests.batches import check_case, finding, shown_codes, table_counts, unsourced, why_with_release
from tests.conftest import run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm20"
VLLM19 = Path(__file__).resolve().parent / "data" / "real_cases_vllm19"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on 43ae2cf) and now.
CLASSES = {
    "vllm27513_dbo_pplx.txt": ("a", "a"),
    "vllm54493_dbo_allgather.txt": ("a", "a"),
    "vllm29447_tp8_two_nodes.cmd": ("c", "c"),
    "pr28873_local_world_size.txt": ("b", "b"),
    "pr28873_ray_tp16.cmd": ("c", "c"),
    "pr14221_v1_fp8_kv.cmd": ("c", "c"),
    "pr14221_v1_fp8_kv.txt": ("b", "b"),
    "recipes565_glm52_fp8_kv.cmd": ("c", "c"),
    "vllm11842_limit_mm_image8.cmd": ("c", "c"),
    "vllm11842_computed_max_num_seqs.txt": ("b", "b"),
    "kserve5613_use_v1_unknown.txt": ("a", "a"),
    "vllm16409_pynccl_connector_v1.cmd": ("a", "a"),
    "vllm15802_qwen25vl_v0_max_num_seqs.cmd": ("d", "c"),
}
CORRECT = [
    "ok_pr32314_hybrid_lb_node1.cmd",
    "ok_pr32314_hybrid_lb_node2.cmd",
    "ok_pr37926_dbo_deepep.cmd",
    "ok_pr25904_mtp_deepep_env.cmd",
    "ok_pr42569_fa4_fp8_kv.cmd",
]
# the release a report names (its text, a log line, the maintainer's reply), given as --framework-version
RELEASES = {
    "vllm54493_dbo_allgather.txt": "0.28.0",
    "vllm29447_tp8_two_nodes.cmd": "0.11.2",
    "vllm11842_limit_mm_image8.cmd": "0.6.6.post1",
    "vllm11842_computed_max_num_seqs.txt": "0.6.6.post1",
    "kserve5613_use_v1_unknown.txt": "0.20.0",
    "vllm16409_pynccl_connector_v1.cmd": "0.8.5",
    "vllm15802_qwen25vl_v0_max_num_seqs.cmd": "0.8.2",
}


@functools.cache
def _check(name: str) -> dict[str, Any]:
    version = RELEASES.get(name)
    return check_case(CASES, name, ("--framework-version", version) if version else ())


@functools.cache
def _why(name: str, cases: Path = CASES) -> dict[str, Any]:
    return why_with_release(cases, name, RELEASES)


def check(name: str) -> dict[str, Any]:
    """Each recorded launch is checked once; the tests read copies."""
    return copy.deepcopy(_check(name))


def first_site(name: str, cases: Path = CASES) -> dict[str, Any]:
    return copy.deepcopy(_why(name, cases)["matches"][0])


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([4, 3, 5, 1], [4, 3, 6, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


@pytest.mark.parametrize(
    ("name", "release_set", "fix_end"),
    [
        (
            "vllm27513_dbo_pplx.txt",
            None,
            "'deepep_high_throughput'])): change --all2all-backend, --enable-dbo, --ubatch-size",
        ),
        (
            "vllm54493_dbo_allgather.txt",
            "0.28.0",
            "'nixl_ep'])): change --all2all-backend, --enable-dbo, --ubatch-size",
        ),
    ],
)
def test_dbo_names_the_switch_that_makes_use_ubatching(
    name: str, release_set: str | None, fix_end: str
) -> None:
    """was a without --enable-dbo: the outer condition reads ``self.parallel_config.use_ubatching``, which
    ParallelConfig computes (``return self.enable_dbo or self.ubatch_size > 1``, vllm/config/parallel.py);
    the backend is one way out, turning DBO off the other."""
    first = first_site(name)
    assert first["function"] == "VllmConfig.__post_init__"
    assert first["fix"].endswith(fix_end)
    sets = [(s["name"], s["flag"], s.get("sets")) for s in first["settings"]]
    assert sets == [
        ("all2all_backend", "--all2all-backend", None),
        ("enable_dbo", "--enable-dbo", "ParallelConfig.use_ubatching"),
        ("ubatch_size", "--ubatch-size", "ParallelConfig.use_ubatching"),
    ]


def test_pr28873_local_world_size_names_the_sizes_that_make_it_first() -> None:
    """b either way: on the PR's build the check fired under Ray (a bug the PR fixes), and the released
    sites skip it under Ray. Before, the fix named only the flags of the outer condition; now the failing
    condition's ``local_world_size`` is the parallel sizes over the nodes (ParallelConfig, 0.12.0 on) and
    they come first."""
    first = first_site("pr28873_local_world_size.txt")
    assert first["function"] == "XPUWorker.init_device"
    assert first["fix"] == (
        "make the condition false (not (parallel_config.local_world_size <= visible_device_count)): change "
        "--data-parallel-size, --data-parallel-size-local, --nnodes, --pipeline-parallel-size, "
        "--prefill-context-parallel-size, --tensor-parallel-size, --data-parallel-backend, "
        "--data-parallel-external-lb, --distributed-executor-backend"
    )
    assert {s.get("sets") for s in first["settings"]} == {None, "ParallelConfig.local_world_size"}


def test_a_converter_cut_at_function_is_the_flags_json_reader() -> None:
    """A variant (vllm#39687's issue title, which stops at "<function"; the report's full text is in
    tests/data/why_control_texts.json): the newest schema reads --limit-mm-per-prompt with json.loads, so
    the fix writes the pairs as JSON (was "the text after the message is the cause")."""
    text = (
        "vllm serve: error: argument --limit-mm-per-prompt: Value image=4,audio=1 cannot be converted to "
        "<function"
    )
    first = run_cli(["why", "--format", "json", text]).json["why"]["matches"][0]
    assert first["fix"] == (
        "--limit-mm-per-prompt is read with json.loads (vllm 0.33.0's converter; the text's is cut), which "
        "refused 'image=4,audio=1': this release takes JSON here, not key=value pairs: write them as one "
        'JSON object in single quotes: --limit-mm-per-prompt \'{"image": 4, "audio": 1}\''
    )


def test_valid_json_a_converter_refused_gets_checks_finding() -> None:
    """A variant (vllm#19448's text; its launch is tests/data/real_cases_pd8's): the value is valid JSON, so
    the class the converter builds refused it; check's rule for that value names why (PA043: no kv_role).
    Was "the text after the message is the cause"."""
    text = (
        'vllm serve: error: argument --kv-transfer-config: Value {"kv_connector":"DynamoNixlConnector"} '
        "cannot be converted to <function get_kwargs...>"
    )
    first = run_cli(["why", "--format", "json", "--framework-version", "0.9.0.1", text]).json["why"][
        "matches"
    ][0]
    assert first["fix"] == (
        "--kv-transfer-config's value is valid JSON, so the configuration it builds refused it: PA043: "
        "--kv-transfer-config names kv_connector 'DynamoNixlConnector' and no kv_role: vLLM's "
        'KVTransferConfig refuses it ("Please specify kv_role when kv_connector is set") and the server does '
        "not start; fix: "
        'add "kv_role": "kv_producer" (prefill), "kv_consumer" (decode) or "kv_both"'
    )


def test_vllm16409_a_v0_connector_on_the_v1_engine() -> None:
    """a first seen: 0.8.5 runs V1 by default and PyNcclConnector is V0's (PA043, a warning: VLLM_USE_V1
    unset)."""
    report = check("vllm16409_pynccl_connector_v1.cmd")
    assert shown_codes(report) == [("PA043", "warning")]
    assert (
        finding(report, "PA043")["fix"] == "use a V1 connector (LMCacheConnectorV1, SharedStorageConnector)"
    )


def test_vllm15802_a_value_the_neighbour_release_takes_is_a_note() -> None:
    """was d: a PA022 warning "the flag takes no value" for --enable-chunked-prefill=False on 0.8.2, read
    from 0.8.5.post1 (BooleanOptionalAction); 0.7.3 registers the flag with a value (StoreBoolean, nargs
    '?') and the report's log shows 0.8.2 took it. 0.8.2 lies between the two: a note. Its key=value pairs
    (--limit-mm-per-prompt) were a PA011 note too; 0.8.5.post1's own converter takes them (its nullable_kvs
    fallback, data/vllm_kvs_fallback.json): nothing now."""
    report = check("vllm15802_qwen25vl_v0_max_num_seqs.cmd")
    assert shown_codes(report) == []
    pa022 = finding(report, "PA022")
    assert pa022["severity"] == "info"
    assert pa022["message"].endswith(
        "vllm 0.7.3 registers --enable-chunked-prefill with a value, and 0.8.2 lies between it and "
        "0.8.5.post1: which it follows is unknown"
    )
    assert [f for f in report["findings"] if f["code"] == "PA011"] == []


def test_kserve5613_a_removed_v0_variable() -> None:
    first = first_site("kserve5613_use_v1_unknown.txt")
    assert (first["function"], [s["name"] for s in first["settings"]]) == (
        "validate_environ",
        ["VLLM_USE_V1"],
    )


@pytest.mark.parametrize(
    ("name", "function", "fix"),
    [
        (
            "pr14221_v1_fp8_kv.txt",
            "FlashAttnMLAImpl.__init__",
            "make the condition false (is_quantized_kv_cache(self.kv_cache_dtype)): change --kv-cache-dtype",
        ),
        (
            "vllm11842_computed_max_num_seqs.txt",
            "XPUModelRunner.profile_run",
            "make the condition false (max_num_seqs < 1): change --max-num-seqs, --max-num-batched-tokens",
        ),
    ],
)
def test_why_found_with_a_fix_that_misses_the_cause(name: str, function: str, fix: str) -> None:
    """b: PR#14221's "FlashAttention V1 ..." is matched to FlashAttnMLA's copy (the FlashAttention one of the
    0.8.0 development build is not indexed), with the right flag; vllm#11842's ``max_mm_tokens`` is the
    multimodal registry's budget from --limit-mm-per-prompt and the model, a local no configuration field
    holds."""
    first = first_site(name)
    assert (first["function"], first["fix"]) == (function, fix)


@pytest.mark.parametrize(
    "name",
    [
        "pr28873_ray_tp16.cmd",
        "pr14221_v1_fp8_kv.cmd",
        "recipes565_glm52_fp8_kv.cmd",
        "vllm11842_limit_mm_image8.cmd",
    ],
)
def test_the_launches_missed_raise_no_alarm(name: str) -> None:
    """c: a framework bug (PR#28873), the attention backends' fp8 support per release and GPU (PR#14221,
    recipes#565: a sparse MLA model), the images' worst case against the context (the model's processor):
    nothing wrong is said instead."""
    assert shown_codes(check(name)) == []


def test_vllm29447_only_the_unset_port_is_said() -> None:
    """c: TP 8 over two 4-GPU nodes without --distributed-executor-backend ray (0.11.2 defaults to mp, and
    the node has 4 devices): the GPU count per node is not in the command. The report shows `--port $port`
    without the line that sets it; SH007 says the word vanishes when nothing sets it, resting on that."""
    report = check("vllm29447_tp8_two_nodes.cmd")
    assert shown_codes(report) == [("SH007", "warning")]
    assert "if the caller sets it, pass `--env port=...`" in finding(report, "SH007")["message"]


def test_vllm19_openvino_names_the_chunked_prefill_switch_now() -> None:
    """A variant of V19-09 (not a report of this batch): ``self.scheduler_config.chunked_prefill_enabled``
    is SchedulerConfig's property over --enable-chunked-prefill (0.6.6.post1-0.10.2); the fix named no
    flag and names that one now."""
    first = first_site("openvino16_chunked_prefix.txt", VLLM19)
    assert [(s["flag"], s.get("sets")) for s in first["settings"]] == [
        ("--enable-chunked-prefill", "SchedulerConfig.chunked_prefill_enabled")
    ]
    assert first["fix"].endswith(": change --enable-chunked-prefill")


# --- the table and its generator ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "read", "function", "field", "flags"),
    [
        (
            "0.33.0",
            "self.parallel_config.use_ubatching",
            "VllmConfig.__post_init__",
            "ParallelConfig.use_ubatching",
            ("--enable-dbo", "--ubatch-size"),
        ),
        (
            "0.8.5.post1",
            "self.world_size",
            "ParallelConfig.__post_init__",
            "ParallelConfig.world_size",
            ("--pipeline-parallel-size", "--tensor-parallel-size"),
        ),
        (
            "0.11.0",
            "cache_config.cache_dtype",
            "Worker.init",
            "CacheConfig.cache_dtype",
            ("--kv-cache-dtype",),
        ),
        (
            "0.9.1",  # no table of its own: 0.8.5.post1's
            "self.scheduler_config.chunked_prefill_enabled",
            "Runner.run",
            "SchedulerConfig.chunked_prefill_enabled",
            ("--enable-chunked-prefill",),
        ),
    ],
)
def test_derived_fields(version: str, read: str, function: str, field: str, flags: tuple[str, ...]) -> None:
    from argtrace.frameworks.vllm_config_fields import derived_field

    found = derived_field(version, read, function)
    assert found is not None and (found.field, found.flags) == (field, flags)


def test_a_read_of_another_object_is_not_guessed() -> None:
    """A worker's ``self.world_size`` is its own attribute; only a configuration class's method or a read
    through VllmConfig's parts (``parallel_config``) names the class."""
    from argtrace.frameworks.vllm_config_fields import derived_field

    assert derived_field("0.33.0", "self.world_size", "Worker.init_device") is None
    assert derived_field("0.33.0", "self.parallel_config.tensor_parallel_size", "X.f") is None  # has a flag


def test_resolution_names_the_flags_for_a_derived_field() -> None:
    """RS001's settings for a raise whose condition reads a derived field: the flags' dests instead."""
    from argtrace.layers.resolution import deciding_settings

    flags = {
        "tensor_parallel_size": "--tensor-parallel-size",
        "pipeline_parallel_size": "--pipeline-parallel-size",
        "max_model_len": "--max-model-len",
    }
    got = deciding_settings(
        "vllm", "0.8.5.post1", "ParallelConfig.__post_init__", ["world_size", "max_model_len"], flags
    )
    assert got == ["pipeline_parallel_size", "tensor_parallel_size", "max_model_len"]
    assert deciding_settings("sglang", None, "ServerArgs.check", ["world_size"], flags) == ["world_size"]


def _generator() -> Any:
    path = Path(__file__).resolve().parents[1] / "scripts" / "gen_vllm_config_fields.py"
    spec = importlib.util.spec_from_file_location("gen_vllm_config_fields", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Cut from vllm 0.33.0's vllm/config/parallel.py (ParallelConfig: two fields, the use_ubatching property,
# __post_init__'s world_size), vllm/config/vllm.py (VllmConfig's parallel_config) and
# vllm/engine/arg_utils.py (EngineArgs.create_engine_config's CacheConfig call); bodies cut to what is read.
PARALLEL_0330 = """
class ParallelConfig:
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    enable_dbo: bool = False
    ubatch_size: int = 0

    @property
    def use_ubatching(self) -> bool:
        return self.enable_dbo or self.ubatch_size > 1

    def __post_init__(self) -> None:
        self.world_size = (
            self.pipeline_parallel_size
            * self.tensor_parallel_size
        )


class VllmConfig:
    parallel_config: ParallelConfig = None
"""
ARG_UTILS_0330 = """
class EngineArgs:
    def create_engine_config(self):
        cache_config = CacheConfig(
            block_size=self.block_size,
            cache_dtype=resolve_kv_cache_dtype_string(self.kv_cache_dtype),
        )
"""


def test_the_generator_reads_properties_post_init_and_engine_args() -> None:
    gen = _generator()
    read = gen.read_classes({"vllm/config/parallel.py": PARALLEL_0330})
    assert read["attrs"] == {"parallel_config": "ParallelConfig"}
    made = read["classes"]["ParallelConfig"]["made"]
    assert sorted(made["use_ubatching"][0][0]) == [("self", "enable_dbo"), ("self", "ubatch_size")]
    assert made["use_ubatching"][0][1] == "vllm/config/parallel.py:10"
    assert sorted(made["world_size"][0][0]) == [
        ("self", "pipeline_parallel_size"),
        ("self", "tensor_parallel_size"),
    ]
    passed = gen.read_passed(ARG_UTILS_0330)
    assert passed[("CacheConfig", "cache_dtype")] == {"kv_cache_dtype"}
    assert passed[("CacheConfig", "block_size")] == {"block_size"}


def test_the_bundled_table_covers_every_bundled_release() -> None:
    import json

    from argtrace.frameworks.schema import bundled_versions
    from argtrace.package_data import package_file

    data = json.loads(package_file("frameworks/data/vllm_config_fields.json").read_text("utf-8"))
    assert data["generated_by"] == "scripts/gen_vllm_config_fields.py"
    assert set(data["releases"]) == set(bundled_versions("vllm", include_user=False))
