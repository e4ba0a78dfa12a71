"""A resolver host serves another fake GPU only when its import step read none of the fields in which the two
profiles differ (argtrace/resolver/hosts.py ``Host.serves``, host_main.py, stubs/_argtrace_stubs.py
``field``/``switch_profile``). Real processes and forks, without torch: the stubs' profile is set by a
``sitecustomize`` of the test's own, and the script's import step stands for a framework that reads (and
keeps, in a module of ``sys.modules``) the GPU fields named in ``READS``."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from argtrace.resolver import environments, hosts
from argtrace.resolver.fake_gpu import fake_gpu_env

STUBS = environments.stubs_dir()
SCRIPT = """
import json, os, subprocess, sys, types

def host_imports(*_prep):
    if "kept" in sys.modules:  # imported already (in the host): an import statement does nothing more
        return
    import _argtrace_stubs as stubs
    kept = sys.modules["kept"] = types.ModuleType("kept")
    kept.values = {}
    for name in filter(None, os.environ.get("READS", "").split(",")):
        if name == "nvidia-smi":
            subprocess.run([os.environ["SMI"], "--query-gpu=name", "--format=csv"], capture_output=True)
        else:
            kept.values[name] = stubs.field(name)

if __name__ == "__main__":
    host_imports()
    import _argtrace_stubs as stubs
    print(json.dumps({"kept": sys.modules["kept"].values, "product": stubs.field("product"),
                      "count": stubs.field("count"), "env": json.loads(os.environ["ARGTRACE_FAKE_GPU"]),
                      "smi_log": os.environ.get("ARGTRACE_FAKE_GPU_SMI_LOG")}))
"""
SITECUSTOMIZE = """
import _argtrace_stubs as stubs
stubs._STATE["profile"] = stubs.profile()  # what install_fake_gpu does where torch exists
"""


@pytest.fixture
def script(tmp_path: Path) -> Path:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(SITECUSTOMIZE)
    path = tmp_path / "job.py"
    path.write_text(SCRIPT)
    return path


@pytest.fixture
def pool() -> Iterator[hosts.HostPool]:
    made = hosts.HostPool()
    try:
        yield made
    finally:
        made.close()


def env(script: Path, gpu: str, reads: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": f"{script.parent / 'site'}{os.pathsep}{STUBS}",
        "ARGTRACE_FAKE_GPU": fake_gpu_env(gpu),
        "READS": reads,
        "SMI": str(STUBS / "bin" / "nvidia-smi"),
    }


def answers(pool: hosts.HostPool, script: Path, gpus: list[str], reads: str) -> list[dict[str, object]]:
    """Each GPU's answer through ``pool``, after asserting it is a fresh process's answer."""
    out = []
    for gpu in gpus:
        run_env = env(script, gpu, reads)
        fresh = hosts._fresh(sys.executable, str(script), [], env=run_env, cwd=str(script.parent), timeout=60)
        served = pool.run(
            sys.executable, str(script), [], prep=[], env=run_env, cwd=str(script.parent), timeout=60
        )
        assert served.stdout == fresh.stdout and served.returncode == fresh.returncode == 0, fresh.stderr
        out.append(json.loads(served.stdout))
    assert pool.fresh == 0 and pool.served == len(gpus)
    return out


def test_an_import_that_read_no_gpu_field_serves_every_gpu(pool: hosts.HostPool, script: Path) -> None:
    got = answers(pool, script, ["h100", "l4", "a100-80g", "h100x8"], "")
    assert [(g["product"], g["count"], g["env"]["name"]) for g in got] == [  # type: ignore[index]
        ("NVIDIA H100 80GB HBM3", 1, "h100"),
        ("NVIDIA L4", 1, "l4"),
        ("NVIDIA A100-SXM4-80GB", 1, "a100-80g"),
        ("NVIDIA H100 80GB HBM3", 8, "h100"),
    ]
    assert len(pool.spawned) == 1 and pool.hosts[0].reads == ()
    assert got[1]["smi_log"] is None  # the host's own note of nvidia-smi runs never reaches a run


def test_a_field_the_import_read_keeps_a_host_to_profiles_that_agree_on_it(
    pool: hosts.HostPool, script: Path
) -> None:
    got = answers(pool, script, ["h100", "l4", "h100x2", "a100-80g"], "count")
    assert [g["kept"] for g in got] == [{"count": 1}, {"count": 1}, {"count": 2}, {"count": 1}]
    # h100 and l4 and a100-80g (one GPU each) share the first host; h100x2 has its own
    assert [gpu for _, gpu in pool.spawned] == [fake_gpu_env("h100"), fake_gpu_env("h100x2")]
    assert sorted(h.reads or () for h in pool.hosts) == [("count",), ("count",)]


def test_an_import_that_ran_nvidia_smi_serves_only_its_own_profile(
    pool: hosts.HostPool, script: Path
) -> None:
    answers(pool, script, ["h100", "l4", "h100"], "nvidia-smi")
    assert [gpu for _, gpu in pool.spawned] == [fake_gpu_env("h100"), fake_gpu_env("l4")]
    assert [h.reads for h in pool.hosts] == [None, None]


def test_a_profile_of_another_structure_gets_its_own_host(pool: hosts.HostPool, script: Path) -> None:
    # CUDA 12.9 for an SM 12.0 GPU (resolver/fake_gpu.py) is torch.version.cuda, set when the stubs install
    got = answers(pool, script, ["h100", "rtx-5090"], "")
    assert [g["env"]["cuda"] for g in got] == ["12.8", "12.9"]  # type: ignore[index]
    assert len(pool.spawned) == 2


def test_the_hosts_structural_fields_are_the_stubs() -> None:
    spec = importlib.util.spec_from_file_location("stubs_copy", STUBS / "_argtrace_stubs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.STRUCTURAL == hosts.STRUCTURAL
