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


def test_releases_covered() -> None:
    vllm = model_caps.releases("vllm")
    sglang = model_caps.releases("sglang")
    assert (vllm[0], vllm[-1], len(vllm)) == ("0.6.6.post1", "0.33.0", 31)
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
                '_TEXT = {"A": ("a", "A"), "NoLora": ("a", "NoLora"), "Odd": ("a", "Odd"), "Al": ("a", "Alias")}\n'
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
    report = checked("vllm46459_minicpmv46_lora.sh", MODELS / "minicpm-v-4.6", "--framework-version", "0.22.1")
    [finding] = [f for f in report["findings"] if f["code"] in CODES]
    assert (finding["code"], finding["severity"], finding["setting"]) == ("RS048", "error", "enable_lora")
    assert finding["message"] == MINICPM_0221


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
