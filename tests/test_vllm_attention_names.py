"""The attention backend names each vLLM release accepts (PA070, layers/attention_names.py), read from the
release's wheel by scripts/gen_vllm_attention_names.py into frameworks/data/vllm_attention_names.json.

The real cases under ``tests/data/vllm_attention_names/`` (each names its source in its header), measured
as a new user (no resolver environment, no Hugging Face cache) on main 2d1cff86 before the change: a script
exporting VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1 for gpt-oss (beita6969/new-colab), NVIDIA's vLLM 0.12.0
refusing XFORMERS and failing on TORCH_SDPA (GJKarthik/aicore-pipelines), vllm-omni#4342's TORCH_SDPA stage
on a 0.22 image; each with its corrected launch (``ok_*``), which must stay clean.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.batches import finding, recorded_check, table_counts, unsourced
from tests.conftest import Launch, alarms, run_cli

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "data" / "vllm_attention_names"
TABLE = REPO / "src" / "argtrace" / "frameworks" / "data" / "vllm_attention_names.json"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# the class of each failure (first seen on 2d1cff86, now): all four were missed without a word
CLASSES = {
    # PA070 as a note: the release is assumed, and the name was vLLM's in 0.8.5.post1-0.10.2 (gpt-oss ran
    # on 0.10.1 with it: fa29's compose file of the same shape is a working launch)
    "newcolab_triton_attn_vllm_v1_gptoss.sh": ("c", "b"),
    "aicore_ngc_0120_xformers.cmd": ("c", "a"),  # PA070 error: envs.py's refusal
    "aicore_ngc_0120_torch_sdpa.cmd": ("c", "a"),  # PA070 warning: a tag without a class (CUDA)
    "vllmomni4342_torch_sdpa_stage.cmd": ("c", "a"),  # PA070 warning: the same under the flag
}
CORRECT = [
    "ok_newcolab_triton_attn_gptoss.sh",
    "ok_aicore_ngc_0120_triton_attn.cmd",
    "ok_vllmomni4342_triton_attn_stage.cmd",
]
OPTIONS: dict[str, tuple[str, ...]] = {
    "ok_newcolab_triton_attn_gptoss.sh": ("--framework-version", "0.11.0"),
    "aicore_ngc_0120_xformers.cmd": ("--framework-version", "0.12.0"),
    "aicore_ngc_0120_torch_sdpa.cmd": ("--framework-version", "0.12.0"),
    "ok_aicore_ngc_0120_triton_attn.cmd": ("--framework-version", "0.12.0"),
    "vllmomni4342_torch_sdpa_stage.cmd": ("--framework-version", "0.22.1"),
    "ok_vllmomni4342_triton_attn_stage.cmd": ("--framework-version", "0.22.1"),
}
ALARMS = {
    "newcolab_triton_attn_vllm_v1_gptoss.sh": [],
    "aicore_ngc_0120_xformers.cmd": [("PA070", "error")],
    "aicore_ngc_0120_torch_sdpa.cmd": [("PA070", "warning")],
    "vllmomni4342_torch_sdpa_stage.cmd": [("PA070", "warning")],
}


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir() if p.is_file()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([0, 0, 4, 0], [3, 1, 0, 0])
    assert unsourced(CASES) == []
    for path in sorted(p for p in CASES.iterdir() if p.is_file()):
        assert ", seen 2026-12-05: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", sorted([*CLASSES, *CORRECT]))
def test_the_alarms_of_each_case(name: str) -> None:
    """PA070 on each failure, nothing on its corrected launch."""
    assert [(f["code"], f["severity"]) for f in alarms(check(name))] == ALARMS.get(name, [])


def test_a_removed_name_quotes_the_release_s_refusal() -> None:
    pa070 = finding(check("aicore_ngc_0120_xformers.cmd"), "PA070")
    assert pa070["message"] == (
        "VLLM_ATTENTION_BACKEND=XFORMERS: vllm 0.12.0 has no attention backend of that name and refuses the "
        "launch at start-up: \"Invalid value 'XFORMERS' for VLLM_ATTENTION_BACKEND. Valid options: ….\" "
        "(vllm/envs.py:324); XFORMERS is a backend of vllm 0.6.6.post1-0.11.2"
    )
    assert pa070["basis"] == "framework-code"
    assert pa070["fix"] == (
        "name a backend vllm 0.12.0 has, or remove the setting so that vLLM chooses one for the GPU"
    )
    # the evidence is the release's whole message, its names as it prints them
    assert pa070["evidence"][0]["text"].startswith(
        "Invalid value 'XFORMERS' for VLLM_ATTENTION_BACKEND. Valid options: ['FLASH_ATTN', 'TRITON_ATTN', "
    )


def test_an_assumed_release_says_so_and_names_the_releases_with_the_name() -> None:
    pa070 = finding(check("newcolab_triton_attn_vllm_v1_gptoss.sh"), "PA070")
    assert pa070["basis"] == "assumed"
    assert pa070["message"].endswith(
        "; TRITON_ATTN_VLLM_V1 is a backend of vllm 0.8.5.post1-0.10.2 (assumed: nothing names the release; "
        "analysed with vllm 0.14.1)"
    )
    assert pa070["fix"].startswith("name a backend vllm 0.14.1 has (TRITON_ATTN is the nearest)")


def test_a_tag_without_a_class_under_the_flag() -> None:
    pa070 = finding(check("vllmomni4342_torch_sdpa_stage.cmd"), "PA070")
    assert pa070["message"] == (
        "--attention-backend TORCH_SDPA: vllm 0.22.1 has TORCH_SDPA only as a tag without a backend class "
        "(its value is empty): on a CUDA GPU the model's attention cannot load it and the start-up stops: "
        '"Backend TORCH_SDPA must be registered before use. Use register_backend(Backend.TORCH_SDPA, '
        "'your.module.YourClass')\" (vllm/v1/attention/backends/registry.py:103), unless a plugin registers "
        "a class for it"
    )
    assert pa070["basis"] == "assumed"


def _pa070(command: str, release: str) -> list[tuple[str, str]]:
    report = run_cli(
        ["check", "--format", "json", "--no-resolve", "--framework-version", release, "-c", command]
    ).json
    return [
        (f["severity"], f["message"].split(": ", 1)[0]) for f in report["findings"] if f["code"] == "PA070"
    ]


@pytest.mark.parametrize(
    ("command", "release", "expected"),
    [
        # the flags take the name upper-cased; "auto" where the validator has it (0.18.1 on), not before
        ("vllm serve Qwen/Qwen3-8B --attention-backend flash_attn", "0.33.0", []),
        ("vllm serve Qwen/Qwen3-8B --attention-backend auto", "0.18.1", []),
        (
            "vllm serve Qwen/Qwen3-8B --attention-backend auto",
            "0.17.1",
            [("error", "--attention-backend auto")],
        ),
        (
            "vllm serve Qwen/Qwen3-8B --attention-config.backend FLASHINFER_VLLM_V1",
            "0.33.0",
            [("error", "--attention-config's backend FLASHINFER_VLLM_V1")],
        ),
        # the variable is case-sensitive in envs.py's check; 0.7.3-0.9.2 drop an unknown name instead
        (
            "VLLM_ATTENTION_BACKEND=xformers vllm serve Qwen/Qwen3-8B",
            "0.11.0",
            [("error", "VLLM_ATTENTION_BACKEND=xformers")],
        ),
        ("VLLM_ATTENTION_BACKEND=XFORMERS vllm serve Qwen/Qwen3-8B", "0.11.0", []),
        (
            "VLLM_ATTENTION_BACKEND=FLASHINFERR vllm serve Qwen/Qwen3-8B",
            "0.8.5.post1",
            [("warning", "VLLM_ATTENTION_BACKEND=FLASHINFERR is lost")],
        ),
        # a release whose wheel was not read says nothing; the variable on a release that does not read it
        # is PR001's
        ("VLLM_ATTENTION_BACKEND=XFORMERS vllm serve Qwen/Qwen3-8B", "0.33.0", []),
    ],
)
def test_the_rule_across_releases(command: str, release: str, expected: list[tuple[str, str]]) -> None:
    assert _pa070(command, release) == expected


def test_pr001_does_not_advise_a_name_the_flag_refuses() -> None:
    """VLLM_ATTENTION_BACKEND=XFORMERS on 0.33.0: PR001 moves it to --attention-backend, which refuses the
    name too, so the advice is not to pass XFORMERS there."""
    report = run_cli(
        [
            "check",
            "--format",
            "json",
            "--no-resolve",
            "--framework-version",
            "0.33.0",
            "-c",
            "VLLM_ATTENTION_BACKEND=XFORMERS vllm serve Qwen/Qwen3-8B",
        ]
    ).json
    pr001 = finding(report, "PR001")
    assert pr001["message"].endswith(
        "; but vllm 0.33.0 has no attention backend XFORMERS and refuses it under the flag too "
        "(vllm/v1/attention/backends/registry.py:28: \"Unknown attention backend: 'XFORMERS'. Valid options "
        'are: …")'
    )
    assert pr001["fix"] == (
        "remove VLLM_ATTENTION_BACKEND and pass --attention-backend with a backend name vllm 0.33.0 has"
    )


def test_why_on_the_refusals_names_the_setting() -> None:
    from argtrace.commands.why import explain

    for text, reads in (
        (
            "ValueError: Invalid value 'XFORMERS' for VLLM_ATTENTION_BACKEND. Valid options: ['FLASH_ATTN'].",
            "VLLM_ATTENTION_BACKEND",
        ),
        (
            "ValueError: Unknown attention backend: 'XFORMERS'. Valid options are: FLASH_ATTN, TRITON_ATTN",
            "--attention-backend",
        ),
    ):
        first = explain(text)["matches"][0]
        assert reads in str(first.get("settings")) + str(first.get("reads")), text


def test_the_table_is_the_generator_s_reading() -> None:
    """The generator on synthetic modules of each form, and on the real vLLM 0.33.0 package where its
    resolver environment is built."""
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_vllm_attention_names import ATTENTION_CONFIG, ENVS, SELECTOR, facts

    interface = "class _Backend(enum.Enum):\n    FLASH_ATTN = enum.auto()\n    XFORMERS = enum.auto()\n"
    envs = 'environment_variables = {"VLLM_ATTENTION_BACKEND": lambda: os.getenv("VLLM_ATTENTION_BACKEND")}\n'
    ignored = (
        "def backend_name_to_enum(backend_name):\n"
        "    return _Backend[backend_name] if backend_name in _Backend.__members__ else None\n"
    )
    assert facts({"vllm/platforms/interface.py": interface, ENVS: envs, SELECTOR: ignored}) == {
        "names": ["FLASH_ATTN", "XFORMERS"],
        "enum": "vllm/platforms/interface.py:1",
        "env": {"form": "ignored", "where": f"{SELECTOR}:2"},
    }
    registry = (
        "class _AttentionBackendEnumMeta(EnumMeta):\n"
        "    def __getitem__(cls, name):\n"
        "        try:\n"
        "            return super().__getitem__(name)\n"
        "        except KeyError:\n"
        '            valid_backends = ", ".join(cls.__members__.keys())\n'
        "            raise ValueError(f\"Unknown attention backend: '{name}'. \"\n"
        '                             f"Valid options are: {valid_backends}")\n'
        "class AttentionBackendEnum(Enum, metaclass=_AttentionBackendEnumMeta):\n"
        '    FLASH_ATTN = "a.B"\n'
        '    TORCH_SDPA = ""\n'
        "    def get_path(self):\n"
        "        if not self.value:\n"
        '            raise ValueError(f"Backend {self.name} must be registered before use.")\n'
    )
    config = (
        "class AttentionConfig:\n"
        "    def validate_backend_before(cls, value):\n"
        "        if isinstance(value, str):\n"
        "            if value.lower() == 'auto':\n"
        "                return None\n"
        "            return AttentionBackendEnum[value.upper()]\n"
    )
    path = "vllm/v1/attention/backends/registry.py"
    assert facts({path: registry, ENVS: "environment_variables = {}\n", ATTENTION_CONFIG: config}) == {
        "names": ["FLASH_ATTN", "TORCH_SDPA"],
        "enum": f"{path}:9",
        "unregistered": {
            "names": ["TORCH_SDPA"],
            "where": f"{path}:14",
            "message": "Backend {name} must be registered before use.",
        },
        "flag": {
            "where": f"{path}:7",
            "validator": f"{ATTENTION_CONFIG}:2",
            "message": "Unknown attention backend: '{name}'. Valid options are: {names}",
            "join": True,
            "upper": True,
            "auto": True,
        },
    }


def test_the_bundled_0_33_0_entry_is_the_real_package_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generator on the real vLLM 0.33.0 package, where its resolver environment is built (the fixture's
    empty cache directory set aside for this look-up only)."""
    import json

    monkeypatch.delenv("ARGTRACE_CACHE_DIR")
    from argtrace.resolver.environments import find_environment

    env = find_environment("vllm", "0.33.0")
    if env is None:
        pytest.skip("no vllm 0.33.0 resolver environment")
    root = next(Path(env.path).glob("lib/python3*/site-packages"))
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_vllm_attention_names import MODULES, facts

    texts = {m: (root / m).read_text() for m in MODULES if (root / m).is_file()}
    assert facts(texts) == json.loads(TABLE.read_text())["releases"]["0.33.0"]
