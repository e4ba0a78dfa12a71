"""An unsampled SGLang batch of the 37th session (docs/real_cases.md, "SGLang, mixed39: what a new user
meets"), measured before any fix on 8522c78c.

Ten failure reports of 2025-2026 taken in the order the `search` tool gave them for queries a user types
after a failed launch that earlier batches did not use (an AWQ checkpoint in an image without vLLM,
Mistral-Small-3.1 on a release before its support, MiniMax-M2 from an environment without pybase64,
MiniCPM4's KeyError 'rope_type', a port another SGLang server holds, Kimi-K2.5 with pipeline parallelism,
an EAGLE3 draft whose config.json names the base model's class, Qwen3-Embedding on releases before 0.4.7
(twice), Qwen3-235B-A22B under a transformers without qwen3_moe) and two correct launches (``ok_*``: the
fixed commands of two of them). Each case under ``tests/data/real_cases_mixed39/`` names its URL in its
header; ``why/`` holds the error text a report quotes. A new user's machine (no resolver environment, no
Hugging Face cache); ``--gpu`` and ``--framework-version`` where the report names them. Each command runs
once per worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.batches import (
    CheckBatch,
    missing_cases,
)
from tests.conftest import alarms

CASES = Path(__file__).resolve().parent / "data" / "real_cases_mixed39"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report, by the better of `check` and `why`: first seen (8522c78c) and now.
CLASSES = {
    "sglang6068_qwen3_32b_awq_image_no_vllm.cmd": ("a", "a"),  # why: install vllm, the message's own
    "sglang4948_mistral_small_31_0442.cmd": ("c", "c"),
    "sglang13276_minimax_m2_py314_pybase64.cmd": ("b", "a"),  # why: pybase64 is SGLang's requirement
    "minicpm269_minicpm4_keyerror_rope_type.cmd": ("c", "c"),
    "gpustack5842_sglang_metrics_port_in_use.cmd": ("b", "a"),  # why: the port's derivation, not the wait
    "sglang19503_kimi_k25_pp2_two_nodes.cmd": ("b", "a"),  # why: the model class's forward decides PP
    "sglang9135_qwen3_14b_eagle3_draft_arch.cmd": ("c", "a"),  # why: 'midlayer' is the EAGLE3 classes'
    "sglang9747_qwen3_embedding_4b_0461.cmd": ("c", "a"),  # why: the names lack the model. prefix
    "sglang6917_qwen3_embedding_8b_0465.cmd": ("b", "b"),  # why: the general weight-name fix
    "qwen3_1368_qwen3_235b_unrecognized_qwen3_moe.cmd": ("a", "a"),  # why: a transformers that knows it
}
# the GPU and release a report names (or its date does)
OPTIONS: dict[str, tuple[str, ...]] = {
    "sglang4948_mistral_small_31_0442.cmd": ("--framework-version", "0.4.4.post2"),
    "sglang13276_minimax_m2_py314_pybase64.cmd": ("--framework-version", "0.5.5"),
    "sglang19503_kimi_k25_pp2_two_nodes.cmd": ("--framework-version", "0.5.9"),
    "ok_sglang19503_kimi_k25_tp16_two_nodes.cmd": ("--framework-version", "0.5.9"),
    "sglang9747_qwen3_embedding_4b_0461.cmd": ("--framework-version", "0.4.6.post1"),
    "sglang6917_qwen3_embedding_8b_0465.cmd": ("--gpu", "a800-80gx8", "--framework-version", "0.4.6.post5"),
    "ok_sglang6917_qwen3_embedding_8b_047.cmd": ("--gpu", "a800-80gx8", "--framework-version", "0.4.7.post1"),
    "qwen3_1368_qwen3_235b_unrecognized_qwen3_moe.cmd": ("--gpu", "h100x8"),
}
CORRECT = ["ok_sglang19503_kimi_k25_tp16_two_nodes.cmd", "ok_sglang6917_qwen3_embedding_8b_047.cmd"]

BATCH = CheckBatch(CASES, CLASSES, CORRECT, OPTIONS, counts=([2, 4, 4, 0], [7, 1, 2, 0]))
check, why = BATCH.check, BATCH.why
globals().update(BATCH.tests())


# What `why` gives on each quoted text: (confidence, the start of its origin or of its first site's
# function, and of that site's fix; or of the Python reading's fix when no site matches).
WHY = {
    "sglang6068_qwen3_32b_awq_image_no_vllm.cmd": (
        "strong",
        "get_quantization_config",
        "the condition quantization in VLLM_QUANTIZATION_METHODS and (not VLLM_AVAILABLE) is the "
        "environment's",
    ),
    "sglang13276_minimax_m2_py314_pybase64.cmd": (
        "none",
        "Python's import system: the installed package is broken or missing",
        "install SGLang's requirements in the environment that runs the server (pip install pybase64, or "
        "reinstall sglang there with its dependencies",
    ),
    "minicpm269_minicpm4_keyerror_rope_type.cmd": ("none", "", ""),
    "gpustack5842_sglang_metrics_port_in_use.cmd": (
        "strong",
        "wait_port_available",
        "another process holds port 40290 (the message names it), which this server reserves as "
        "metrics_port: SGLang 0.5.23 derives the ports it binds at start from one port (the dist-init port "
        "is --dist-init-addr's port, else --port + 233; PortArgs.init_new waits for each): metrics_port is "
        "the dist-init port + 4, so this server's dist-init port was 40286; stop the process that holds it",
    ),
    "sglang19503_kimi_k25_pp2_two_nodes.cmd": (
        "strong",
        "ModelRunner.__init__",
        "support_pp is whether the model class's forward takes pp_proxy_tensors "
        "(sglang/srt/model_executor/model_runner.py:514 of SGLang 0.5.23): the model decides it, no flag "
        "does",
    ),
    "sglang9135_qwen3_14b_eagle3_draft_arch.cmd": (
        "none",
        "Python's interpreter: a KeyError on a checkpoint tensor's name at the model's weight loader",
        "'midlayer' is a name only Eagle3DeepseekV2ForCausalLM (kimi_k25_eagle3.py), "
        "LlamaForCausalLMEagle3 (llama_eagle3.py) know: the checkpoint holds that class's tensors and the "
        "server built another model for it (the server built qwen3.py's class)",
    ),
    "sglang9747_qwen3_embedding_4b_0461.cmd": (
        "none",
        "Python's interpreter: a KeyError on a checkpoint tensor's name at the model's weight loader",
        "'embed_tokens' is a module of the inner model a causal-LM class holds as 'model': the checkpoint's "
        "names lack the 'model.' prefix the built class's parameters carry",
    ),
    "sglang6917_qwen3_embedding_8b_0465.cmd": (
        "none",
        "Python's interpreter: a KeyError on a checkpoint tensor's name at the model's weight loader",
        "the checkpoint's tensor names do not fit the model this release builds for it",
    ),
    "qwen3_1368_qwen3_235b_unrecognized_qwen3_moe.cmd": (
        "strong",
        "AutoConfig.from_pretrained",
        "transformers refused '/home/user/Qwen/Qwen3-235B-A22B', which comes from --model-path (sglang)",
    ),
}


@pytest.mark.parametrize("name", sorted(WHY))
def test_what_why_gives_on_the_quoted_text(name: str) -> None:
    confidence, start, fix = WHY[name]
    section = why(name)
    assert section["confidence"] == confidence
    origin = (section.get("origin") or {}).get("origin") or ""
    first = (section["matches"] or [None])[0]
    said = origin or (first["function"] if first else "")
    assert said.startswith(start) and bool(said) == bool(start)
    reading = section.get("weights") or section.get("dependency")
    given = first["fix"] if first else (reading or {}).get("fix", "")
    assert given.startswith(fix)


def test_a_dependency_is_no_framework_site() -> None:
    """sglang#13276: the import system's words matched vLLM's import_from_path on 13 characters (weak
    candidates); the module is one of SGLang's requirements, so no site is offered and the reading names
    the releases whose wheels require it."""
    section = why("sglang13276_minimax_m2_py314_pybase64.cmd")
    assert section["matches"] == []
    assert section["dependency"]["meaning"].startswith(
        "pybase64 is a requirement of SGLang (SGLang 0.5.10.post1, 0.5.23: its wheel's Requires-Dist, in "
        "every install)"
    )


def test_a_submodule_or_an_unrequired_module_is_no_dependency() -> None:
    """A missing submodule means the package is there (another release of it lacks the module); a module no
    framework requires, or the framework's own, is not read."""
    from argtrace.commands.why_requires import dependency_error

    assert dependency_error("ModuleNotFoundError: No module named 'transformers.models.glm_ocr'") is None
    assert dependency_error("ModuleNotFoundError: No module named 'somepkg'") is None
    assert dependency_error("ModuleNotFoundError: No module named 'sglang'") is None
    found = dependency_error("ModuleNotFoundError: No module named 'torchaudio'")
    assert found is not None and found["framework"] == "sglang"


