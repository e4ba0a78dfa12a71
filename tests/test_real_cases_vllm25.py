"""The vLLM batch of session 25 (docs/real_cases.md, "vLLM, 25th session"), measured before any fix: CUDA
graph capture maximums off the release's grid (with and without a draft), a parallel size of 0, prefix
caching on a hybrid Mamba model below its block size, tensorizer from object storage, ``--dtype half`` on a
bf16 model, a config file a script writes from a here-document, a chat template under ``examples/``,
``--disable-frontend-multiprocessing`` under the V1 engine, ``vllm bench serve``'s image flags, ``--convert
reward`` on a causal LM, ``--block-size 1``. Each case under ``tests/data/real_cases_vllm25/`` names its URL
on its first line (``.cmd`` launches for ``argtrace check -c``, ``.sh`` scripts, ``.txt`` the text a report
quotes for ``argtrace why``, ``ok_*`` the correct launches collected with them). The machine is a new
user's (no resolver environment, no Hugging Face cache)."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from tests.batches import (
    check_case,
    finding,
    missing_cases,
    shown_codes,
    table_counts,
    unsourced,
    why_with_release,
)
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm25"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on 3d828a5d) and now.
CLASSES = {
    "dgxspark5_capture_size_from_max_num_seqs.sh": ("c", "a"),
    "dgxspark5_truncating_capture_size.txt": ("b", "a"),
    "inferencex117_gptoss_cuda_graph_sizes.sh": ("c", "c"),
    "llmd368_chat_template_examples_path.cmd": ("c", "c"),
    "pipelinerl39_disable_frontend_mp_v1.cmd": ("c", "c"),
    "pipelinerl39_v1_frontend_mp_warning.txt": ("a", "a"),
    "pr37677_tensorizer_object_storage.cmd": ("c", "c"),
    "pr37865_max_capture_size_300.cmd": ("c", "a"),
    "tt1864_bench_serve_random_images.cmd": ("c", "c"),
    "vllm16608_expected_scalar_type_half.txt": ("c", "c"),
    "vllm16608_llama4_dtype_half.cmd": ("c", "c"),
    "vllm42480_convert_reward_causal_lm.cmd": ("c", "c"),
    "vllm42510_block_size_1.cmd": ("c", "c"),
    "vllm48401_prefix_caching_block_over_max_len.cmd": ("c", "c"),
    "vllm54667_pipeline_parallel_zero.cmd": ("c", "a"),
    "vllm54933_max_capture_size_42.cmd": ("c", "b"),
}
CORRECT = [
    "ok_dgxspark5_capture_size_in_tokens.sh",
    "ok_pr37677_runai_streamer_object_storage.cmd",
    "ok_pr48402_prefix_caching_max_len_16384.cmd",
    "ok_vllm16608_llama4_dtype_auto.cmd",
    "ok_vllm28270_pp8_ray_capture_size_32.cmd",
]
# the release a report names (its text, a log line), given as --framework-version
RELEASES = {
    "inferencex117_gptoss_cuda_graph_sizes.sh": "0.11.0",
    "ok_vllm16608_llama4_dtype_auto.cmd": "0.8.3",
    "vllm16608_expected_scalar_type_half.txt": "0.8.3",
    "vllm16608_llama4_dtype_half.cmd": "0.8.3",
    "vllm42480_convert_reward_causal_lm.cmd": "0.14.1",
    "vllm54933_max_capture_size_42.cmd": "0.28.0",
}
# the check inputs not in class a: a word the alarm naming the cause must hold, and what argtrace lacks
MISSING = {
    "inferencex117_gptoss_cuda_graph_sizes.sh": (
        "992",
        "GPT-OSS's model config class (GptOssForCausalLMConfig.verify_and_update_config) caps the capture "
        "sizes at 992 on 0.11.0; model classes' rewrites are read only by the resolver",
    ),
    "llmd368_chat_template_examples_path.cmd": (
        "examples/",
        "the relative template path is looked up in the image (which no longer ships examples/): files in "
        "an image are not visible here",
    ),
    "pipelinerl39_disable_frontend_mp_v1.cmd": (
        "--disable-frontend-multiprocessing",
        "the API server's warning that V1 ignores the flag reads VLLM_USE_V1 and one setting: start-up "
        "warnings are evaluated for SGLang only (RS055), and only over two or more settings",
    ),
    "pr37677_tensorizer_object_storage.cmd": (
        "tensorizer",
        "VllmConfig's refusal tests model_config.model_weights through is_runai_obj_uri(): RS032 evaluates "
        "no calls, and the resolver needs the model's config.json",
    ),
    "tt1864_bench_serve_random_images.cmd": (
        "--random-images-per-prompt",
        "`vllm bench serve` is a client, not a server start: its parser is not bundled",
    ),
    "vllm16608_llama4_dtype_half.cmd": (
        "--dtype",
        "Llama-4's bf16 buffers against --dtype half fail in the model's code at the first forward: needs "
        "the model's config.json and is a bug of 0.8.3's model class, not a check",
    ),
    "vllm42480_convert_reward_causal_lm.cmd": (
        "--convert",
        "the crash is in the model adapter's code (vllm/model_executor/models/adapters.py) for a causal LM "
        "converted to a reward model on 0.14.1: a bug, and the deprecation is logged by the model config, "
        "not the parser",
    ),
    "vllm42510_block_size_1.cmd": (
        "--block-size",
        "the attention backend's block-size requirement is checked when the KV cache is built, in backend "
        "modules the raise-site index (argument modules only) does not hold",
    ),
    "vllm48401_prefix_caching_block_over_max_len.cmd": (
        "--enable-prefix-caching",
        "the attention block size vLLM picks for a hybrid Mamba model (8320 here) needs the model's "
        "config.json and the platform's page-size arithmetic; a new user's machine has neither",
    ),
    "vllm54933_max_capture_size_42.cmd": (
        "40",
        "0.28.0's own code was not run (only 0.33.0's resolver environment is built): RS069 is a note "
        "resting on 0.33.0's grid",
    ),
}


@functools.cache
def _check(name: str) -> dict[str, Any]:
    version = RELEASES.get(name)
    return check_case(CASES, name, ("--framework-version", version) if version else ())


@functools.cache
def _why(name: str) -> dict[str, Any]:
    return why_with_release(CASES, name, RELEASES)


def check(name: str) -> dict[str, Any]:
    """Each recorded launch is checked once; the tests read copies."""
    return copy.deepcopy(_check(name))


def command(*argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv])
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def codes(report: dict[str, Any], *wanted: str) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"] if f["code"] in wanted]


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([1, 1, 14, 0], [5, 1, 10, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_check_case_not_in_class_a() -> None:
    checked = {n for n, (_, now) in CLASSES.items() if now != "a" and not n.endswith(".txt")}
    assert set(MISSING) == checked


def test_dgxspark5_a_capture_maximum_given_in_requests() -> None:
    """c -> a: `--max-cudagraph-capture-size ${MAX_NUM_SEQS:-6}` with three speculative tokens; 0.33.0's grid
    (run by scripts/gen_vllm_capture_grid.py) keeps 4, and the decode step is 24 tokens."""
    report = check("dgxspark5_capture_size_from_max_num_seqs.sh")
    assert shown_codes(report) == [("RS069", "warning")]
    cause = finding(report, "RS069")
    assert cause["message"] == (
        "--max-cudagraph-capture-size 6: vllm 0.33.0 lowers it to 4, the largest CUDA graph capture size not "
        'above it (VllmConfig._set_cudagraph_sizes, vllm/config/vllm.py:2631, logging "Truncating '
        'max_cudagraph_capture_size to 4"); batches of 5-6 tokens run without CUDA graphs'
    )
    assert cause["fix"] == (
        "give 24: the maximum counts tokens, and a decode step of 6 requests with 3 speculative tokens is "
        "6 x (1 + 3) = 24 tokens"
    )
    assert cause["at"] == "dgxspark5_capture_size_from_max_num_seqs.sh:5:3"


def test_pr37865_and_vllm54933_maximums_off_the_grid() -> None:
    """c -> a: 300 -> 288 without a draft; c -> b: 42 with six speculative tokens on 0.28.0, whose code was
    not run: a note on 0.33.0's grid, and the 42-token step given as a capture list."""
    plain = finding(check("pr37865_max_capture_size_300.cmd"), "RS069")
    assert (plain["severity"], plain["fix"]) == ("warning", "give a size vLLM captures: 288 or 304")
    assert "batches of 289-300 tokens run without CUDA graphs" in plain["message"]
    note = finding(check("vllm54933_max_capture_size_42.cmd"), "RS069")
    assert note["severity"] == "info"
    assert note["message"].endswith(
        "lowers it to 40, the largest CUDA graph capture size not above it "
        "(VllmConfig._set_cudagraph_sizes, vllm/config/vllm.py:2631); vllm 0.28.0's own code was not run, so "
        "whether it does the same is assumed"
    )
    assert note["fix"] == (
        "the maximum counts tokens, and a decode step of 6 requests with 6 speculative tokens is "
        "6 x (1 + 6) = 42 tokens, which the grid does not hold: give --cudagraph-capture-sizes ending at 42 "
        "instead (a capture list is kept as given)"
    )


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("--compilation-config '{\"max_cudagraph_capture_size\": 300}'", [("RS069", "warning")]),
        ("--max-cudagraph-capture-size 304", []),  # on the grid
        ("--max-cudagraph-capture-size 300 --enforce-eager", []),  # no CUDA graphs
        ('--max-cudagraph-capture-size 300 --compilation-config \'{"cudagraph_mode": "NONE"}\'', []),
        ("--max-cudagraph-capture-size 300 --max-num-batched-tokens 256", []),  # the limit caps it
        ("--max-cudagraph-capture-size 300 --performance-mode interactivity", []),  # another list
    ],
)
def test_rs069_variants(words: str, expected: list[tuple[str, str]]) -> None:
    """Variants (not reports): the key of --compilation-config; what turns the grid off or caps it."""
    report = command("--framework-version", "0.33.0", "-c", f"vllm serve /m {words}")
    assert codes(report, "RS069") == expected


