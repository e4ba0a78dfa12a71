"""What the JSON generators share (scripts/generated_json.py): reading a release's modules from its wheel
or from a tree extracted from one, as gen_vllm_all2all.py, gen_vllm_mamba_cache.py, gen_vllm_draft_tp.py and
gen_sglang_mamba_slots.py do (each kept its own copy of this reader until session 29)."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from generated_json import wheel_modules

MODULES = {
    "vllm/config/parallel.py": "ALL2ALL = 1\n",
    "vllm/v1/spec_decode/eagle.py": "draft_tensor_parallel_size = 1\n",
    "vllm/v1/README.md": "not a module\n",
    "vllm/envs.py": "VLLM_X = 1\n",
}


def _wheel(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as archive:
        for module, text in MODULES.items():
            archive.writestr(module, text)
    return path


def _tree(tmp_path: Path, wheel: str) -> Path:
    root = tmp_path / "tree"
    for module, text in MODULES.items():
        (root / module).parent.mkdir(parents=True, exist_ok=True)
        (root / module).write_text(text)
    (root / "WHEEL").write_text(wheel + "\n")
    return root


@pytest.mark.parametrize("kind", ["wheel", "tree"])
def test_the_modules_kept_with_the_release_of_the_wheel_s_name(tmp_path: Path, kind: str) -> None:
    name = "vllm-0.28.0.post1-cp38-abi3-manylinux1_x86_64.whl"
    source = _wheel(tmp_path, name) if kind == "wheel" else _tree(tmp_path, name)
    release, wheel, texts = wheel_modules(
        source, lambda m: m.startswith("vllm/v1/") and m.endswith(".py"), "vllm"
    )
    assert (release, wheel) == ("0.28.0.post1", name)
    assert texts == {"vllm/v1/spec_decode/eagle.py": "draft_tensor_parallel_size = 1\n"}
    _, _, named = wheel_modules(source, ("vllm/config/parallel.py", "vllm/absent.py").__contains__, "vllm")
    assert named == {"vllm/config/parallel.py": "ALL2ALL = 1\n"}


def test_a_wheel_of_another_package_is_refused(tmp_path: Path) -> None:
    source = _wheel(tmp_path, "sglang-0.5.23-py3-none-any.whl")
    with pytest.raises(
        SystemExit, match=r"no vllm release in the wheel name 'sglang-0\.5\.23-py3-none-any\.whl'"
    ):
        wheel_modules(source, lambda m: True, "vllm")
    assert wheel_modules(source, lambda m: False, "sglang")[:2] == (
        "0.5.23",
        "sglang-0.5.23-py3-none-any.whl",
    )
