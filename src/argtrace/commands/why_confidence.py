"""How far ``why``'s first site can be trusted, and where a text that no framework site explains comes from.

``why`` ranks every raise/log site whose literal pieces occur in the pasted text; a text that is not the
frameworks' own (the container runtime's "executable file not found in $PATH", a transformers or
tokenizers error, an import or loader failure, a CUDA driver error) still shares a few words with some
site ("not found in", "CUDA error:"), and that site came first as if it were where the launch failed.
Measured on real reports (tests/data/why_foreign_texts.json, docs/why.md "Weak matches"), every such
first site rests on fewer than ``STRONG_CHARS`` literal characters, while the control group's correct
first sites rest on 24 or more, except short messages whose exception class the text names
(``AssertionError: res=...``: 10 characters, the right site). So a first site is *weak* when it rests on
fewer than ``STRONG_CHARS`` characters and one more sign says it is not the text's own: the match is
partial (words in order, not the message), the text names an exception class the site does not raise,
or the text's wording, traceback frames or qualified exception class name another program or package
(``origin``). The matches stay as they are (the JSON contract); the section says ``confidence`` and why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from argtrace.commands.why_toolchain import TOOLCHAIN_WORDINGS
from argtrace.commands.why_wording import Wording

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STRONG_CHARS = 20  # literal characters below which a first site needs its exception class to back it


FOREIGN_WORDINGS: tuple[Wording, ...] = (
    Wording(
        "the container runtime (Docker/runc): the image's entrypoint or command is not on its PATH",
        r"executable file not found in \$PATH",
        "https://github.com/vllm-project/production-stack/issues/454",
    ),
    Wording(
        "the container runtime (Docker/runc) starting the container",
        r"OCI runtime create failed|Error response from daemon: ",
        "https://github.com/AbdBarho/stable-diffusion-webui-docker/issues/406",
    ),
    Wording(
        "nvidia-container-cli (NVIDIA Container Toolkit): the host's driver libraries",
        r"\bnvidia-container-cli: ",
        "https://github.com/allenporter/llama-cpp-server/issues/85",
    ),
    Wording(
        "the CUDA driver: older than the CUDA runtime the packages were built for",
        r"CUDA driver version is insufficient for CUDA runtime version",
        "https://github.com/nagadomi/nunif/issues/702",
    ),
    Wording(
        "transformers' GGUF loader: it has no config mapping for this GGUF file's architecture (vLLM builds"
        " the model's config from the GGUF header through it unless --hf-config-path names the original"
        " model's config)",
        r"GGUF model with architecture \S+ is not supported yet",
        "https://github.com/vllm-project/vllm/issues/15277",
    ),
    Wording(
        # verl#5113, #5087, #4202: verl's rollout imports names of vLLM's modules that the installed vLLM
        # release does not define (MaxLoRARanks, ExecuteModelRequest, process_weights_after_loading); the
        # module imported, so the package is there: the two packages' releases do not fit together. Not a
        # circular import ("from partially initialized module") nor a broken package ("(unknown location)")
        "Python's import system: the module is installed but lacks the name: the code importing it was "
        "written for another release of the module's package (install releases that fit together: the one "
        "the importer's requirements name, or an importer made for the installed one); no server setting",
        r"\bcannot import name '?[\w.]+'? from (?!partially|[^\n]*\(unknown location\))",
        "https://github.com/verl-project/verl/issues/5113",
    ),
    Wording(
        "Python's import system: the installed package is broken or missing",
        r"\bNo module named |\bcannot import name ",
        "https://github.com/vllm-project/vllm/issues/31789",
    ),
    Wording(
        "the dynamic loader: a shared library the packages need is missing",
        r"cannot open shared object file",
        "https://github.com/vllm-project/vllm/issues/31018",
    ),
    Wording(
        # vllm#36771: LMCache's c_ops built against another PyTorch than vllm-openai:v0.17.0's (a _ZN3c10...
        # symbol is PyTorch's c10): the extension and the torch it loads into do not fit
        "the dynamic loader: a compiled extension needs a symbol the libraries it loads against lack, so it "
        "was built against another release of them (a _ZN3c10/_ZN2at symbol is PyTorch's: a build of the "
        "package named in the path for the installed torch, or the torch it was built for); no server "
        "setting",
        # from a word's start only (the lookbehind): tried at every character of a long word, the path's
        # class ran to the word's end each time (20,000 characters: 1.2-2.4 s; test_why_wordings_linear)
        r"(?<![^\s:'\"])[^\s:'\"]*\.so[.\d]*: undefined symbol: \S+|undefined symbol: \S+",
        "https://github.com/vllm-project/vllm/issues/36771",
    ),
    Wording(
        "pip: no release of a requirement fits this environment",
        r"Could not find a version that satisfies the requirement|No matching distribution found for",
        "https://github.com/sgl-project/sglang/issues/3561",
    ),
    Wording(
        "transformers: the installed release does not know the model's architecture",
        r"Transformers does not recognize this architecture",
        "https://github.com/zai-org/GLM-V/issues/107",
    ),
    Wording(
        "transformers: the model's tokenizer has no chat template and the server passed none (a base "
        "model's tokenizer; a chat template file given to the server fills it: --chat-template FILE, in "
        "SGLang and vLLM)",
        r"tokenizer\.chat_template is not set and no template argument was passed",
        "https://github.com/sgl-project/sglang/issues/2431",
    ),
    Wording(
        "PyTorch's process group (torch.distributed, ProcessGroupNCCL): a collective's input and output "
        "tensors do not fit the group's world size",
        r"input tensor must be the same size as output size times world size"
        r"|output tensor size must be equal to world_?size times input tensor size",
        "https://github.com/sgl-project/sglang/pull/19760",
    ),
    Wording(
        "Triton's compiler: the ptxas its release bundles does not know this GPU's architecture (a Triton or "
        "image built for it, or TRITON_PTXAS_PATH pointing at a newer CUDA toolkit's ptxas; no server "
        "setting)",
        # ptxas's own words, also pasted without its "ptxas fatal :" prefix (cosmos-reason2#30)
        r"Internal Triton PTX codegen error|ptxas fatal\s*: Value 'sm_\w+' is not defined"
        r"|Value 'sm_\w+' is not defined for option 'gpu-name'",
        "https://github.com/vllm-project/vllm/issues/29469",
    ),
    Wording(
        # DeepGEMM's csrc/apis/*.hpp dispatch on the device's arch major (DG_HOST_UNREACHABLE("Unsupported
        # architecture")): the hyper-connection pre-norm GEMM and the paged MQA logits of DeepSeek-V4 had SM90
        # and SM100 kernels only (deepseek-ai/DeepGEMM#317); SGLang reaches it through TVM's FFI
        # (tvm.error.InternalError), vLLM through its bundled build (.deps/deepgemm-src)
        "DeepGEMM's kernels (the build inside the server or image): it has no kernel for this GPU's "
        "architecture (its DeepSeek-V4 hyper-connection and MQA-logits kernels were built for SM90/SM100 "
        "only; SM120/SM121 and older GPUs lack them): a DeepGEMM, server or image built with kernels for "
        "this GPU, or another GPU; no server setting makes the kernel exist",
        # also with only DeepGEMM's own source path in the assert (csrc/apis/attention.hpp:211: DeepSeek-V4's
        # paged MQA logits metadata on SM120, sglang#23657)
        r"(?i)deep_?gemm[\w./-]*:\d+\):?\s*Unsupported architecture"
        r"|\(csrc/apis/\w+\.hpp:\d+\):?\s*Unsupported architecture",
        "https://github.com/sgl-project/sglang/issues/25877",
    ),
    Wording(
        # c10's TORCH_INTERNAL_ASSERT ("... INTERNAL ASSERT FAILED at FILE:LINE, please report a bug to
        # PyTorch"): a state torch's own code must never reach; verl#705: SGLang 0.4.5's pt_weights_iterator
        # called torch.cuda.empty_cache() while a CUDA graph was being captured (removed in 0.4.6, sglang
        # PR#5151)
        "PyTorch's internal assert (TORCH_INTERNAL_ASSERT): a state PyTorch's own code must never reach, "
        "reached because code called it at a moment it does not allow (torch.cuda.empty_cache() during CUDA "
        "graph capture) or by a bug of PyTorch; no server setting is checked there: the server or torch "
        "release that fixes the call",
        r"\bINTERNAL ASSERT FAILED\b",
        "https://github.com/verl-project/verl/issues/705",
    ),
    Wording(
        "FlashInfer's JIT: it found no GPU architecture it can build for (also an SM 12.x GPU with a CUDA "
        "toolkit older than 12.9); vLLM's FlashInfer sampler reaches it at start-up: "
        "VLLM_USE_FLASHINFER_SAMPLER=0, or CUDA 12.9+",
        r"FlashInfer requires GPUs with sm75 or higher",
        "https://github.com/vllm-project/vllm/pull/48956",
    ),
    Wording(
        "llama.cpp (llama-server, Ollama's runner, its bindings), not SGLang or vLLM: the build does not "
        "know the model's architecture (a newer build does)",
        r"\bllama_model_load\w*:|error loading model architecture|unknown model architecture: '",
        "https://github.com/ollama/ollama/issues/15545",
    ),
    Wording(
        "NCCL's own log (NCCL_DEBUG): a CUDA call inside NCCL failed on this node (its P2P or IPC: "
        "NCCL_P2P_DISABLE=1 tells whether P2P is the cause)",
        r"\bNCCL WARN (?:Cuda failure|Call to)",
        "https://github.com/sgl-project/sglang/issues/6246",
    ),
    Wording(
        "PyTorch's elementwise operators: two tensors whose shapes do not broadcast (the sizes the model's "
        "code computed, not a setting's own check)",
        r"(?i)the size of tensor a \(\d+\) must match the size of tensor b \(\d+\)",
        "https://github.com/vllm-project/vllm-ascend/issues/8511",
    ),
    Wording(
        # cudaErrorNoKernelImageForDevice's text (cudaGetErrorString), whichever library launched the kernel:
        # torch, sgl-kernel's RMSNorm, vLLM's _C, FlashInfer; a backend flag moves the launch elsewhere only
        # when the other library was built for the GPU (sglang#24224: triton and pytorch sampling did not
        # help)
        "the CUDA runtime: the installed build has no kernel for this GPU's architecture; install a build "
        "for it (torch, sgl-kernel, vLLM or FlashInfer wheels or an image with that compute capability: "
        "sm_75 T4, sm_120 RTX 50xx with CUDA 12.8+); no server setting changes it",
        r"no kernel image is available for execution on the device",
        "https://github.com/sgl-project/sglang/issues/24224",
    ),
    Wording(
        # cudaErrorInvalidDevice's text: a rank's device index (SGLang: base_gpu_id + tp_rank % (tp_size //
        # nnodes), model_runner/scheduler; vLLM: the local rank) past the GPUs this process sees
        "the CUDA runtime: a process selected a GPU index this node does not expose (more ranks per node "
        "than visible GPUs: the tensor/pipeline parallel size without --nnodes, a --base-gpu-id past the "
        "last GPU, or CUDA_VISIBLE_DEVICES listing fewer GPUs)",
        r"CUDA error: invalid device ordinal",
        "https://github.com/sgl-project/sglang/issues/6072",
    ),
    Wording(
        # flashinfer/data/include/flashinfer/trtllm/fmha/fmhaRunner.cuh: TllmGenFmhaRunner's constructor
        # checks FLASHINFER_CHECK(mSM == kSM_100 || mSM == kSM_103, "Unsupported architecture") (flashinfer
        # 0.6.7.post2, quoted in flashinfer#3263); SGLang reaches it through its TRT-LLM-gen paths (the
        # trtllm_mha/trtllm_mla attention backends, the DSA trtllm backends, MLA prefill on SM12x:
        # sglang#24633, sglang#40558)
        "FlashInfer's TRT-LLM-gen attention kernels (TllmGenFmhaRunner), built for SM100/SM103 only: on "
        "another GPU (SM120 RTX 50xx/RTX PRO 6000, SM121 GB10) choose a backend that is not a trtllm one for "
        "attention (--attention-backend/--prefill-attention-backend/--decode-attention-backend, the DSA "
        "backends); the server's own default may choose it too",
        r"TllmGenFmhaRunner'?\b.*Unsupported architecture",
        "https://github.com/flashinfer-ai/flashinfer/issues/3263",
    ),
    Wording(
        # flash-attention's hopper/flash_fwd_launch_template.h (FlashAttention 3, built into sgl-kernel and
        # vLLM's vllm-flash-attn): run_flash_fwd sets the kernel's dynamic shared memory
        # (CHECK_CUDA(cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, smem_size))) and
        # launches it (flash-attention 000090d); "invalid argument" is cudaErrorInvalidValue. Its SM8x tiles
        # are sized for SM80 (163 KB of shared memory per block), SM86/SM89 offer 99 KB: Qwen3-Next on L20s
        # and RTX 5880 Adas (SM89) under SGLang 0.5.2, whose hybrid linear-attention backend takes
        # FlashAttentionBackend for the full-attention layers whatever --attention-backend says
        # (ModelRunner._get_attention_backend_from_str, model_executor/model_runner.py:1696 of 0.5.2;
        # 0.5.10.post1 wraps the backend the flag chooses, layers/attention/attention_registry.py:180)
        "FlashAttention 3's kernels (flash-attention's hopper/ sources, inside sgl-kernel or vLLM's "
        "vllm-flash-attn): the CUDA runtime refused the kernel's launch settings on this GPU (its dynamic "
        "shared memory: FA3's tiles are sized for SM80/SM90, SM86/SM89 GPUs such as the RTX 30xx/40xx, A10, "
        "L20, L40 and RTX Ada cards offer less per block): choose an attention backend that is not FA3 "
        "(SGLang: --attention-backend triton or flashinfer; vLLM: --attention-backend); where the server "
        "takes FA3 by itself (SGLang 0.5.2's hybrid linear attention, Qwen3-Next) a later release that "
        "follows the flag, or an SM80/SM90 GPU",
        r"hopper/flash_fwd_launch_template\.h:\d+\)?:?\s*invalid argument",
        "https://github.com/sgl-project/sglang/issues/10711",
    ),
    Wording(
        # ATen's topk (aten/src/ATen/native: "selected index k out of range"): k above the size of the
        # dimension. SGLang's EAGLE/NEXTN draft tree keeps the best num_draft_token - 1 of its topk +
        # (num_steps - 1) * topk * topk candidates (torch.topk(score_list, num_verify_tokens - 1) in
        # speculative/build_eagle_tree.py:28 of 0.4.5.post3; organize_draft_results,
        # speculative/eagle_utils.py:110 of 0.5.23); with topk 1 both set num_draft_tokens to num_steps + 1
        # themselves (server_args.py of 0.4.5.post3, arg_groups/speculative_hook.py of 0.5.23)
        "PyTorch's topk: k is larger than the dimension it selects from. In SGLang's EAGLE/NEXTN speculative "
        "decoding the draft tree keeps the best --speculative-num-draft-tokens - 1 of its topk + "
        "(num_steps - 1) * topk^2 candidates: lower --speculative-num-draft-tokens, or raise "
        "--speculative-eagle-topk or --speculative-num-steps (with topk 1 the server sets the draft tokens "
        "to num_steps + 1 itself)",
        r"selected index k out of range",
        "https://github.com/sgl-project/sglang/issues/5160",
    ),
    Wording(
        # torch/cuda/__init__.py _lazy_init's _check_driver: cudaErrorInsufficientDriver, with the driver's
        # CUDA version (12080: a CUDA 12.8 driver under a wheel built for CUDA 13)
        "PyTorch's CUDA start: the NVIDIA driver is older than the CUDA the installed torch was built for; "
        "install a torch (and vLLM/SGLang) build for this driver's CUDA, or a newer driver; no server "
        "setting changes it",
        r"The NVIDIA driver on your system is too old",
        "https://github.com/modelscope/FunASR/issues/2973",
    ),
    Wording(
        # a Rust thread's panic message (std's default hook): "thread 'NAME' panicked at FILE:LINE:COL:"
        "a Rust router's panic (SGLang's sgl-router / model gateway): a bug in the router itself, not a "
        "setting of the servers it routes to (a newer router release, or its issue tracker)",
        r"thread '[^'\n]*' panicked at \S*(?:router|gateway)\S*\.rs:\d+",
        "https://github.com/sgl-project/sglang/issues/7028",
    ),
    Wording(
        "Jinja2's template parser: the chat template is not valid Jinja (the tokenizer's own chat_template, "
        "or the one given with --chat-template or a request's chat_template): fix the template's text, "
        "often escapes lost when it was pasted into a string",
        r"\bTemplateSyntaxError\b",
        "https://github.com/vllm-project/vllm/issues/15230",
    ),
    Wording(
        # CPython's int() on a string with a decimal point; vLLM reads its integer VLLM_* variables with int()
        # (the schemas' env_vars of type int: VLLM_CPU_KVCACHE_SPACE at vllm/envs.py)
        "Python's int(): a whole number was read and the value has a decimal point (a setting the server "
        "reads with int(), such as vLLM's integer VLLM_* environment variables): write it without the "
        "decimal point (4, not 4.0)",
        r"invalid literal for int\(\) with base 10: '-?\d+\.\d*'",
        "https://github.com/vllm-project/vllm/pull/36128",
    ),
    Wording(
        # torch/_inductor: its exceptions (torch._inductor.exc.InductorError), its frames, its name in a
        # title;
        # the server compiles the model through it (vLLM's compilation mode and --compilation-config, SGLang's
        # --enable-torch-compile): vllm#28982 (torch 2.9 on the CPU backend), torchtitan#3669 (a custom op it
        # cannot lower), vllm#30905 (compile_sizes autotuning on 0.11.2)
        "PyTorch's Inductor compiler (torch.compile), run because the server compiles the model (vLLM's "
        "compilation mode, on by default in its V1 engine, with --compilation-config's options such as "
        "compile_sizes; SGLang's --enable-torch-compile): a failure inside the compiler, not a check of a "
        "setting; start without compilation to confirm (vLLM: --enforce-eager, or -O0; SGLang: without "
        "--enable-torch-compile), then use the torch release the server pins or a server release with the "
        "fix",
        r"torch\._inductor\.exc\.\w+|torch[/\\]_inductor[/\\]|\bTorchInductor\b|backend='inductor' raised",
        "https://github.com/pytorch/torchtitan/issues/3669",
    ),
    Wording(
        # torch/_dynamo/exc.py: torch.compile's tracer (Dynamo) failing on the model's code, its exceptions
        # qualified (torch._dynamo.exc.InternalTorchDynamoError); sglang#6342: SGLang 0.4.6 with
        # --enable-torch-compile traced a call reading the CUDA generator's seed during CUDA graph capture
        "PyTorch's Dynamo (torch.compile's tracer), run because the server compiles the model (SGLang's "
        "--enable-torch-compile; vLLM's compilation mode, on by default in its V1 engine): a failure inside "
        "the compiler while tracing, not a check of a setting; start without compilation to confirm (SGLang: "
        "without --enable-torch-compile; vLLM: --enforce-eager, or -O0), then use the torch release the "
        "server pins or a server release with the fix",
        r"\btorch\._dynamo\.exc\.\w+",
        "https://github.com/sgl-project/sglang/issues/6342",
    ),
    Wording(
        # CPython's NameError: code used a name nothing defined; in a program that wraps SGLang or vLLM, a
        # name it imports from them inside a try block that let the ImportError pass (LLaMA-Factory's
        # launch_server_cmd from sglang.utils, LLaMA-Factory#8544)
        "Python's interpreter: code used a name nothing defined (NameError), often one a program meant to "
        "import from SGLang or vLLM when that import failed quietly: the installed release lacks it; install "
        "the release the calling program supports; no launch setting is checked there",
        r"\bname '\w+' is not defined\b",
        "https://github.com/hiyouga/LlamaFactory/issues/8544",
    ),
    Wording(
        # torchao/quantization/quant_api.py's hardware assert (pytorch/ao PR#1314): "CUDA" is the GPU's
        # compute capability there (vllm PR#37033 rewords it)
        "torchao's hardware check: Float8 activation quantization needs a GPU of compute capability 8.9 or "
        'newer (Ada, Hopper, Blackwell) or an MI300; "CUDA>=8.9" is the GPU\'s compute capability, not the '
        "CUDA toolkit: on this GPU use a weight-only scheme (vLLM's --quantization torchao config) or none",
        r"Float8 \w+ (?:activation )?quantization is only supported on CUDA ?>= ?8\.9",
        "https://github.com/vllm-project/vllm/pull/37033",
    ),
    Wording(
        # aten/src/ATen/native/cuda/RowwiseScaledMM.cu: TORCH_CHECK(false, "Rowwise scaling is not currently
        # supported on your device") when the build has no row-wise FP8 kernel for this GPU
        "PyTorch's scaled matrix multiply (torch._scaled_mm): the installed torch build has no row-wise "
        "scaled FP8 kernel for this GPU (a compute capability below 8.9, or a build without it for this "
        "architecture, such as Windows builds); a torch build that has it, or a checkpoint or kernel path "
        "that does not scale row-wise; no server setting",
        r"Rowwise scaling is not currently supported on your device",
        "https://github.com/FlashML-org/FreeToken/issues/277",
    ),
    Wording(
        # CPython's unpacking of a sequence into a fixed number of names (verl#1368: verl built for SGLang
        # 0.4.5.post3 calling 0.4.6.post1)
        "Python's interpreter: code unpacked a value into a fixed number of names and got another count: a "
        "caller and the code it calls come from releases that do not fit (a program built for another "
        "SGLang, "
        "vLLM or transformers release), or a bug of the release; no launch setting is checked there: install "
        "the releases the calling program pins",
        r"(?:not enough|too many) values to unpack \(expected \d+",
        "https://github.com/verl-project/verl/issues/1368",
    ),
    Wording(
        # transformers/tokenization_utils_fast.py (PreTrainedTokenizerFast.__init__): no tokenizer.json it can
        # read and no slow tokenizer it can convert (sglang PR#37621: transformers 5's generic
        # TokenizersBackend
        # named by a checkpoint's tokenizer_config.json, which SGLang re-resolved to a slow class)
        "transformers' tokenizer loading: the checkpoint has no tokenizer.json this tokenizers release reads "
        "and no slow tokenizer it can convert (sentencepiece or tiktoken missing, or a tokenizer_config.json "
        "naming a class this release lacks, such as transformers 5's TokenizersBackend, read by transformers "
        "4 or re-resolved by the server); no server setting: install what it names, or give the server a "
        "working tokenizer (--tokenizer PATH)",
        r"Couldn't instantiate the backend tokenizer from one of",
        "https://github.com/sgl-project/sglang/pull/37621",
    ),
    Wording(
        # aiter/ops/triton/gluon/mla_gluon.py's arch assert ("mla_gluon requires gfx950 (CDNA4), got gfx942",
        # aiter#4831): vLLM's ROCM_AITER_MLA backend reached it on MI300X with VLLM_ROCM_USE_AITER=1 and
        # VLLM_ROCM_USE_AITER_MLA (on by default, vllm/envs.py:1331 in 0.33.0) before 0.33.0 restricted the
        # Gluon MLA decode to gfx950 (_gluon_mla_decode_supported, rocm_aiter_mla.py:230)
        "a ROCm kernel built for the AMD architecture it names only, not this GPU's (aiter's, the kernel "
        "library vLLM and SGLang call, on real reports); turn off the aiter path that chose it (vLLM: "
        "VLLM_ROCM_USE_AITER_MLA=0 for its MLA kernels, or VLLM_ROCM_USE_AITER=0), or a release that "
        "checks the architecture first (vLLM 0.33.0 keeps the Gluon MLA decode to gfx950); no other server "
        "setting makes the kernel exist",
        r"\brequires gfx\d\w*\b[^\n]{0,40}?,? got gfx\d\w*",
        "https://github.com/ROCm/aiter/issues/4831",
    ),
    Wording(
        # aws/sagemaker-python-sdk#5752: a DJL/vLLM container's tokenizers older than the file's format
        "tokenizers: the installed release cannot read the model's tokenizer.json, which a newer tokenizers "
        "saved (a format this release does not know): install a tokenizers (and transformers) new enough for "
        "the file, within what the server release allows (a newer server image), or save the tokenizer again "
        "with the installed release; no server setting",
        r"did not match any variant of untagged enum",
        "https://github.com/allenai/open-instruct/issues/738",
    ),
)

# other programs' messages about the environment a server runs in, ahead of the ones above: the first wording
# that matches names the origin, and these name the cause where the others name the frame it surfaced in
# (vllm#44548's getpwuid KeyError inside torch/_inductor/ is the container's user, not the compiler)
_ENVIRONMENT_WORDINGS = (
    Wording(
        # the ROCm runtime's (HSA's) report of a GPU page fault, ROCm's counterpart of CUDA's illegal memory
        # access: ROCm/aiter#2187 (vLLM's AITER FP8 MoE on MI350X; VLLM_ROCM_USE_AITER_MOE=0 avoids it),
        # iree-org/wave#466 (SGLang's wave attention backend), sglang#39517 (the aiter attention backend's
        # paged prefill; --attention-backend triton works); the variables are vLLM 0.33.0's envs.py and
        # SGLang 0.5.23's
        "the ROCm runtime (HSA): a GPU kernel the engine ran faulted on memory (ROCm's illegal memory "
        "access), not a setting's check: run without it: another --attention-backend, or AITER off (vLLM: "
        "VLLM_ROCM_USE_AITER=0, or one op: VLLM_ROCM_USE_AITER_MOE=0, VLLM_ROCM_USE_AITER_MHA=0; SGLang: "
        "SGLANG_USE_AITER=0), --enforce-eager or --disable-cuda-graph when it faults in graph capture; and "
        "report it to the kernel's project",
        r"Memory access fault by GPU node-\d+|HSA_STATUS_ERROR_MEMORY_FAULT",
        "https://github.com/ROCm/aiter/issues/2187",
    ),
    Wording(
        # vllm#49804 (vLLM 0.26.0: flashinfer-cubin 0.6.13 beside flashinfer 0.6.14); sglang PR#23100 (the
        # same check for flashinfer-jit-cache, which the server sets FLASHINFER_DISABLE_VERSION_CHECK for)
        "FlashInfer's version check: the flashinfer-cubin or flashinfer-jit-cache package installed is of "
        "another release than flashinfer-python; install the same version of both (the check can be skipped "
        "with FLASHINFER_DISABLE_VERSION_CHECK=1, as the message says); no server setting",
        r"flashinfer-(?:cubin|jit-cache) version \([^)]*\) does not match flashinfer version",
        "https://github.com/vllm-project/vllm/issues/49804",
    ),
    Wording(
        # pip's dependency resolver after an install: ktransformers#1951 (sglang-kt 0.6.1's first wheel
        # pinned torch 2.9.1, kt-kernel 0.6.1 needs torch>=2.10; fixed by a republished wheel)
        "pip's dependency resolver: an installed package requires another release of a dependency than the "
        "one installed (a set of packages whose releases do not fit together: install the releases the "
        "requirement names, or a release of the requiring package made for the installed one); no server "
        "setting",
        r"(?<!\S)\S+ [\w.+!-]+ requires [^\n]+?, but you have \S+ [\w.+!-]+ which is incompatible",
        "https://github.com/kvcache-ai/ktransformers/issues/1951",
    ),
    Wording(
        # vllm#44548: the vllm-openai image on OpenShift, which runs the pod as a random UID with no
        # /etc/passwd entry; torch's Inductor calls getpass.getuser() at import (torch 2.11+); llm-d sets
        # USER in its manifests for it (llm-d-benchmark PR#1573)
        "Python's pwd module (getpass.getuser()): the process runs as a user ID with no /etc/passwd entry (a "
        "container given an arbitrary UID: OpenShift's restricted SCC, a runAsUser), and torch's Inductor "
        "asks for the user name when it is imported: set USER (and HOME) in the container's environment; no "
        "server flag",
        r"getpwuid\(\): uid not found",
        "https://github.com/vllm-project/vllm/issues/44548",
    ),
    Wording(
        # Ascend/sglang#81: SGLang main of 2026-03-09 on A3, dots.ocr; passed on a later build
        "torch_npu (Ascend CANN): an aclnn operator failed on the NPU, inside the operator or the server's "
        "call to it, not a check of a setting: a server, torch_npu or CANN build with the fix (retest on a "
        "newer image), and the operator's name for the report",
        r"NPU function error: call aclnn\w+ failed, error code is \d+",
        "https://github.com/Ascend/sglang/issues/81",
    ),
    Wording(
        # apache/beam PR#36966: a Dynamo vLLM worker started with no etcd at the default endpoint (Dynamo's
        # deploy/docker-compose.yml starts etcd and NATS; ETCD_ENDPOINTS, ai-dynamo/dynamo PR#4848)
        "NVIDIA Dynamo's runtime: it registers the worker in etcd and no etcd server answers at that "
        "address: start etcd (Dynamo's deploy/docker-compose.yml) or set ETCD_ENDPOINTS to one; not a vLLM "
        "or SGLang flag",
        r"Unable to create lease\. Check etcd server status at \S+",
        "https://github.com/apache/beam/pull/36966",
    ),
    Wording(
        # bytedance-iaas/sglang PR#566 (sgl-project/sglang#27654): transformers 5.6.0's hub_kernels
        # integration builds kernels' LayerRepository without a revision, which kernels 0.15.2 refuses, before
        # SGLang serves
        "the kernels package (Hugging Face kernels, imported by transformers' hub_kernels integration at "
        "start-up): its 0.15 releases refuse the call transformers 5.6 makes; install kernels<0.15 (0.14.1) "
        "or a transformers release made for the installed kernels; no server setting",
        r"Either a revision or a version must be specified",
        "https://github.com/bytedance-iaas/sglang/pull/566",
    ),
    Wording(
        # instructlab#3466: `ilab model serve` hides vLLM's own output unless asked for it
        "InstructLab (ilab model serve): its own message, vLLM's output with the cause is hidden: serve "
        "again with --enable-serving-output and read vLLM's error (argtrace why on it)",
        r"vLLM failed to start\.\s+Retry with --enable-serving-output",
        "https://github.com/instructlab/instructlab/issues/3466",
    ),
)
FOREIGN_WORDINGS = (*TOOLCHAIN_WORDINGS, *_ENVIRONMENT_WORDINGS, *FOREIGN_WORDINGS)

_OWN = ("sglang", "vllm")
# kernel libraries a server uses by a switch: an error inside one is the library's, and running without it is
# the way round it (the variables read from vLLM 0.33.0's envs.py and SGLang 0.5.23's sources); laifs#8:
# AITER's FMHA v3 on an MI250X (gfx90a)
_KERNEL_PACKAGES = {
    "aiter": "aiter (AMD's AITER kernels, used on ROCm when AITER is on): an error inside its kernel (its "
    "inputs, or a GPU it lacks a kernel for), not a setting's check: run without AITER (vLLM: "
    "VLLM_ROCM_USE_AITER=0 or the op's VLLM_ROCM_USE_AITER_* variable; SGLang: SGLANG_USE_AITER=0)",
}
_FRAME = r'File "[^"]*[/\\](?:site|dist)-packages[/\\]([A-Za-z_]\w*)'
# at most 16 dotted parts, each read once: with `+` a pasted 110 KB `a.ba.b...` was read to its end from every
# part, over 25 s (probe of session 13); real module paths have fewer than 10 parts
_QUALIFIED = r"\b((?:[a-z_]\w*+\.){1,16}+)([A-Z]\w*(?:Error|Exception|Warning))\b"
_CLASS = r"\b([A-Z]\w*(?:Error|Exception|Warning)|Exception)(?=:|\()"


def origin_of(text: str) -> dict[str, str] | None:
    """Who the text says printed it, when that is not SGLang or vLLM: its wording (a known message of
    another program), else the package of its innermost traceback frame, else the module of its qualified
    exception class (``torch.distributed.DistNetworkError``); a shell's message first (why_shell)."""
    from argtrace.commands.why_call import origin_of_call
    from argtrace.commands.why_shell import origin_of_shell
    from argtrace.commands.why_unrecognized import origin_of_parser

    shell = origin_of_shell(text) or origin_of_call(text) or origin_of_parser(text)
    if shell is not None:
        return shell
    from argtrace.commands.why_shape import origin_of_shape

    shape = origin_of_shape(text)  # PyTorch's shape error in speculative decoding: the two models' sizes
    if shape is not None:
        return shape
    from argtrace.commands.why_mamba_track import origin_of_mamba_track

    track = origin_of_mamba_track(text)  # SGLang's unguarded Mamba track index in a verify (why_mamba_track)
    if track is not None:
        return track
    for known in FOREIGN_WORDINGS:
        m = re.search(known.pattern, text)
        if m:
            return {
                "origin": known.origin,
                "basis": "wording",
                "evidence": m.group(0),
                "source": known.source,
            }
    frames = re.findall(_FRAME, text)
    if frames and frames[-1] not in _OWN:
        said = _KERNEL_PACKAGES.get(frames[-1], frames[-1])
        return {"origin": said, "basis": "frames", "evidence": f"innermost frame in {frames[-1]}/"}
    from argtrace.commands.why_attribute import origin_of_attribute

    attribute = origin_of_attribute(text)  # Python's AttributeError: the interpreter's words (why_attribute)
    if attribute is not None:
        return attribute
    from argtrace.commands.why_none import origin_of_none

    none = origin_of_none(text)  # Python's TypeError on a None operand (why_none)
    if none is not None:
        return none
    from argtrace.commands.why_weights import origin_of_weight

    weight = origin_of_weight(text)  # Python's KeyError on a checkpoint tensor's name (why_weights)
    if weight is not None:
        return weight
    plugin = plugin_package(text)
    if plugin is not None:
        return {"origin": plugin, "basis": "frames", "evidence": f"innermost frame in {plugin}/"}
    checkout = checkout_package(text)  # after Python's own words: they say more than whose code it was
    if checkout is not None:
        return {
            "origin": _KERNEL_PACKAGES.get(checkout, checkout),
            "basis": "frames",
            "evidence": f"innermost frame in a checkout of {checkout}/",
        }
    for m in re.finditer(_QUALIFIED, text):
        module = m.group(1).rstrip(".")
        if module.split(".", 1)[0] not in _OWN:
            return {"origin": module, "basis": "exception class", "evidence": m.group(0)}
    return None


