"""The per-release model table (``scripts/gen_model_caps.py`` -> ``frameworks/data/model_caps``) and the rules
that read it (``layers/model_caps.py``: RS047-RS050), on real reports (``tests/data/modelcaps/``, each file's
first line its URL; the model folders hold only a config.json trimmed to the fields argtrace reads, with the
``architectures`` the report's error names) and correct launches that must stay clean. The machine is a new
user's (no resolver environment, no Hugging Face cache): config.json comes from ``--model-config``."""

from __future__ import annotations

import importlib.util
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks import model_caps
from tests.conftest import REPO, Launch, alarms, check_launch

CASES = Path(__file__).resolve().parent / "data" / "modelcaps"
MODELS = CASES / "models"
SHARED_MODELS = Path(__file__).resolve().parent / "data" / "models"
CODES = ("RS047", "RS048", "RS049", "RS050")

pytestmark = pytest.mark.usefixtures("new_user_machine")


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_model_caps", REPO / "scripts" / "gen_model_caps.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_model_caps"] = module
    spec.loader.exec_module(module)
    return module


def caps_findings(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"] if f["code"] in CODES]


def checked(file: str, model: Path, *options: str) -> dict[str, Any]:
    return check_launch(CASES, Launch(file, ("--model-config", str(model), *options)))


# ------------------------------------------------------------------------------------------- the table
def test_a_known_class_in_a_known_release() -> None:
    """vLLM 0.33.0's LlamaForCausalLM, read from the wheel: llama.py's class implements SupportsLoRA and
    SupportsPP (interfaces.py sets supports_lora/supports_pp True)."""
    release = model_caps.release("vllm", "0.33.0")
    assert release is not None
    assert release.model("LlamaForCausalLM") == model_caps.ModelClass(
        "LlamaForCausalLM", "llama:LlamaForCausalLM", frozenset({"lora", "pp"})
    )
    assert release.refusals["lora"] == model_caps.Site(
        "vllm/v1/worker/lora_model_runner_mixin.py",
        50,
        "LoRAModelRunnerMixin.load_lora_model",
        "{model.__class__.__name__} does not support LoRA yet.",
        "ValueError",
    )
    assert release.refusals["pp"].line == 1573
    assert release.transformers_fallback is True
    assert release.previously["Phi3SmallForCausalLM"] == "0.9.2"


def test_an_architecture_across_releases() -> None:
    """gpt-oss arrives in 0.10.1.1 without LoRA or PP (gpt_oss.py's class implements neither there)."""
    first, cls = model_caps.history("vllm", "GptOssForCausalLM")[0]
    assert (first, cls) == (
        "0.10.1.1",
        model_caps.ModelClass("GptOssForCausalLM", "gpt_oss:GptOssForCausalLM", frozenset()),
    )
    assert model_caps.first_registering("vllm", "GptOssForCausalLM") == "0.10.1.1"
    assert model_caps.refuses("vllm", "0.10.1.1", "lora") and not model_caps.refuses(
        "sglang", "0.5.23", "lora"
    )


def test_releases_covered() -> None:
    vllm = model_caps.releases("vllm")
    sglang = model_caps.releases("sglang")
    assert (vllm[0], vllm[-1], len(vllm)) == ("0.6.3.post1", "0.33.0", 34)
    assert (sglang[0], sglang[-1], len(sglang)) == ("0.4.0.post2", "0.5.23", 34)
    llama = model_caps.release("sglang", "0.5.23")
    assert llama is not None and llama.model("LlamaForCausalLM") is not None


def _wheel(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return path


def test_the_generator_follows_bases_across_modules(tmp_path: Path) -> None:
    """The flags are looked up through the MRO over every model module: an interface imported from another
    module, a class that switches a flag off, a base the packages do not hold (not known), an alias."""
    models = "vllm/model_executor/models/"
    wheel = _wheel(
        tmp_path / "vllm-9.9.9-py3-none-any.whl",
        {
            f"{models}interfaces.py": (
                "class SupportsLoRA:\n    supports_lora = True\n"
                "class SupportsPP:\n    supports_pp: bool = True\n"
            ),
            f"{models}base.py": (
                "from torch import nn\nfrom .interfaces import SupportsLoRA, SupportsPP\n"
                "class Base(nn.Module, SupportsLoRA, SupportsPP):\n    pass\n"
            ),
            f"{models}a.py": (
                "from .base import Base\nfrom vllm.other import Mixin\n"
                "class A(Base):\n    pass\n"
                "class NoLora(Base):\n    supports_lora = False\n"
                "class Odd(Mixin):\n    pass\n"
                "Alias = A\n"
            ),
            f"{models}registry.py": (
                '_TEXT = {"A": ("a", "A"), "NoLora": ("a", "NoLora"), "Odd": ("a", "Odd"),\n'
                '         "Al": ("a", "Alias")}\n'
                "_VLLM_MODELS = {**_TEXT}\n"
            ),
        },
    )
    read = _generator().read_release("vllm", wheel)
    assert read["archs"] == {
        "A": ["a:A", ["lora", "pp"]],
        "Al": ["a:Alias", ["lora", "pp"]],
        "NoLora": ["a:NoLora", ["pp"]],
        "Odd": ["a:Odd", ["unknown"]],
    }
    assert read["transformers_fallback"] is False


def test_check_mode_skips_releases_without_their_wheel(tmp_path: Path) -> None:
    assert _generator().check([tmp_path]) == 0


# ------------------------------------------------------------------------------------------- the rules
MINICPM_0221 = (
    "--enable-lora, but MiniCPMV4_6ForConditionalGeneration (vllm/model_executor/models/minicpmv4_6.py) "
    "does not implement SupportsLoRA in vllm 0.22.1: LoRAModelRunnerMixin.load_lora_model "
    "(vllm/v1/worker/lora_model_runner_mixin.py:38) raises ValueError: "
    '"MiniCPMV4_6ForConditionalGeneration does not support LoRA yet." when the model is loaded'
)


def test_vllm46459_lora_on_minicpm_v46_named_release() -> None:
    """https://github.com/vllm-project/vllm/issues/46459: the report names 0.22.1; the wheel's class does not
    implement SupportsLoRA there, so the start-up refusal is an error."""
    report = checked(
        "vllm46459_minicpmv46_lora.sh", MODELS / "minicpm-v-4.6", "--framework-version", "0.22.1"
    )
    [finding] = [f for f in report["findings"] if f["code"] in CODES]
    assert (finding["code"], finding["severity"], finding["setting"]) == ("RS048", "error", "enable_lora")
    assert finding["message"] == MINICPM_0221


# Each report with what a new user passes: its config.json (--model-config, trimmed; the report names the
# architecture in its error) and the release it names. (code, severity) expected; [] when missed.
CASES_FOUND = {
    # https://github.com/vllm-project/vllm/issues/40693: 0.19.1, Gemma 4 LoRA (supported from 0.20.2)
    "vllm40693_gemma4_lora.cmd": ("gemma-4-e4b-it", "0.19.1", [("RS048", "error")]),
    # https://github.com/vllm-project/vllm/issues/17636: no release named; OPT: no LoRA in 0.6.3.post1-0.11.0
    "vllm17636_opt_lora.cmd": ("opt-checkpoint", None, [("RS048", "info")]),
    # https://github.com/zai-org/GLM-V/issues/15: 0.9.1 (read from 0.8.5.post1), GLM-4.1V there from 0.9.2:
    # a note since the memory batch 3 (0.9.1 lies between a registry without it and one with it, and
    # vllm#15676's Gemma 3 on 0.8.2, between the same kind of pair, did start)
    "glmv15_glm41v_limit_mm_091.cmd": ("glm-4.1v-9b-thinking", "0.9.1", [("RS047", "info")]),
    # https://github.com/zai-org/GLM-4/issues/662: 0.6.4 (read from 0.6.3.post1), GlmForCausalLM from 0.6.5
    "glm4_662_glm4_hf_064.cmd": ("glm-4-9b-chat-hf", "0.6.4", [("RS047", "warning")]),
    # https://github.com/vllm-project/vllm/issues/52761: DeepSeek-V4's class is chosen per platform
    # (vllm/models/deepseek_v4/__init__.py imports amd/, xpu/ or nvidia/ under `if`); their flags differ
    "vllm52761_deepseek_v4_pp.cmd": ("deepseek-v4-flash", None, []),
    # https://github.com/vllm-project/vllm/issues/16231: 0.8.3, not named; each covered release registering
    # Llama4ForConditionalGeneration (0.8.5.post1 on) implements SupportsPP
    "vllm16231_llama4_pp.cmd": ("llama-4-maverick", None, []),
}


@pytest.mark.parametrize("file", sorted(CASES_FOUND))
def test_real_reports(file: str) -> None:
    model, release, expected = CASES_FOUND[file]
    options = ("--framework-version", release) if release else ()
    report = checked(file, MODELS / model, *options)
    assert caps_findings(report) == expected


GLM_V15 = (
    "vllm 0.8.5.post1 registers no model class for ['Glm4vForConditionalGeneration'] (the first covered "
    "release that registers Glm4vForConditionalGeneration: vllm 0.9.2); --limit-mm-per-prompt needs "
    "SupportsMultiModal, "
    "which its Transformers backend (TransformersForCausalLM) does not implement either: whether or not the "
    "installed transformers has Glm4vForConditionalGeneration, the launch is refused "
    "(_ModelRegistry._raise_for_unsupported (vllm/model_executor/models/registry.py:419) raises ValueError: "
    "\"Model architectures ['Glm4vForConditionalGeneration'] are not supported for now. Supported "
    "architectures: "
    '..."; or, loaded through the backend, ModelConfig._init_multimodal_config (vllm/config.py:590) raises '
    'ValueError: "`limit_mm_per_prompt` is only supported for multimodal models."); vllm 0.9.1 lies '
    "between 0.8.5.post1 and 0.9.2, which registers it, so whether it does is not known"
)


def test_glm_v15_either_way_refused_read_from_the_release_before() -> None:
    """0.9.1 is not covered: 0.8.5.post1's table is read (a note, basis assumed, naming it: 0.9.2 registers
    the class, so 0.9.1's registry is not known); the
    Transformers backend of 0.7.3-0.9.2 is text-only, so the multimodal limit is refused either way."""
    report = checked(
        "glmv15_glm41v_limit_mm_091.cmd", MODELS / "glm-4.1v-9b-thinking", "--framework-version", "0.9.1"
    )
    [finding] = [f for f in report["findings"] if f["code"] in CODES]
    assert finding["message"] == GLM_V15
    assert finding["fix"] == "use vllm 0.9.2 or newer"
    assert finding["basis"] == "assumed"
    assert finding["assumed"][0]["value"] == "vllm 0.8.5.post1 for 0.9.1 (not covered)"


def test_previous_batch_cases_with_their_config() -> None:
    """docs/real_cases.md "vLLM, 17th session": V17-12 (gpt-oss-120b on 0.10.0) and V17-01 (Qwen2.5-Omni
    with --enable-lora, release not named), now with their config.json: notes, since 0.10.0 has a
    Transformers backend and V17-01's release is not known."""
    v17 = Path(__file__).resolve().parent / "data" / "real_cases_vllm17"
    gpt = check_launch(
        v17,
        Launch(
            "vllm22301_gpt_oss_on_0100.cmd",
            ("--model-config", str(SHARED_MODELS / "gpt-oss-120b"), "--framework-version", "0.10.0"),
        ),
    )
    [finding] = [f for f in gpt["findings"] if f["code"] in CODES]
    assert (finding["code"], finding["severity"]) == ("RS047", "info")
    assert finding["message"].startswith(
        "vllm 0.10.0 registers no model class for ['GptOssForCausalLM'] (the first covered release that "
        "registers GptOssForCausalLM: vllm 0.10.1.1): it starts only through the Transformers backend"
    )
    omni = check_launch(
        v17, Launch("qwenomni302_enable_lora_omni.cmd", ("--model-config", str(MODELS / "qwen2.5-omni-7b")))
    )
    assert caps_findings(omni) == [("RS048", "info")]


def test_sglang_release_without_a_transformers_fallback() -> None:
    """SGLang registers Glm4ForCausalLM from 0.4.8.post1 (srt/models/glm4.py's EntryClass); 0.4.5.post3 has
    no resolve_transformers_arch, so its registry refuses the model (a variant of sglang#5441, whose
    release is not given)."""
    command = "python -m sglang.launch_server --model-path THUDM/GLM-4-9B-0414"
    for release, expected in (("0.4.5.post3", [("RS047", "error")]), ("0.4.8.post1", [])):
        report = _check_command(command, MODELS / "glm-4-0414", release)
        assert caps_findings(report) == expected


def _check_command(command: str, model: Path, release: str) -> dict[str, Any]:
    from tests.conftest import run_cli

    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--model-config",
            str(model),
            "--framework-version",
            release,
            "-c",
            command,
        ]
    )
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_no_config_no_finding() -> None:
    """Without config.json (a new user's machine, no --model-config) the table is not read."""
    report = check_launch(CASES, Launch("vllm46459_minicpmv46_lora.sh", ("--framework-version", "0.22.1")))
    assert caps_findings(report) == []