def test_vllm54667_a_parallel_size_of_zero() -> None:
    """c -> a: ParallelConfig.pipeline_parallel_size is Field(ge=1) in 0.33.0 (read from its source by
    scripts/gen_vllm_field_bounds.py); nothing names the release, so the analysed one's error is a warning."""
    report = check("vllm54667_pipeline_parallel_zero.cmd")
    assert shown_codes(report) == [("RS070", "warning")]
    cause = finding(report, "RS070")
    assert cause["message"] == (
        "--pipeline-parallel-size 0: vllm 0.33.0 stops at start-up: ParallelConfig.pipeline_parallel_size is "
        'declared Field(ge=1), vllm/config/parallel.py:140, so pydantic refuses 0 ("Input should be greater '
        'than or equal to 1") when EngineArgs.create_engine_config builds the configuration'
    )
    assert cause["fix"] == "give --pipeline-parallel-size a value greater than or equal to 1"


@pytest.mark.parametrize(
    ("release", "words", "expected"),
    [
        ("0.33.0", "--gpu-memory-utilization 1.5", [("RS070", "error")]),
        ("0.33.0", "--tensor-parallel-size 0", [("RS070", "error")]),
        ("0.33.0", "--gpu-memory-utilization 1", []),  # le=1 holds
        ("0.33.0", "--max-model-len -1", []),  # ge=-1 holds
        ("0.32.0", "--tensor-parallel-size 0", [("RS070", "info")]),  # that release's source was not read
    ],
)
def test_rs070_variants(release: str, words: str, expected: list[tuple[str, str]]) -> None:
    """Variants (not reports): other bounded fields, values on the bound, a release whose source was not
    read."""
    report = command("--framework-version", release, "-c", f"vllm serve /m {words}")
    assert codes(report, "RS070") == expected