_PATH = re.compile(r'File "([^"\n]+?\.py)"')


def _norm(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")


def checkout_package(text: str) -> str | None:
    """The package of a traceback's innermost frame when that frame is in a source checkout of a package
    other than SGLang or vLLM: a directory followed by the package directory of the same name, the layout
    of a cloned repository (slime#1909's ``.../slime/slime/backends/megatron_utils/actor.py``: slime's own
    check, not the frameworks'). None when the path holds no such pair or names SGLang or vLLM."""
    paths = _PATH.findall(text)
    if not paths:
        return None
    parts = [p for p in re.split(r"[/\\]", paths[-1]) if p]
    if any(p in _OWN for p in parts[:-1]):
        return None
    for i in range(len(parts) - 2, 0, -1):
        name = parts[i]
        if (
            re.fullmatch(r"[A-Za-z_][\w-]*", name)
            and _norm(parts[i - 1]) == _norm(name)
            and i < len(parts) - 1
        ):
            return name
    return None


# a package named after the framework it extends (vllm_ascend, vllm_omni, vllm_gaudi, sglang_router): its own
# code wherever it is installed (a CI checkout's /workspace/build/buildkite/vllm_omni/... is no site-packages)
_PLUGIN = re.compile(r"(?:vllm|sglang)[_-][a-z]\w*")


def plugin_package(text: str) -> str | None:
    """The plugin package of a traceback's innermost frame: the last directory of its path named after SGLang
    or vLLM with a suffix (``vllm_omni``), with no SGLang or vLLM package directory after it
    (``.../sglang_main/python/sglang/srt/...`` is a checkout of SGLang itself). vllm-omni#2756's
    ``RuntimeError: create_model_config() should not be called when stage_configs_path is set`` is
    ``vllm_omni/engine/arg_utils.py``'s own, not vLLM's."""
    paths = _PATH.findall(text)
    if not paths:
        return None
    parts = [p for p in re.split(r"[/\\]", paths[-1]) if p][:-1]
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] in _OWN:
            return None
        if _PLUGIN.fullmatch(parts[i]):
            return parts[i].replace("-", "_")
    return None


