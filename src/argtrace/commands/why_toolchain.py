"""Other programs' words about the toolchain and the cluster a server starts on, which ``why`` reads ahead of
the frames they surface in (``why_confidence.FOREIGN_WORDINGS`` puts these first): a JIT build of GPU kernels
(FlashInfer compiles its kernels at first use, at start-up or in CUDA graph capture), NCCL's shared memory
between the ranks of one host, Ray's placement group, and vLLM's own line when it finds no accelerator.

Learned from the 28th ``why`` batch (tests/data/real_cases_why30/, docs/real_cases.md "`why`, 28th batch
(why30)"). FlashInfer's words and variables are read from the flashinfer-python 0.6.14 wheel
(flashinfer/jit/cpp_ext.py: CUDA_HOME or CUDA_PATH at line 49, -static-global-template-stub=false for a CUDA
release >= 12.8 at 204-207, FLASHINFER_EXTRA_CUDAFLAGS at 231, "Ninja build failed." at 377); vLLM's from
vLLM 0.33.0 (vllm/platforms/__init__.py:291, VLLM_USE_FLASHINFER_SAMPLER in vllm/envs.py:887).

The 29th batch (tests/data/real_cases_why32/, docs/real_cases.md "`why`, 29th batch (why32)") added numactl's
refused memory binding (SGLang's SGLANG_NUMA_BIND_V2, default on: sglang 0.5.10.post1's srt/environ.py:506 and
0.5.23's :1721; the probe that falls back, 0.5.23's srt/utils/numa_utils.py:254; vLLM's --numa-bind, 0.33.0's
engine/arg_utils.py:1187), CUDA's "No CUDA GPUs are available" (torch 2.13.0's libtorch) in a process given no
GPU, the driver's own libcuda.so.1 missing from the loader's path, and torchvision's operators missing
from a torch it was not built for (the torchvision 0.21.0 wheel's METADATA pins torch==2.6.0).
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
    Wording(
        # sglang#3820 (TP 16 over two nodes: "socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No
        # route to host)"); NCCL's own words in misc/socket.cc (socketPollConnect, socketStartConnect)
        "NCCL's bootstrap between ranks on different nodes: this rank could not open a TCP connection to "
        "another rank's address (no route, refused or timed out): NCCL picked an interface the nodes do not "
        "reach each other on (set NCCL_SOCKET_IFNAME, and GLOO_SOCKET_IFNAME, to the interface of the "
        "network the nodes share, on every node; in containers, the host's network), or a firewall blocks "
        "the ports between the nodes (open them); no server setting's value",
        r"NCCL WARN socket(?:Poll|Start)?Connect: Connect to \S+ (?:returned|failed)[^\n]*?"
        r"(?:No route to host|Connection refused|Connection timed out|Network is unreachable)",
        "https://github.com/sgl-project/sglang/issues/3820",
    ),
    Wording(
        # vllm-ascend#477 (fixed by its PR#479: torchvision<0.21.0 to match torch/torch_npu 2.5.1); the
        # torchvision 0.21.0 wheel pins torch==2.6.0 (its METADATA) and registers the operator's fake kernel
        # in torchvision/_meta_registrations.py:163, which raises this when its compiled operators are absent
        "torchvision: its compiled operators did not load into the installed torch, so torchvision was built "
        "for another torch release (each torchvision wheel pins one torch release, as 0.21.0 pins torch "
        "2.6.0): install the torchvision made for the "
        "installed torch (pip install torchvision==<the release paired with it>, from the same index as "
        "torch), or the torch it was built for; no server setting",
        r"operator torchvision::\w+ does not exist",
        "https://github.com/vllm-project/vllm-ascend/issues/477",
    ),
    Wording(
        # sglang#27368 (seccomp denying set_mempolicy, or a cpuset.mems without the GPU's node: numactl exits
        # before Python starts, the scheduler dies with exit code 1), fixed by sglang PR#28401's probe
        "numactl (the NUMA binding SGLang puts in front of each scheduler process while "
        "SGLANG_NUMA_BIND_V2 is on, its default; vLLM's --numa-bind does the same for its workers): the "
        "memory binding (--membind) "
        "was refused, because the container's cpuset.mems leaves out the GPU's NUMA node or its seccomp "
        "profile denies set_mempolicy, and numactl exited before Python started (the process died with exit "
        "code 1 and no traceback): a release that probes numactl and falls back to CPU-only binding (SGLang "
        "PR#28401), SGLANG_NUMA_BIND_V2=0 (vLLM: without --numa-bind), or a container that allows the "
        "binding; no other server setting",
        r"\bsetting (?:membind|interleave|preferred(?: node)?)(?: policy)?: "
        r"(?:Invalid argument|Operation not permitted)|\bset_mempolicy: Operation not permitted",
        "https://github.com/sgl-project/sglang/issues/27368",
    ),
    Wording(
        # vllm#14413 (vLLM created in a Ray Data map worker with TP > 1), vllm#14610 and ray#51242's analysis:
        # the process that creates the engine holds no GPU of the placement group
        "CUDA, as torch reaches it: the process sees no GPU: CUDA_VISIBLE_DEVICES is empty or names no "
        "device, or the container was given none; under Ray (a '(_MapWorker pid=…)', '(ServeReplica…)' or "
        "'(RayWorkerWrapper…)' tag), the task or actor running this code was given no GPU (num_gpus 0), so "
        "Ray hid them all: give the process that creates the engine a GPU (num_gpus on the Ray Data map "
        "worker, the Serve deployment's ray_actor_options or placement group bundles), or let the engine "
        "make its own placement group; no engine flag",
        r"\bNo CUDA GPUs are available\b",
        "https://github.com/vllm-project/vllm/issues/14413",
    ),
    Wording(
        # sglang#4778: sgl_kernel's import in a conda environment; the reporter added CUDA's compat directory
        # (the one holding libcuda.so.1) to LD_LIBRARY_PATH
        "the dynamic loader: libcuda.so.1 is the NVIDIA driver's own library (not a pip package): the "
        "process does not see the driver: in a container, run it with the GPU runtime (Docker: --gpus all "
        "or --runtime nvidia; Kubernetes: an nvidia.com/gpu limit under the NVIDIA runtime class); on a "
        "host, add the directory that holds libcuda.so.1 (the driver's, or CUDA's compat directory) to "
        "LD_LIBRARY_PATH; no server setting",
        r"\blibcuda\.so[.\d]*: cannot open shared object file",
        "https://github.com/sgl-project/sglang/issues/4778",
    ),
)
