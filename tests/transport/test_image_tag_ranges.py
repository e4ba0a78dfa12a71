"""The official images' entrypoint per tag range (issue 17), each range from the public evidence the
generator (scripts/gen_image_entrypoints.py, ``RELEASES``) records with the row:

* vllm/vllm-openai 0.4.0.post1-0.5.3.post1: root Dockerfile at vllm@e93d59a6 (ENTRYPOINT python3 -m
  vllm.entrypoints.openai.api_server), https://docs.vllm.ai/en/v0.4.0.post1/serving/deploying_with_docker.html;
* 0.5.4-0.11.0: docker/Dockerfile at vllm@0000977e, https://github.com/vllm-project/vllm/issues/22072
  (latest = 0.10.0) and https://github.com/gpustack/gpustack/issues/2922 (v0.11.0: api_server.py's error);
* 0.11.1-0.26.0: docker/Dockerfile at vllm@dead20ba (ENTRYPOINT ["vllm", "serve"]; flashinfer-cubin 0.4.1,
  between 0.11.0's and 0.11.1's pins), https://github.com/vllm-project/vllm/issues/37133 (0.17.1) and
  https://github.com/NVIDIA-AI-IOT/jetson-ai-lab/pull/420 (docker inspect on 0.26.0);
* 0.27.0-0.27.1: docker/Dockerfile at vllm@6e448d0e, the v0.27.1 commit (stage vllm-openai: ENTRYPOINT
  ["vllm", "serve"], FROM nvidia/cuda:13.0.3-base-ubuntu22.04),
  https://github.com/vllm-project/vllm/blob/6e448d0ea9bf3d88d898b65449ca6dc2aec170ac/docker/Dockerfile;
  0.28.0-0.33.0 have no evidence yet (assumed, TP044);
* lmsysorg/sglang: NVIDIA's nvidia_entrypoint.sh (``exec "$@"``) inherited from the CUDA or NGC base:
  0.4.5-0.4.6.post5 (sglang@924d890f, flashinfer for torch 2.6), 0.4.7-0.5.3.post1 (sglang@f82ccc94,
  sgl-kernel 0.3.15 = 0.5.3.post1's pin,
  https://github.com/sgl-project/sglang/blob/f82ccc94b0e7c45d7e8e856b92eda8f0062a21c3/docker/Dockerfile),
  0.5.3.post2-0.5.5 (sglang@004740a9, SGL_VERSION=0.5.5); the releases between two Dockerfiles that
  inherit the same entrypoint are taken to have it.

TP044 ("entrypoint assumed") only for a tag outside every range; ``check`` reads the words after the image
per the tag's entrypoint.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from argtrace.layers.transport.images import image_entry
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
API = ("python3", "-m", "vllm.entrypoints.openai.api_server")
SERVE = ("vllm", "serve")


@pytest.mark.parametrize(
    ("tag", "entrypoint", "commit", "span"),
    [
        ("v0.4.0.post1", API, "e93d59a6", "0.4.0.post1 to 0.5.3.post1"),
        ("v0.5.3.post1", API, "e93d59a6", "0.4.0.post1 to 0.5.3.post1"),
        ("v0.5.4", API, "0000977e", "0.5.4 to 0.11.0"),
        ("v0.10.1.1", API, "0000977e", "0.5.4 to 0.11.0"),
        ("v0.11.0", API, "0000977e", "0.5.4 to 0.11.0"),
        ("v0.11.0-cu130", API, "0000977e", "0.5.4 to 0.11.0"),
        ("v0.11.1", SERVE, "dead20ba", "0.11.1 to 0.26.0"),
        ("v0.17.1", SERVE, "dead20ba", "0.11.1 to 0.26.0"),
        ("v0.26.0", SERVE, "dead20ba", "0.11.1 to 0.26.0"),
        ("v0.27.0", SERVE, "6e448d0e", "0.27.0 to 0.27.1"),
        ("v0.27.1", SERVE, "6e448d0e", "0.27.0 to 0.27.1"),
    ],
)
def test_a_tag_in_a_known_range_gets_that_rows_entrypoint(
    tag: str, entrypoint: tuple[str, ...], commit: str, span: str
) -> None:
    entry = image_entry(f"vllm/vllm-openai:{tag}")
    assert entry is not None and entry.entrypoint == entrypoint
    assert entry.basis.startswith(f"vllm-project/vllm@{commit}")
    assert entry.basis.endswith(f"tag {tag} is in releases {span}, which have it")
    assert "assumed" not in entry.basis


@pytest.mark.parametrize(
    ("tag", "entrypoint"),
    [
        ("latest", SERVE),
        ("nightly", SERVE),
        ("v0.12.0rc1", SERVE),
        ("v0.28.0", SERVE),
        ("v0.33.0", SERVE),
        ("v0.3.3", API),
    ],
)
def test_a_tag_outside_every_range_is_assumed_from_the_nearest(tag: str, entrypoint: tuple[str, ...]) -> None:
    entry = image_entry(f"vllm/vllm-openai:{tag}")
    assert entry is not None and entry.entrypoint == entrypoint
    assert (
        f"vllm/vllm-openai:{tag} is not among the releases it is known for (0.4.0.post1-0.5.3.post1, "
        "0.5.4-0.11.0, 0.11.1-0.26.0, 0.27.0-0.27.1); assumed (other builds have `"
    ) in entry.basis


NVIDIA = ("/opt/nvidia/nvidia_entrypoint.sh",)


@pytest.mark.parametrize(
    ("tag", "commit", "span"),
    [
        ("v0.4.5", "924d890f", "0.4.5 to 0.4.6.post5"),
        ("v0.4.6.post5", "924d890f", "0.4.5 to 0.4.6.post5"),
        ("v0.4.7", "f82ccc94", "0.4.7 to 0.5.3.post1"),
        ("v0.4.10.post2", "f82ccc94", "0.4.7 to 0.5.3.post1"),
        ("v0.5.3.post1", "f82ccc94", "0.4.7 to 0.5.3.post1"),
        ("v0.5.3.post2", "004740a9", "0.5.3.post2 to 0.5.5"),
        ("v0.5.4.post3-cu129-amd64", "004740a9", "0.5.3.post2 to 0.5.5"),
        ("v0.5.5", "004740a9", "0.5.3.post2 to 0.5.5"),
        ("v0.5.5.post3", "004740a9", "0.5.3.post2 to 0.5.5"),
    ],
)
def test_an_sglang_tag_in_a_known_range_gets_that_rows_entrypoint(tag: str, commit: str, span: str) -> None:
    entry = image_entry(f"lmsysorg/sglang:{tag}")
    assert entry is not None and entry.entrypoint == NVIDIA and entry.exec_wrapper
    assert entry.basis.startswith(f"sgl-project/sglang@{commit}:docker/Dockerfile")
    assert entry.basis.endswith(f"tag {tag} is in releases {span}, which have it")


@pytest.mark.parametrize("tag", ["v0.4.4.post4", "v0.5.6", "v0.5.23", "latest", "dev"])
def test_an_sglang_tag_outside_the_ranges_is_assumed_and_no_other_build_differs(tag: str) -> None:
    entry = image_entry(f"lmsysorg/sglang:{tag}")
    assert entry is not None and entry.entrypoint == NVIDIA and entry.others == ()
    assert entry.basis.endswith(
        f"lmsysorg/sglang:{tag} is not among the releases it is known for (0.4.5-0.4.6.post5, "
        "0.4.7-0.5.3.post1, 0.5.3.post2-0.5.5); assumed"
    )


def test_each_row_cites_its_dockerfile_and_evidence() -> None:
    data = json.loads((ROOT / "src/argtrace/data/image_entrypoints.json").read_text())
    vllm = data["images"]["vllm/vllm-openai"]
    assert [(r["dockerfile"]["commit"][:8], r["releases"]) for r in vllm] == [
        ("6e448d0e", {"first": "0.27.0", "last": "0.27.1"}),
        ("dead20ba", {"first": "0.11.1", "last": "0.26.0"}),
        ("0000977e", {"first": "0.5.4", "last": "0.11.0"}),
        ("e93d59a6", {"first": "0.4.0.post1", "last": "0.5.3.post1"}),
    ]
    urls = {e["url"] for r in vllm for e in r["evidence"]}
    assert {
        "https://github.com/vllm-project/vllm/issues/37133",
        "https://github.com/NVIDIA-AI-IOT/jetson-ai-lab/pull/420",
        "https://github.com/vllm-project/vllm/issues/22072",
        "https://github.com/gpustack/gpustack/issues/2922",
        "https://pypi.org/pypi/vllm/0.11.1/json",
        "https://github.com/vllm-project/vllm/blob/6e448d0ea9bf3d88d898b65449ca6dc2aec170ac/docker/Dockerfile",
    } <= urls
    sglang = data["images"]["lmsysorg/sglang"]
    assert [(r["dockerfile"]["commit"][:8], r["releases"], r["base"]) for r in sglang] == [
        ("004740a9", {"first": "0.5.3.post2", "last": "0.5.5"}, "nvidia/cuda:12.9.1-cudnn-devel-ubuntu22.04"),
        ("f82ccc94", {"first": "0.4.7", "last": "0.5.3.post1"}, "nvidia/cuda:12.9.1-cudnn-devel-ubuntu22.04"),
        ("924d890f", {"first": "0.4.5", "last": "0.4.6.post5"}, "nvcr.io/nvidia/tritonserver:24.04-py3-min"),
    ]
    sglang_urls = {e["url"] for r in sglang for e in r["evidence"]}
    assert "https://pypi.org/pypi/sglang/0.5.3.post1/json" in sglang_urls
    assert {tuple(r["entrypoint"]) for r in sglang} == {("/opt/nvidia/nvidia_entrypoint.sh",)}
    assert all("redhat-na-ssa/demo-ocp-gpu" in r["entrypoint_from"] for r in sglang)


def _codes(line: str) -> list[str]:
    result = run_cli(["check", "--format", "json", "-c", line])
    return [f["code"] for f in result.json["findings"]]


def test_tp044_fires_only_outside_the_known_ranges() -> None:
    assert "TP044" not in _codes("docker run --gpus all vllm/vllm-openai:v0.11.0 --model /models/qwen")
    assert "TP044" not in _codes("docker run --gpus all vllm/vllm-openai:v0.12.0 /models/qwen")
    assert "TP044" not in _codes("docker run --gpus all vllm/vllm-openai:v0.27.1 /models/qwen")
    assert "TP044" in _codes("docker run --gpus all vllm/vllm-openai:v0.28.0 /models/qwen")
    assert "TP044" in _codes("docker run --gpus all vllm/vllm-openai:latest /models/qwen")
    # every SGLang build has NVIDIA's entrypoint: a tag outside the ranges changes nothing, so no TP044
    launch = "python3 -m sglang.launch_server --model-path /models/qwen"
    assert "TP044" not in _codes(f"docker run --gpus all lmsysorg/sglang:v0.5.23 {launch}")
    assert "TP044" not in _codes(f"docker run --gpus all lmsysorg/sglang:v0.5.3.post1 {launch}")


def test_check_reads_the_words_per_the_tags_entrypoint() -> None:
    # v0.11.0 runs the api_server module: `--model M` is right, a bare model name is an unknown argument
    old = run_cli(["check", "--format", "json", "-c", "docker run vllm/vllm-openai:v0.11.0 --model /m"]).json
    assert old["servers"][0]["entrypoint"] == "vllm.entrypoints.openai.api_server"
    assert [f["code"] for f in old["findings"] if f["severity"] == "error"] == []
    # v0.12.0 runs `vllm serve`: the first word is the model
    new = run_cli(
        ["check", "--format", "json", "-c", "docker run vllm/vllm-openai:v0.12.0 /m --port 8001"]
    ).json
    assert new["servers"][0]["entrypoint"] == "vllm serve"
    assert [f["code"] for f in new["findings"] if f["severity"] == "error"] == []


def test_a_rocm_tag_is_not_the_cuda_dockerfiles() -> None:
    # SGLang's ROCm images are built by docker/Dockerfile.rocm (FROM rocm/sgl-dev, CMD ["/bin/bash"]:
    # https://github.com/sgl-project/sglang/blob/01d2a3d0d57bc35da92de3833d72412c0b448210/docker/Dockerfile.rocm)
    entry = image_entry("lmsysorg/sglang:v0.4.5.post1-rocm630")
    assert entry is not None and "is not among the releases it is known for" in entry.basis
    cuda = image_entry("lmsysorg/sglang:v0.4.5.post1-cu124")
    assert cuda is not None and cuda.basis.endswith(
        "tag v0.4.5.post1-cu124 is in releases 0.4.5 to 0.4.6.post5, which have it"
    )


def test_a_tag_naming_no_release_takes_the_named_releases_build() -> None:
    """``latest`` with ``--framework-version 0.8.3`` (vllm#16343's launch): the 0.5.4-0.11.0 build's
    api_server entrypoint, so ``--model M`` is its right spelling, not `vllm serve`'s refused one; still
    TP044 (assumed: the user's ``latest`` may not be the release they name)."""
    entry = image_entry("vllm/vllm-openai:latest", "0.8.3")
    assert entry is not None and entry.entrypoint == API
    assert entry.basis.endswith(
        "vllm/vllm-openai:latest names no release; the release named (0.8.3) is in releases 0.5.4 to "
        "0.11.0, which have it; assumed (other builds have `vllm serve`)"
    )
    # a tag that names a release wins over the release named elsewhere
    tagged = image_entry("vllm/vllm-openai:v0.12.0", "0.8.3")
    assert tagged is not None and tagged.entrypoint == SERVE
    line = "docker run --gpus all vllm/vllm-openai:latest --model microsoft/phi-4 --max_model_len=4096"
    report = run_cli(["check", "--format", "json", "--framework-version", "0.8.3", "-c", line]).json
    assert report["servers"][0]["entrypoint"] == "vllm.entrypoints.openai.api_server"
    alarms = [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")]
    assert alarms == []  # 0.8.3 has no schema of its own: 0.8.5.post1, of its family, stands in (a note)


@pytest.mark.parametrize(
    "image",
    [
        "swr.cn-north-4.myhuaweicloud.com/ddn-k8s/docker.io/vllm/vllm-openai:v0.10.2",  # vllm#27251
        "m.daocloud.io/docker.io/vllm/vllm-openai:v0.10.2",
        "docker.io/vllm/vllm-openai:v0.10.2",
    ],
)
def test_a_mirror_keeping_the_hubs_path_is_that_repository(image: str) -> None:
    """A registry mirror that keeps Docker Hub's path after its own names the repository it copies: its
    entrypoint row, and the release its tag names (frameworks.release.hub_repository)."""
    from argtrace.frameworks.release import release_from_image

    entry = image_entry(image)
    assert entry is not None and entry.entrypoint == API
    assert entry.basis.endswith("tag v0.10.2 is in releases 0.5.4 to 0.11.0, which have it")
    assert release_from_image("vllm", image) == "0.10.2"


def test_a_private_registry_path_that_only_ends_like_an_official_image_is_not_it() -> None:
    assert image_entry("registry.example.com/team/vllm-openai:v0.10.2") is None