_FRAME_LINE = re.compile(r'File "([^"\n]+)", line \d+, in (\w+)[^\n]*\n[ \t]*([^\n]*)')


def raising_frame(text: str, site: Mapping[str, Any]) -> str | None:
    """The function (and file) of the text's innermost frame when the line it quotes is a ``raise`` and the
    function is not the site's: the text shows which code raised, and it is other code (vllm-omni#2756's
    ``create_model_config`` raising, against vLLM's ``StageMissingLayer.__call__``, 17 characters of
    "should not be called"). None for a log site, a text whose innermost frame quotes no raise, or the
    site's own function."""
    if site.get("kind") != "raise":
        return None
    frames = list(_FRAME_LINE.finditer(text))
    if not frames or not frames[-1].group(3).startswith("raise"):
        return None
    path, function = frames[-1].group(1), frames[-1].group(2)
    if function == str(site.get("function") or "").rsplit(".", 1)[-1]:
        return None
    where = "/".join(re.split(r"[/\\]", path)[-2:])
    return f"{function} ({where})"


def _only_class_words(message: str, named: set[str]) -> bool:
    """The message's literal words (its ``{expr}`` placeholders left out) are only exception class names the
    text names too."""
    literal = re.sub(r"\{[^{}]*\}", " ", message)
    words = re.findall(r"[A-Za-z_]\w*", literal)
    return bool(words) and all(w in named for w in words)