def test_inferencex117_a_config_the_script_writes() -> None:
    """c (the cap is GPT-OSS's model class): the config.yaml the script writes from a here-document is now
    read (was PA018 "the file is not here"): its --cuda-graph-sizes is 0.11.0's and gone in 0.13.0."""
    report = check("inferencex117_gptoss_cuda_graph_sizes.sh")
    assert "PA018" not in [f["code"] for f in report["findings"]]
    assert finding(report, "PA024")["message"].startswith("--cuda-graph-sizes works in vllm 0.11.0")
    assert {s["name"]: s["effective"] for s in report["settings"]}["max_model_len"] == 10240


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        # appended to what the script wrote: both keys
        (
            "cat > c.yaml <<EOF\nmax-num-seqs: 7\nEOF\ncat >> c.yaml <<EOF\nmax-model-len: 4096\nEOF\n"
            "vllm serve /m --config c.yaml\n",
            {"max_num_seqs": 7, "max_model_len": 4096},
        ),
        # tee writes it too
        ("tee c.yaml <<EOF\nmax-num-seqs: 9\nEOF\nvllm serve /m --config c.yaml\n", {"max_num_seqs": 9}),
        # written after the start: not what it read
        ("vllm serve /m --config c.yaml\ncat > c.yaml <<EOF\nmax-num-seqs: 7\nEOF\n", {}),
        # written in another directory than the one the start reads it from
        (
            "cd /srv/a\ncat > c.yaml <<EOF\nmax-num-seqs: 7\nEOF\ncd /srv/b\nvllm serve /m --config c.yaml\n",
            {},
        ),
        # the same file by its absolute path
        (
            "cd /srv/a\ncat > c.yaml <<EOF\nmax-num-seqs: 7\nEOF\ncd /\n"
            "vllm serve /m --config /srv/a/c.yaml\n",
            {"max_num_seqs": 7},
        ),
    ],
)
def test_heredoc_config_variants(script: str, expected: dict[str, int]) -> None:
    """Variants (not reports): what a here-document writes before the start is the file --config reads."""
    report = command("--framework-version", "0.33.0", "-c", script)
    got = {
        s["name"]: s["effective"]
        for s in report["settings"]
        if s["name"] in ("max_num_seqs", "max_model_len")
    }
    assert got == expected
    read = "PA018" not in [f["code"] for f in report["findings"]]
    assert read == bool(expected)


