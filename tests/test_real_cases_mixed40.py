"""An unsampled vLLM batch of the 37th session (docs/real_cases.md, "vLLM, mixed40: what a new user meets"),
measured before any fix on 8522c78c.

Ten failure reports of 2025-2026 taken in the order the `search` tool gave them for queries a user types
after a failed launch that earlier batches did not use, in less covered areas (CPU offload, the V1 engine's
variables, multimodal processors, LoRA modules, the mistral format, OpenAI server flags): LoRA with CPU
offload, Qwen2.5-Omni on the V1 engine, a Qwen2.5-VL fine-tune's image processor, Qwen2.5-Omni's fast image
processor under a newer transformers (two reports), a LoRA module pointing at a trainer's checkpoint,
Mistral-Small-3.1 without the mistral format, --allowed-local-media-path on a path that is not there,
VLLM_USE_V1=1 with DeepSeek-R1 on 0.7.2, and vLLM's CPU KV cache space; and two correct launches (``ok_*``,
the fixed commands of two of them). Each case under ``tests/data/real_cases_mixed40/`` names its URL in its
header; ``why/`` holds the error text a report quotes. A new user's machine (no resolver environment, no
Hugging Face cache); ``--framework-version`` where the report names the release. Each command runs once per
worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.commands.why_library import _library_value, processor_part_fix
from tests.batches import CheckBatch, missing_cases
from tests.conftest import alarms

CASES = Path(__file__).resolve().parent / "data" / "real_cases_mixed40"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report, by the better of `check` and `why`: first seen (8522c78c) and now.
CLASSES = {
    "vllm11748_gemma2_lora_cpu_offload.py": ("c", "c"),
    "qwenomni340_v1_engine_tuple_ndim.cmd": ("b", "b"),  # why: a release bug, not the V1 switch
    "proxylite25_unrecognized_image_processor.cmd": ("d", "a"),  # why: was AutoConfig's message, strong
    "vllm20855_qwen25_omni_fast_image_processor.cmd": ("c", "a"),  # why: now ProcessorMixin's check
    "qwenomni333_fast_image_processor_transformers.cmd": ("c", "a"),  # the same message
    "vllm30690_lora_checkpoint_no_adapter.cmd": ("b", "b"),  # why: the site, not the --lora-modules path
    "vllm16681_mistral_small31_mistral_tokenizer.cmd": ("c", "c"),
    "llmscaler184_allowed_local_media_path_missing.cmd": ("c", "c"),
    "vllm12958_v1_deepseek_r1_072.sh": ("c", "c"),
    "genai1762_cpu_kvcache_space_r1_distill_14b.cmd": ("a", "a"),  # why: VLLM_CPU_KVCACHE_SPACE
}
# the release a report names (vllm#20855's image tag names its own)
OPTIONS: dict[str, tuple[str, ...]] = {
    "vllm12958_v1_deepseek_r1_072.sh": ("--framework-version", "0.7.2"),
}
CORRECT = ["ok_llmscaler184_without_media_path.cmd", "ok_vllm16681_mistral_small31_mistral_format.cmd"]

BATCH = CheckBatch(CASES, CLASSES, CORRECT, OPTIONS, counts=([1, 2, 6, 1], [4, 2, 4, 0]))
check, why = BATCH.check, BATCH.why
globals().update(BATCH.tests())


# What `why` gives on each quoted text: (confidence, the start of its origin or of its first site's
# function, and of that site's fix).
WHY = {
    "genai1762_cpu_kvcache_space_r1_distill_14b.cmd": (
        "strong",
        "CPUWorker._validate_num_cpu_blocks",
        "make the condition false (self.model_config.max_model_len > max_seq_len): change --max-model-len, "
        "VLLM_CPU_KVCACHE_SPACE",
    ),
    "proxylite25_unrecognized_image_processor.cmd": (
        "strong",
        "AutoImageProcessor.from_pretrained",
        "transformers refused 'convergence-ai/proxy-lite-3b', which comes from --model-path (sglang), "
        "--model (vllm): transformers reads that directory's or repo's preprocessor_config.json",
    ),
    "vllm20855_qwen25_omni_fast_image_processor.cmd": (
        "strong",
        "ProcessorMixin.check_argument_for_proper_class",
        "transformers built the processor's image_processor as Qwen2VLImageProcessorFast where the model's "
        "processor class expects Qwen2VLImageProcessor",
    ),
    "qwenomni333_fast_image_processor_transformers.cmd": (
        "strong",
        "ProcessorMixin.check_argument_for_proper_class",
        "transformers built the processor's image_processor as Qwen2VLImageProcessorFast",
    ),
    "vllm30690_lora_checkpoint_no_adapter.cmd": (
        "strong",
        "WorkerLoRAManager._load_adapter",
        "this reports FileNotFoundError raised by the code it wraps",
    ),
    "qwenomni340_v1_engine_tuple_ndim.cmd": (
        "strong",
        "Python's interpreter: code read the attribute ndim, which the tuple object does not have",
        "",
    ),
}


globals().update(BATCH.why_tests(WHY))


def test_the_image_processor_message_is_read_as_its_own() -> None:
    """proxy-lite#25, d -> a: "Unrecognized image processor in X" was matched, strong, to AutoConfig's
    "Unrecognized model in X" (transformers' image processor module was not indexed); it is now
    AutoImageProcessor's own site, whose fix names the model's preprocessor_config.json and the
    transformers release, not config.json's model_type."""
    first = why("proxylite25_unrecognized_image_processor.cmd")["matches"][0]
    assert first["file"] == "transformers/models/auto/image_processing_auto.py"
    assert first["fix"].endswith(
        "transformers reads that directory's or repo's preprocessor_config.json (its image_processor_type) "
        "and config.json (its model_type) and knows no image processor class by those names; a transformers "
        "release that has the image processor class the model's preprocessor_config.json names (the "
        "framework release's requirements name the range), or the model's updated preprocessor_config.json "
        "(an image_processor_type this release has); a directory without preprocessor_config.json is not "
        "the model's own"
    )
    assert "model_type it knows" not in first["fix"]


def test_the_processor_part_fix_names_the_transformers_release() -> None:
    """vllm#20855 and Qwen2.5-Omni#333, c -> a: ProcessorMixin's part check (transformers/processing_utils.py)
    is indexed, and its fix is the transformers release, the threads' answer (4.52.3 ran), with the classes
    the text names."""
    first = why("vllm20855_qwen25_omni_fast_image_processor.cmd")["matches"][0]
    assert first["fix"] == (
        "transformers built the processor's image_processor as Qwen2VLImageProcessorFast where the model's "
        "processor class expects Qwen2VLImageProcessor, which the installed transformers release decides "
        "(its Auto* classes pick the fast or the slow one), not a server setting: install the transformers "
        "release the framework release and the model were made for (the framework release's requirements "
        "name the range), or the framework release made for the installed transformers"
    )
    assert [v["version"] for v in first["versions"]] == ["4.57.6", "5.23.0"]


def test_a_processor_check_without_the_names_keeps_a_general_fix() -> None:
    """A text that does not show the classes (a cut line) still gets the release fix, in general words; a
    group of another library or function is left as it was."""
    groups = [
        {
            "framework": "transformers",
            "function": "ProcessorMixin.__init__",
            "fix": "make the condition false",
        },
        {"framework": "vllm", "function": "ProcessorMixin.__init__", "fix": "unchanged"},
    ]
    processor_part_fix(groups, "TypeError: Received a")
    assert groups[0]["fix"].startswith(
        "transformers built the processor's a part as another class where the model's processor class "
        "expects the class it names"
    )
    assert groups[1]["fix"] == "unchanged"


def test_the_model_directory_messages_keep_their_meaning() -> None:
    """Only a message about an image processor takes its entry; AutoConfig's "Unrecognized model in X" keeps
    config.json's model_type."""
    config = _library_value(
        "transformers", "pretrained_model_name_or_path", ["Unrecognized model in ", ["x"]]
    )
    image = _library_value(
        "transformers", "pretrained_model_name_or_path", ["Unrecognized image processor in ", ["x"]]
    )
    assert config is not None and config.how.endswith("finds no model_type it knows")
    assert image is not None and "preprocessor_config.json" in image.how
    assert _library_value("transformers", "other", ["image processor"]) is None


# The failure reports not in class a, with the word the cause's alarm must hold and the mechanism argtrace
# lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "vllm11748_gemma2_lora_cpu_offload.py": (
        "cpu-offload-gb",
        "which releases cannot run LoRA with CPU offload is not read from the releases (PR #11810 added a "
        "check that refuses the pair after the report's release; V1 supports it from PR #15843), and the "
        "report quotes no error text for `why`",
    ),
    "qwenomni340_v1_engine_tuple_ndim.cmd": (
        "VLLM_USE_V1",
        "which models a release's V1 engine cannot run is not read from the releases; `why` reads the "
        "AttributeError as a release bug or a package mismatch, not the engine switch the thread used "
        "(VLLM_USE_V1=0)",
    ),
    "vllm30690_lora_checkpoint_no_adapter.cmd": (
        "lora-modules",
        "`why` finds the site (WorkerLoRAManager._load_adapter) but not that the lora_request's path is the "
        "--lora-modules path; `check` cannot see the node's directory (a trainer's checkpoint folder "
        "without the adapter's files)",
    ),
    "vllm16681_mistral_small31_mistral_tokenizer.cmd": (
        "config-format",
        "which models a release loads only in the mistral format (--config-format and --load-format mistral "
        "beside --tokenizer-mode mistral) is not read from the releases or the model's repo, and the report "
        "quotes no error text",
    ),
    "llmscaler184_allowed_local_media_path_missing.cmd": (
        "allowed-local-media-path",
        "vLLM refuses a --allowed-local-media-path that does not exist on the node; files on the node are "
        "not visible here, and the error is a screenshot",
    ),
    "vllm12958_v1_deepseek_r1_072.sh": (
        "VLLM_USE_V1",
        "which architectures a release's V1 engine runs (DeepSeek's MLA: not in 0.7.2) is not generated from "
        "the releases, and the report quotes no error text",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