def assess(text: str, first: Mapping[str, Any] | None) -> dict[str, Any]:
    """``confidence`` of the first site (``strong``, ``weak``; ``none``: no site), the ``reasons`` a weak
    one is weak, and the text's ``origin`` (None when it names no other program)."""
    origin = origin_of(text)
    if first is None:
        return {"confidence": "none", "reasons": [], "origin": origin}
    if first.get("index") == "entrypoints" or first.get("library"):
        # argparse's refusal placed by the parser, or a library's own validator: the text's own site
        return {"confidence": "strong", "reasons": [], "origin": None}
    chars = int(first.get("specificity") or 0)
    named = set(re.findall(_CLASS, text))
    raised = str(first.get("exception") or "").rsplit(".", 1)[-1]
    signs = []
    if first.get("how") == "partial":
        signs.append("only some of its words occur in the text, in order")
    # a site that raises through a helper (``raise_error_or_warn(...)``) names no class to compare
    mismatch = bool(named and re.fullmatch(r"[A-Z]\w*", raised) and raised not in named)
    if mismatch:
        logged = first.get("kind") in ("log", "warn")
        said = f"logs at level {raised}" if logged else f"raises {raised}"
        signs.append(f"the text names {', '.join(sorted(named))}; the site {said}")
    if origin is not None:
        signs.append(f"the text comes from {origin['origin'].split(':', 1)[0]} (its {origin['basis']})")
    if _only_class_words(str(first.get("message") or ""), named):
        # ``logger.warning(f"Exception: {e}")``: it prints another error's message after a class name, so
        # any text with that class shares its only words (vllm#39774's cut "Exception: WorkerProc
        # initializat" against a Neuron loader's warning)
        signs.append("the site's message is an exception class and a value: it passes on another message")
    prose = prose_in_placeholder(text, first)
    if prose:
        # sglang#14107's re TypeError "expected string or bytes-like object, got 'dict'" against SGLang's
        # dumper "{key}: expected {field_type}, got {value}" (11 characters): its words are the value's
        signs.append(f"a placeholder of the site holds {prose!r}, words of a message rather than a value")
    codes = code_names_only(text, first)
    if codes:
        # ROCm/aiter#2187's fused-MoE log line "(..., 'torch.bfloat16', 'torch.float8_e4m3fn', ...)" against
        # vLLM's "{name} must be one of torch.bfloat16 / torch.float8_e4m3fn, got {dtype}" (30 characters)
        signs.append(
            f"the site's words the text holds are code names ({', '.join(codes)}), which any printout of "
            "those values holds"
        )
    head = head_missing(text, first)
    if head:
        signs.append(f"the site's message opens with {head!r}, which the text does not hold")
    lead = words_before(text, first)
    if lead:
        signs.append(f"the text's message opens with {lead!r}, which the site's message does not print")
    other = words_after(text, first)
    if other:
        said, printed = other
        signs.append(f"the text's message goes on with {printed!r} where the site's goes on with {said!r}")
    amid = words_amid(text, first)
    if amid is not None and not other:
        signs.append(amid.sign())
    raiser = raising_frame(text, first)
    if raiser is not None:
        signs.append(f"the text's innermost frame raises in {raiser}, not in the site's function")
    cased = case_differs(text, first)
    if cased is not None:
        signs.append(f"the text writes the site's words {cased[1]!r} as {cased[0]!r}: retold, not printed")
    # two signs against a site outweigh up to twice the characters one sign does: only some of its words
    # and a class it does not raise (vllm#34641's "RuntimeError: MXFP4 quantization is not supported on
    # gfx942" against SGLang's NotImplementedError "MXFP4 quantization for MoE is only supported on AMD
    # GPUs", 30 characters), or only some of its words and another program's wording (PyTorch's "input
    # tensor must be the same size as output size times world size", sglang PR#19760, against vLLM's
    # "k_scale and v_scale must be on the same device as output", 21 characters)
    # a message that opens with words the site does not print is not wholly the site's either (sglang#24121's
    # "RuntimeError: Destination indices must be a CUDA tensor" against SGLang's ValueError "indices must be
    # a CUDA tensor", 24 characters): it weighs as a partial match does
    partial = first.get("how") == "partial" or bool(lead)
    enough = STRONG_CHARS * 2 if len(signs) >= 2 and partial else STRONG_CHARS
    # words shared inside two different sentences, other words on both sides, say nothing of where the text
    # came from however many characters they hold (vllm PR#37033's torchao "Float8 dynamic activation
    # quantization is only supported on CUDA>=8.9" against vLLM's "Only dynamic per token group activation
    # quantization is supported.", 40 characters)
    if amid is not None and amid.both and partial:
        enough = max(enough, chars + 1)
    if chars >= enough or not signs:
        return {"confidence": "strong", "reasons": [], "origin": origin}
    reasons = [f"the best site shares {chars} literal characters with the text (fewer than {enough})"]
    return {"confidence": "weak", "reasons": reasons + signs, "origin": origin}