def test_a_config_without_architectures_gives_nothing() -> None:
    report = checked("ok_no_architectures.cmd", MODELS / "no-architectures", "--framework-version", "0.33.0")
    assert caps_findings(report) == []
    assert alarms(report) == []


@pytest.mark.parametrize(
    ("file", "model", "release"),
    [
        ("ok_llmos41_llama2_lora.cmd", SHARED_MODELS / "llama-2-7b-chat", "0.33.0"),
        ("ok_llmos41_llama2_lora.cmd", SHARED_MODELS / "llama-2-7b-chat", "0.6.6.post1"),
        ("ok_habana1000_llama_pp4.cmd", SHARED_MODELS / "llama-3.1-8b", "0.8.5.post1"),
        ("ok_habana1000_llama_pp4.cmd", SHARED_MODELS / "llama-3.1-8b", None),
    ],
)
def test_correct_launches_stay_clean(file: str, model: Path, release: str | None) -> None:
    options = ("--framework-version", release) if release else ()
    report = checked(file, model, *options)
    assert caps_findings(report) == []
    assert alarms(report) == []


def test_json_store_is_compact() -> None:
    for framework in ("vllm", "sglang"):
        path = model_caps.CAPS_DIR / f"{framework}.json.gz"
        assert path.stat().st_size < 200_000
        data = json.loads(__import__("gzip").decompress(path.read_bytes()))
        assert data["generated_by"] == "scripts/gen_model_caps.py"
        assert all(len(meta["sha256"]) == 64 for meta in data["releases"].values())
