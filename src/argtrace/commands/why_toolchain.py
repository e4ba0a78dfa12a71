"""Other programs' words about the toolchain and the cluster a server starts on, which ``why`` reads ahead of
the frames they surface in (``why_confidence.FOREIGN_WORDINGS`` puts these first): a JIT build of GPU kernels
(FlashInfer compiles its kernels at first use, at start-up or in CUDA graph capture), NCCL's shared memory
between the ranks of one host, Ray's placement group, and vLLM's own line when it finds no accelerator.

Learned from the 28th ``why`` batch (tests/data/real_cases_why30/, docs/real_cases.md "`why`, 28th batch
(why30)"). FlashInfer's words and variables are read from the flashinfer-python 0.6.14 wheel
(flashinfer/jit/cpp_ext.py: CUDA_HOME or CUDA_PATH at line 49, -static-global-template-stub=false for a CUDA
release >= 12.8 at 204-207, FLASHINFER_EXTRA_CUDAFLAGS at 231, "Ninja build failed." at 377); vLLM's from
vLLM 0.33.0 (vllm/platforms/__init__.py:291, VLLM_USE_FLASHINFER_SAMPLER in vllm/envs.py:887).
"""

from __future__ import annotations

from argtrace.commands.why_wording import Wording

TOOLCHAIN_WORDINGS: tuple[Wording, ...] = (
    Wording(
        # vllm#36077: the build line runs ":/usr/local/cuda-12.8/bin/nvcc" (from CUDA_HOME=$CUDA_HOME:/usr/...
        # with CUDA_HOME empty); FlashInfer takes CUDA_HOME or CUDA_PATH as the toolkit's directory as is
        "the JIT build's CUDA path (FlashInfer's kernels, built at first use): CUDA_HOME (or CUDA_PATH) "
        "holds a PATH-like list (a leading ':' or several directories, as "
        "CUDA_HOME=$CUDA_HOME:/usr/local/cuda makes when it was empty), so the build runs ':/…/bin/nvcc', "
        "which does not exist: set CUDA_HOME to the toolkit's directory alone "
        "(CUDA_HOME=/usr/local/cuda-12.8); no server setting",
        r"(?<![^\s'\"]):[^\s'\"]*/bin/nvcc\b",
        "https://github.com/vllm-project/vllm/issues/36077",
    ),
    Wording(
        # flashinfer#1532 (-static-global-template-stub=false, which FlashInfer passes for CUDA >= 12.8, to an
        # older nvcc), flashinfer#5479 (--compress-mode=size, FlashInfer 0.6.18 under vLLM 0.29.0)
        "nvcc (the CUDA compiler of a JIT build: FlashInfer compiles its kernels at first use): it does not "
        "know an option the build passes, so the nvcc that ran is older than the CUDA release the build "
        "chose its options for (FlashInfer asks CUDA_HOME's nvcc for it, else takes torch's CUDA release): "
        "point CUDA_HOME and PATH at a toolkit of torch's CUDA release, or install FlashInfer's prebuilt "
        "kernels (flashinfer-cubin and flashinfer-jit-cache of flashinfer-python's version) so nothing is "
        "built; no server setting",
        r"nvcc fatal\s*:\s*Unknown option[^\n]*"
        r"|Unknown option '?-{1,2}[a-z][\w-]*(?:=[\w-]+)?'?[^\n]{0,80}?\b(?:nvcc|FlashInfer|[Cc]ompil)",
        "https://github.com/flashinfer-ai/flashinfer/issues/1532",
    ),
    Wording(
        # flashinfer#4410: curand_kernel.h from CUTLASS's includes, present only in the nvidia-* pip wheels
        # under a conda nvcc; the reporter added the directory (FLASHINFER_EXTRA_CUDAFLAGS="-I<path>")
        "the C++/CUDA compiler of a JIT build (FlashInfer's kernels, torch's cpp_extension): a header it "
        "includes is on none of its include paths: CUDA's own headers (curand_kernel.h, cuda_runtime.h) come "
        "with a full CUDA toolkit (CUDA_HOME/include) or in the nvidia-* pip wheels' include directories, "
        "Python.h with the Python development package: add the directory (FlashInfer: "
        'FLASHINFER_EXTRA_CUDAFLAGS="-I<dir>"), install the full toolkit, or install prebuilt kernels '
        "(flashinfer-jit-cache) so nothing is built; no server setting",
        r"fatal error: [\w./+-]+\.(?:h|hpp|cuh): No such file or directory",
        "https://github.com/flashinfer-ai/flashinfer/issues/4410",
    ),
    Wording(
        # ms-swift#7100 (the system nvcc did not fit; solved with prebuilt kernels or
        # VLLM_USE_FLASHINFER_SAMPLER=0), THUDM/slime#1314 (FlashInfer 0.5.3's prefill kernel in SGLang's
        # CUDA graph capture), kserve#4565 (the sampling kernels in KServe's image, torch's _run_ninja_build)
        "a JIT build of GPU kernels (FlashInfer compiles its kernels at first use, at start-up or in CUDA "
        "graph capture; torch's cpp_extension under a kernel package): the compiler failed, and its first "
        "error is in the ninja output printed above or with this line (an nvcc older than torch's CUDA, a "
        "missing header, a GPU architecture the toolkit lacks): read that error (argtrace why on it); or "
        "build nothing: FlashInfer's prebuilt kernels (flashinfer-cubin and flashinfer-jit-cache of "
        "flashinfer-python's version), another --attention-backend when it is an attention kernel, or, in "
        "vLLM, FlashInfer's sampler off (VLLM_USE_FLASHINFER_SAMPLER=0) when it is the sampling one; no "
        "server setting's value",
        r"Ninja build failed|ninja: build stopped: subcommand failed|\bin (?:_run_ninja_build|run_ninja)\b",
        "https://github.com/modelscope/ms-swift/issues/7100",
    ),
    Wording(
        # vllm#18831 (vLLM 0.8.5.post1, TP=4 x PP=2): NCCL's troubleshooting guide, "Shared memory": Docker
        # gives a container 64 MB of /dev/shm unless --shm-size or --ipc=host; NCCL_SHM_DISABLE=1
        "NCCL's shared-memory transport between the ranks of one host: a segment under /dev/shm could not be "
        "created or attached (a container's /dev/shm too small: Docker gives 64 MB unless --shm-size or "
        "--ipc=host; ranks that do not share one /dev/shm; a cleaner removing its files): run the container "
        "with --ipc=host or a larger --shm-size (Kubernetes: an emptyDir with medium: Memory at /dev/shm), "
        "or turn the transport off with NCCL_SHM_DISABLE=1; no server setting",
        r"NCCL WARN Error while (?:attaching to|creating) shared memory segment",
        "https://github.com/vllm-project/vllm/issues/18831",
    ),
    Wording(
        # llm-d-deployer#273 (the decode pod without the NVIDIA runtime class), cube-studio#38; a debug line
        # in vLLM 0.33.0 (vllm/platforms/__init__.py:291), INFO in the releases of these reports
        "vLLM's platform detection: it found no GPU or other accelerator in the process: the container was "
        "given no device (Kubernetes: no nvidia.com/gpu limit, or a pod not under the NVIDIA runtime class; "
        "Docker: no --gpus all or --runtime nvidia), the driver's libraries (libcuda, NVML) are not visible "
        "in it, or torch is a CPU-only build: give the process the GPU; no vLLM flag",
        # not in SGLang's text: SGLang imports vLLM, which says so harmlessly on an NPU (sglang#12835's log)
        r"\A(?![\s\S]*?\bsglang\b)[\s\S]*?No platform detected, vLLM is running on UnspecifiedPlatform",
        "https://github.com/llm-d/llm-d-deployer/issues/273",
    ),
    Wording(
        # gpustack#2500 (tensor_parallel_size=2 x pipeline_parallel_size=2 in a placement group of 3
        # bundles), gpustack#2547 (vLLM-Ascend: bundle 8 of 3)
        "Ray's placement group: the engine places one worker per bundle (one GPU or NPU each, "
        "--tensor-parallel-size x --pipeline-parallel-size of them) and asked for a bundle past the ones "
        "the placement group it was given holds: make the product of the parallel sizes the number of "
        "devices the placement group (the instance, under GPUStack or KubeRay) has, or give it that many",
        r"placement group bundle index \d+ is invalid\. Valid placement group indexes: 0-\d+",
        "https://github.com/gpustack/gpustack/issues/2500",
    ),
)