_LITERAL_HEAD = re.compile(r"[A-Za-z][\w'-]*(?: +[\w'-]+){0,3}")
_TEMPLATE_HOLE = re.compile(r"\{[^{}]*\}")
PROSE_WORDS = 4  # words one placeholder holds beyond which they are a sentence's, not a value


def prose_in_placeholder(text: str, site: Mapping[str, Any]) -> str | None:
    """What one placeholder of a site matched wholly holds when that is :data:`PROSE_WORDS` words or more
    of plain lowercase prose (no path, number or quoted name): the text's message is another's and the site
    met it only on the few literal words around the hole. None when no placeholder holds such words."""
    if site.get("how") != "full":
        return None
    template = " ".join(str(site.get("message") or "").split())
    pieces = _TEMPLATE_HOLE.split(template)
    if len(pieces) < 2 or not any(p.strip() for p in pieces):
        return None
    pattern = "(.+?)".join(re.escape(p) for p in pieces)
    m = re.search(pattern, " ".join(text.split()))
    if m is None:
        return None
    for held in m.groups():
        words = held.split()
        if len(words) >= PROSE_WORDS and all(re.fullmatch(r"[a-z][a-z-]*,?", w) for w in words):
            return held
    return None


def words_before(text: str, site: Mapping[str, Any]) -> str | None:
    """The words a text's exception message opens with before the site's own first words, when the site's
    message opens with literal words (no placeholder) and is raised (a log line has its own prefixes):
    ``raise ValueError("indices must be ...")`` prints "ValueError: indices must be ...", never
    "RuntimeError: Destination indices must be ...". Read after the nearest ``Class:`` before the match, so a
    wrapped exception ("X failed: ValueError: indices must be") is the inner one's message."""
    if site.get("kind") in ("log", "warn"):
        return None
    template = str(site.get("message") or "")
    head = _LITERAL_HEAD.match(template)
    if head is None or len(head.group(0)) < 8:
        return None  # a placeholder or a word or two first: the printed message may open with anything
    at = text.find(head.group(0))
    if at <= 0:
        return None
    before = text[:at]
    classes = list(re.finditer(_CLASS + r":\s*", before))
    if not classes:
        return None
    lead = before[classes[-1].end() :]
    # on the match's own line, and glued to it: a wrapper's prefix ends its own sentence ("Value error, ",
    # pydantic's; "failed: ", "Error in X - "), quotes the message ("Worker failed with error '...'", vLLM's
    # executor) or stands on a line of its own
    if "\n" in lead or re.search(r"[:,;\-.)\]('\"`]\s*$", lead):
        return None
    lead = lead.strip()
    return lead if re.search(r"[A-Za-z]", lead) else None