def test_why_on_the_truncation_warning() -> None:
    """b -> a: the site's fix said "make the condition false: change --max-cudagraph-capture-size, ...";
    now the sizes the grid keeps and the decode step a draft needs."""
    first = _why("dgxspark5_truncating_capture_size.txt")["matches"][0]
    assert first["function"] == "VllmConfig._set_cudagraph_sizes"
    assert first["fix"] == (
        "the maximum given (--max-cudagraph-capture-size, or --compilation-config's "
        "max_cudagraph_capture_size) is not a size vLLM captures: it was lowered to 4, the largest size of "
        "vllm 0.33.0's (whose code was run; the release that logged it may differ) capture grid below it "
        "(vllm/config/vllm.py:2631), and batches above 4 tokens run without CUDA graphs; give 4 or 8, and "
        "with a draft cover max_num_seqs x (1 + num_speculative_tokens) tokens, the widest decode step"
    )


def test_why_on_the_v1_frontend_warning() -> None:
    """Class a before the batch: the API server's test and the variable that decides it."""
    first = _why("pipelinerl39_v1_frontend_mp_warning.txt")["matches"][0]
    assert first["function"] == "build_async_engine_client_from_engine_args"
    assert first["fix"] == (
        "make the condition false (disable_frontend_multiprocessing): change "
        "--disable-frontend-multiprocessing, VLLM_USE_V1"
    )


