"""Resolver environments: the pure parts (paths, manifest, constraints, requirement selection)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from argtrace.resolver import environments as envs


def test_cache_dir_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "c"))
    assert envs.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("ARGTRACE_CACHE_DIR")
    assert envs.cache_dir().parts[-2:] == ("argtrace", "resolvers")


@pytest.mark.parametrize(
    "env",
    [
        {"HOME": "/home/u"},  # answered without platformdirs
        {"HOME": "/home/u/"},
        {"HOME": "/"},
        {"HOME": "/home/u", "XDG_CACHE_HOME": "/var/xdg"},  # an absolute XDG_CACHE_HOME too
        {"HOME": "/home/u", "XDG_CACHE_HOME": "/var/xdg/"},
        {"HOME": "relative", "XDG_CACHE_HOME": "/var/xdg"},
        {"HOME": "/home/u", "XDG_CACHE_HOME": ""},  # the others ask platformdirs
        {"HOME": "/home/u", "XDG_CACHE_HOME": "relative"},
        {"HOME": "relative"},
        {"HOME": "/home/u", "ANDROID_DATA": "/data", "ANDROID_ROOT": "/system"},
    ],
)
def test_the_user_cache_dir_is_platformdirs_own_answer(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    import platformdirs

    for name in ("HOME", "XDG_CACHE_HOME", "ANDROID_DATA", "ANDROID_ROOT", "ARGTRACE_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert envs.user_cache_dir() == platformdirs.user_cache_dir("argtrace")
    if sys.platform == "linux" and env["HOME"] == "/home/u" and len(env) == 1:
        assert envs.user_cache_dir() == "/home/u/.cache/argtrace"
        assert envs.cache_dir() == Path("/home/u/.cache/argtrace/resolvers")


def test_names_and_paths() -> None:
    tag = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert envs.env_name("sglang", "0.5.10.post1") == f"sglang-0.5.10.post1-py{tag}"
    assert envs.base_name("3.11.7") == "base-py3.11-torch2.13.0"
    assert envs.site_packages(Path("/e"), "3.11.7") == Path("/e/lib/python3.11/site-packages")
    assert envs.env_python(Path("/e")) == Path("/e/bin/python")
    assert (envs.stubs_dir() / "sitecustomize.py").is_file()
    assert (envs.stubs_dir() / "bin" / "nvidia-smi").is_file()


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("sglang==0.5.10.post1", ("sglang", "0.5.10.post1")),
        ("vllm==0.33.0", ("vllm", "0.33.0")),
        ("SGLang 0.5.23", ("sglang", "0.5.23")),
        ("vllm@0.11.0", ("vllm", "0.11.0")),
    ],
)
def test_parse_spec(spec: str, expected: tuple[str, str]) -> None:
    assert envs.parse_spec(spec) == expected


@pytest.mark.parametrize("spec", ["sglang", "torch==2.13.0", "vllm==", "==0.5"])
def test_parse_spec_rejects(spec: str) -> None:
    with pytest.raises(ValueError):
        envs.parse_spec(spec)


def test_constraints_pin_torch_and_forbid_media_stack() -> None:
    text = envs.constraints_text()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert "torch==2.13.0" in lines
    for name in ("torchvision", "torchaudio", "torchcodec"):
        (line,) = [x for x in lines if x.startswith(name + "==")]
        assert "forbidden" in line  # a version that does not exist: pip fails instead of installing it


METADATA = """Metadata-Version: 2.4
Name: sglang
Version: 0.5.10.post1
License: Apache License
        Version 2.0
Requires-Dist: torch==2.9.1
Requires-Dist: transformers==5.3.0
Requires-Dist: openai==2.6.1
Requires-Dist: pyzmq>=25.1.2
Requires-Dist: torchvision
Requires-Dist: flashinfer_python==0.6.0; extra == "cuda"
Requires-Dist: decord2; sys_platform == "nonexistent-os"
Requires-Dist: IPython