def test_a_layer_name_and_vllm_keep_the_general_weight_fix() -> None:
    """A missing layer ('layers.61...') reads as well as a pipeline stage's split (vllm#16450), and vLLM's
    inner models load names without the prefix: neither gets the prefix reading."""
    from argtrace.commands.why_weights import weight_key

    general = "the checkpoint's tensor names do not fit the model this release builds for it"
    layer = weight_key("KeyError: 'layers.61.mlp.experts.w2_weight'")
    assert layer is not None and layer["fix"].startswith(general)
    vllm = weight_key("vllm/model_executor/models/qwen2.py load_weights\nKeyError: 'embed_tokens.weight'")
    assert vllm is not None and vllm["fix"].startswith(general)
    own = weight_key("sglang/srt/models/llama_eagle3.py load_weights\nKeyError: 'midlayer.mlp.weight'")
    assert own is not None and own["fix"].startswith(general)  # the loader that knows the name failed


def test_the_port_fix_follows_the_release_table() -> None:
    """A port name the table has no offset for says nothing beyond the site; nccl_port is --nccl-port's."""
    from argtrace.commands.why_ports import port_fix

    assert port_fix("ValueError: foo_port at 1 is not available in 30 seconds.") is None
    nccl = port_fix("ValueError: nccl_port at 31000 is not available in 30 seconds. nccl_port is used")
    assert (
        nccl is not None and "nccl_port is nccl_port there (--nccl-port when given, else a free port)" in nccl
    )


# The failure reports not in class a, with the word the cause's alarm must hold and the mechanism argtrace
# lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglang4948_mistral_small_31_0442.cmd": (
        "Mistral3ForConditionalGeneration",
        "the architecture is in config.json, which a new user's machine lacks (RS047 would name a release "
        "that does not register it); the report's traceback is cut before its message, so `why` has no text",
    ),
    "minicpm269_minicpm4_keyerror_rope_type.cmd": (
        "rope",
        "the report quotes only \"KeyError: 'rope_type'\": no frame says which release's code read the "
        "model's rope_scaling, and check has no config.json to compare with the release's readers",
    ),
    "sglang6917_qwen3_embedding_8b_0465.cmd": (
        "Embedding",
        "a missing 'layers.N' name reads as well as a pipeline stage's split, so `why` keeps the general "
        "fix; which releases' qwen3.py add the model. prefix for an Embedding path (0.4.7 on) is not read "
        "from the wheels, and check does not know the checkpoint's tensor names",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