def test_why_on_torchs_dtype_mismatch_is_weak() -> None:
    """c: torch's "expected scalar type Half but found BFloat16" shares words with vLLM's type checks only;
    the first site is weak (not a wrong answer)."""
    assert _why("vllm16608_expected_scalar_type_half.txt")["confidence"] == "weak"


def _generator(name: str) -> Any:
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Cut from vllm 0.33.0's vllm/config/parallel.py, vllm/config/cache.py and vllm/engine/arg_utils.py.
PARALLEL_0330 = """
class ParallelConfig:
    pipeline_parallel_size: int = Field(default=1, ge=1)
    tensor_parallel_size: int = Field(default=1, ge=1)
    _api_process_rank: int = Field(default=0, ge=-1)
"""
CACHE_0330 = """
class CacheConfig:
    block_size: int = Field(default=None, gt=0)  # type: ignore[assignment]
    gpu_memory_utilization: float = Field(default=0.92, gt=0, le=1)
"""
ARG_UTILS_0330 = """
class EngineArgs:
    pipeline_parallel_size: int = ParallelConfig.pipeline_parallel_size
    tensor_parallel_size: int = ParallelConfig.tensor_parallel_size
    block_size: int | None = None
    gpu_memory_utilization: float = CacheConfig.gpu_memory_utilization

    def create_engine_config(self):
        parallel_config = ParallelConfig(
            pipeline_parallel_size=self.pipeline_parallel_size,
            tensor_parallel_size=self.tensor_parallel_size // 2,
        )
        cache_config = CacheConfig(
            block_size=self.block_size, gpu_memory_utilization=self.gpu_memory_utilization
        )
"""


def test_field_bounds_generator_reads_fields_passed_as_given(tmp_path: Path) -> None:
    """scripts/gen_vllm_field_bounds.py keeps a bound only where EngineArgs declares the field with the
    class's default and passes it on as given: not tensor_parallel_size here (halved), not block_size
    (declared None, no class default)."""
    (tmp_path / "vllm" / "config").mkdir(parents=True)
    (tmp_path / "vllm" / "engine").mkdir()
    (tmp_path / "vllm" / "config" / "parallel.py").write_text(PARALLEL_0330)
    (tmp_path / "vllm" / "config" / "cache.py").write_text(CACHE_0330)
    (tmp_path / "vllm" / "engine" / "arg_utils.py").write_text(ARG_UTILS_0330)
    assert _generator("gen_vllm_field_bounds").read_release(tmp_path) == {
        "fields": {
            "gpu_memory_utilization": {
                "field": "CacheConfig.gpu_memory_utilization",
                "bounds": {"gt": 0, "le": 1},
                "at": "vllm/config/cache.py:4",
            },
            "pipeline_parallel_size": {
                "field": "ParallelConfig.pipeline_parallel_size",
                "bounds": {"ge": 1},
                "at": "vllm/config/parallel.py:3",
            },
        }
    }


def test_the_bundled_capture_grid() -> None:
    """The grid scripts/gen_vllm_capture_grid.py read by running 0.33.0's method: 1, 2, 4, multiples of 8
    below 256, of 16 from 256; what RS069 and `why` read from it."""
    from argtrace.frameworks.vllm_capture_grid import capture_grid

    grid = capture_grid("0.33.0")
    assert grid is not None
    assert grid.sizes[:5] == (1, 2, 4, 8, 16)
    assert set(grid.sizes) == {1, 2, 4, *range(8, 256, 8), *range(256, 8193, 16)}
    assert (grid.kept(6), grid.kept(42), grid.kept(300), grid.kept(304), grid.above(300)) == (
        4,
        40,
        288,
        304,
        304,
    )
    assert grid.where == "vllm/config/vllm.py:2631"