Long description with a fake header
Requires-Dist: not-a-dependency
"""


def test_requires_dist_parsing() -> None:
    reqs = envs.parse_requires_dist(METADATA)
    names = [r.name for r in reqs]
    assert names == ["torch", "transformers", "openai", "pyzmq", "torchvision", "decord2", "ipython"]
    assert next(r for r in reqs if r.name == "transformers").spec == "transformers==5.3.0"
    assert not envs.marker_true('sys_platform == "nonexistent-os"')


def test_install_requirements_use_metadata_pins_and_never_torch() -> None:
    specs = envs.install_requirements("sglang", "0.5.10.post1", envs.parse_requires_dist(METADATA))
    assert specs[0] == "transformers==5.3.0"
    assert "openai==2.6.1" in specs and "pyzmq>=25.1.2" in specs and "IPython" in specs
    assert not any(s.split("=")[0].split("<")[0] in ("torch", "torchvision", "torchaudio") for s in specs)
    assert "apache-tvm-ffi" not in specs  # only from 0.5.15 on
    newer = envs.install_requirements("sglang", "0.5.23", [])
    assert "apache-tvm-ffi" in newer and "einops" in newer
    assert "uvloop" in envs.install_requirements("vllm", "0.33.0", [])
    # the SGLang launcher module holding _set_envs_and_config imports them (a start-up step)
    assert {"uvloop", "fastapi"} <= {s.split(">")[0] for s in specs}


def test_cap_major() -> None:
    assert envs.cap_major("transformers>=4.56.0") == "transformers>=4.56.0,<5"
    assert envs.cap_major("transformers==5.3.0") == "transformers==5.3.0"
    assert envs.cap_major("transformers<5.21.0,>=5.16.1") == "transformers<5.21.0,>=5.16.1"


def _fake_env(root: Path, framework: str, version: str, base: Path) -> Path:
    env_dir = root / envs.env_name(framework, version)
    (env_dir / "bin").mkdir(parents=True)
    (env_dir / "bin" / "python").write_text("")
    (env_dir / "payload").write_bytes(b"x" * 10000)
    m = envs.Manifest(
        kind="framework",
        framework=framework,
        version=version,
        python="3.11.7",
        created="2026-11-30T00:00:00Z",
        size=envs.dir_size(env_dir),
        base=str(base),
    )
    envs.write_manifest(env_dir, m)
    return env_dir


def test_manifest_roundtrip_list_find_remove(tmp_path: Path) -> None:
    base = tmp_path / envs.base_name()
    (base / "bin").mkdir(parents=True)
    (base / "bin" / "python").write_text("")
    envs.write_manifest(
        base,
        envs.Manifest(
            kind="base", framework=None, version=None, python="3.11.7", created="2026-11-30T00:00:00Z", size=1
        ),
    )
    _fake_env(tmp_path, "sglang", "0.5.10.post1", base)
    _fake_env(tmp_path, "sglang", "0.5.23", base)
    (tmp_path / "half-built").mkdir()  # no manifest: not listed

    data = json.loads((tmp_path / envs.env_name("sglang", "0.5.23") / envs.MANIFEST).read_text())
    assert {"framework", "version", "python", "created", "size"} <= set(data)
    assert data["size"] >= 10000

    listed = envs.list_environments(tmp_path)
    assert [(m.kind, m.version) for m in listed] == [
        ("base", None),
        ("framework", "0.5.10.post1"),
        ("framework", "0.5.23"),
    ]
    found = envs.find_environment("sglang", "0.5.10.post1", root=tmp_path)
    assert found is not None and found.path == str(tmp_path / envs.env_name("sglang", "0.5.10.post1"))
    newest = envs.find_environment("sglang", root=tmp_path)
    assert newest is not None and newest.version == "0.5.23"
    assert envs.find_environment("vllm", "0.33.0", root=tmp_path) is None

    removed = envs.remove_environment("sglang", "0.5.10.post1", root=tmp_path)
    assert removed == [tmp_path / envs.env_name("sglang", "0.5.10.post1")]
    assert base.exists()  # still used by 0.5.23
    removed = envs.remove_environment("sglang", "0.5.23", root=tmp_path)
    assert base in removed and not base.exists()


def test_expected_size_counts_missing_base(tmp_path: Path) -> None:
    assert (
        envs.expected_size("sglang", tmp_path)
        == envs.EXPECTED_FRAMEWORK_BYTES["sglang"] + envs.EXPECTED_BASE_BYTES
    )


def test_runtime_env_puts_stubs_first_and_goes_offline(tmp_path: Path) -> None:
    m = envs.Manifest(
        kind="framework", framework="sglang", version="0.5.23", python="3.11.7", created="", size=0
    )
    env = envs.runtime_env(m, {"ARGTRACE_FAKE_GPU": "{}"}, base_env={"PATH": "/usr/bin", "PYTHONHOME": "/x"})
    assert env["PYTHONPATH"] == str(envs.stubs_dir())
    assert env["PATH"].split(":")[0] == str(envs.stubs_dir() / "bin")
    assert env["HF_HUB_OFFLINE"] == "1" and "PYTHONHOME" not in env
    assert env["ARGTRACE_FAKE_GPU"] == "{}"


def test_a_wheel_is_found_under_the_wheel_formats_spelling_of_its_project(tmp_path: Path) -> None:
    """Wheel file names write the project with ``_`` for ``-`` (``vllm_omni-0.14.0-...``): the generators
    of plugins' and images' tables download vllm-omni and gpustack through the same function."""
    from argtrace.resolver.environments import find_wheel

    (tmp_path / "vllm_omni-0.14.0-py3-none-any.whl").write_bytes(b"")
    (tmp_path / "sglang-0.5.23-py3-none-any.whl").write_bytes(b"")
    assert find_wheel(tmp_path, "vllm-omni", "0.14.0") == tmp_path / "vllm_omni-0.14.0-py3-none-any.whl"
    assert find_wheel(tmp_path, "sglang", "0.5.23") == tmp_path / "sglang-0.5.23-py3-none-any.whl"
    assert find_wheel(tmp_path, "sglang", "0.5.10") is None