def head_missing(text: str, site: Mapping[str, Any]) -> str | None:
    """The literal words a partially matched site's message opens with when the text holds none of them
    together: a copy cut short keeps a message's opening and loses its end, so a text that meets only the
    site's middle words is another message with some of the same ones (xgrammar#427's "Device is not
    supported: 'npu'" against vLLM's "Non-integer device ID {device_id} is not supported by
    {cls.device_name}.", 20 characters in order). None for a full match or a message that opens with a
    placeholder or fewer than 8 literal characters."""
    if site.get("how") != "partial":
        return None
    head = _LITERAL_HEAD.match(str(site.get("message") or ""))
    if head is None or len(head.group(0)) < 8:
        return None
    words = head.group(0).split()
    opening = " ".join(words[:2]) if len(words) > 1 else words[0]
    return None if opening in text else head.group(0)


_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%[-#0 +]*\d*(?:\.\d+)?[sdrifx]")


def code_names_only(text: str, site: Mapping[str, Any]) -> list[str] | None:
    """The words of a partially matched site's message the text holds, when every one of them (of three
    characters or more) is a dotted code name (``torch.bfloat16``): a printout of values holds such names
    whatever printed it, so they say nothing of which message the text is. None for a full match, or when
    the text holds a plain word of the message too."""
    if site.get("how") != "partial":
        return None
    literal = _PLACEHOLDER.sub(" ", str(site.get("message") or ""))
    held = [
        w
        for w in dict.fromkeys(re.findall(r"[A-Za-z_][\w.]*\w", literal))
        if len(w) >= 3 and re.search(rf"(?<![\w.]){re.escape(w)}(?![\w.])", text)
    ]
    return held if held and all("." in w for w in held) else None


def words_after(text: str, site: Mapping[str, Any]) -> tuple[str, str] | None:
    """The word the site's message goes on with and the different word the text goes on with, where the text
    holds the opening words of the site's last literal piece but not the rest of it: vLLM's "Model
    architecture '{model_arch}' is not supported by ROCm for now." against transformers' "GGUF model with
    architecture deepseek2 is not supported yet." (vllm#15277; 31 characters in order, partial) goes on
    with "by" in the site and "yet" in the text, so the text is another message with some of the same
    words. None when the text holds the whole piece, ends there (a copy cut short) or goes on to the next
    line."""
    pieces = _PLACEHOLDER.split(str(site.get("message") or ""))
    words = pieces[-1].strip().lstrip("'\"`)]}:,. ").split()
    if len(words) < 3:
        return None
    for n in range(len(words) - 1, 1, -1):
        head = " ".join(words[:n])
        at = text.rfind(head)
        if at < 0:
            continue
        line = text[at + len(head) :].split("\n", 1)[0].strip()
        printed = re.match(r"[A-Za-z][\w'-]*", line)
        said = re.match(r"[A-Za-z][\w'-]*", words[n])
        if printed is None or said is None or printed.group(0) == said.group(0):
            return None
        return said.group(0), printed.group(0)
    return None


_WORD = re.compile(r"[A-Za-z][\w'-]*")


@dataclass(frozen=True)
class Amid:
    """A run of a site's literal words a text holds with other words around it: ``left``/``right`` are the
    (site's, text's) neighbouring words where they differ, ``both`` when they differ on both sides."""

    run: str
    left: tuple[str, str] | None
    right: tuple[str, str] | None

    @property
    def both(self) -> bool:
        return self.left is not None and self.right is not None

    def sign(self) -> str:
        said = []
        if self.left:
            said.append(f"{self.left[1]!r} before them where the site has {self.left[0]!r}")
        if self.right:
            said.append(f"{self.right[1]!r} after them where the site has {self.right[0]!r}")
        return f"the text holds the site's words {self.run!r} amid others: " + ", ".join(said)


def words_amid(text: str, site: Mapping[str, Any]) -> Amid | None:
    """The longest run of two or more of a partially matched site's literal words (within one literal piece,
    with a literal word of the site beside it) that the text holds, when the text's words beside the run are
    not the site's: another sentence with a stock phrase of the site's ("is not currently supported",
    freetoken#277's "Rowwise scaling is not currently supported on your device" against vLLM's "Streaming is
    not currently supported with beam search"). Neighbours are compared within a sentence only: a title that
    quotes a message and goes on in the reporter's words (vllm#24967) differs after the message's full stop.
    None for a full match, a run the text ends in (a copy cut short) or a run whose neighbours agree."""
    if site.get("how") != "partial":
        return None
    tokens = list(_WORD.finditer(text))
    said = [t.group(0) for t in tokens]
    runs: list[tuple[int, list[re.Match[str]], int, int]] = []  # (length, piece words, i, at)
    for piece in _PLACEHOLDER.split(str(site.get("message") or "")):
        words = list(_WORD.finditer(piece))
        plain = [w.group(0) for w in words]
        for i in range(len(words) - 1):
            for j in range(len(words), i + 1, -1):
                if i == 0 and j == len(words):
                    continue  # no literal word of the site beside it: nothing to compare
                at = _find_run(said, plain[i:j])
                if at is not None:
                    runs.append((j - i, words, i, at))
                    break
    if not runs:
        return None
    n, words, i, at = max(runs, key=lambda r: r[0])
    left = right = None
    j, end = i + n, at + n
    if (
        i > 0
        and at > 0
        and _same_sentence(words[i - 1], words[i])
        and _same_sentence(tokens[at - 1], tokens[at])
    ):
        if tokens[at - 1].group(0) != words[i - 1].group(0):
            left = (words[i - 1].group(0), tokens[at - 1].group(0))
    if j < len(words) and end < len(tokens) and _same_sentence(words[j - 1], words[j]):
        if _same_sentence(tokens[end - 1], tokens[end]) and tokens[end].group(0) != words[j].group(0):
            right = (words[j].group(0), tokens[end].group(0))
    if left is None and right is None:
        return None  # the run sits among the site's own words: the text may well be its message
    return Amid(" ".join(w.group(0) for w in words[i:j]), left, right)


def case_differs(text: str, site: Mapping[str, Any]) -> tuple[str, str] | None:
    """(the text's spelling, the site's) of the longest run of two or more of a partially matched site's
    literal words that the text holds only in another letter case: a program prints its message as written,
    so "flashinfer gdn backend" in a report's title is the reporter's words, not SGLang's "FlashInfer GDN
    backend requires CUDA" (vllm#38916, 20 characters matched without regard to case). None for a full
    match, or when the longest such run occurs as the site writes it."""
    if site.get("how") != "partial":
        return None
    lowered = [t.group(0).lower() for t in _WORD.finditer(text)]
    tokens = [t.group(0) for t in _WORD.finditer(text)]
    best: tuple[int, str, str] | None = None
    for piece in _PLACEHOLDER.split(str(site.get("message") or "")):
        plain = [w.group(0) for w in _WORD.finditer(piece)]
        for i in range(len(plain) - 1):
            for j in range(len(plain), i + 1, -1):
                if best is not None and j - i <= best[0]:
                    break
                at = _find_run(lowered, [w.lower() for w in plain[i:j]])
                if at is not None:
                    best = (j - i, " ".join(tokens[at : at + j - i]), " ".join(plain[i:j]))
                    break
    if best is None or _find_run(tokens, best[2].split()) is not None or best[1] == best[2]:
        return None
    return best[1], best[2]


def _same_sentence(first: re.Match[str], second: re.Match[str]) -> bool:
    """Two words of one string with no full stop, colon, semicolon or line break between them."""
    return not re.search(r"[.:;!?\n]", first.string[first.end() : second.start()])


def _find_run(tokens: list[str], run: list[str]) -> int | None:
    n = len(run)
    for k in range(len(tokens) - n + 1):
        if tokens[k : k + n] == run:
            return k
    return None


def render_weak(section: Mapping[str, Any]) -> list[str]:
    """The lines that open ``why``'s text output when its first site is weak or there is none: what is
    known instead (who printed the text), before the candidates."""
    lines: list[str] = []
    origin = section.get("origin")
    # who printed the text first: for another program's text it is the answer (it stood under the reasons,
    # which end by saying the same: bench/first_screens_log_why.py)
    if origin:
        lines.append(
            f"the text comes from {origin['origin']} (its {origin['basis']}: {origin['evidence']!r})"
        )
    if section.get("confidence") == "weak":
        lines.append("no site of SGLang or vLLM matches this text well: " + "; ".join(section["reasons"]))
    if section.get("confidence") == "weak":
        lines.append("candidates only (matched on words; not where it failed):")
    return lines
