"""Memory rules (MM): will the launch fit in GPU memory? Emitted by ``argtrace.layers.memory``."""

from __future__ import annotations

import json

from argtrace.rules import Example, Rule

_LLAMA_8B = json.dumps(
    {
        "architectures": ["LlamaForCausalLM"],
        "torch_dtype": "bfloat16",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
        "max_position_embeddings": 131072,
        "tie_word_embeddings": False,
    }
)
_DENSE_40B = json.dumps(
    {
        "architectures": ["LlamaForCausalLM"],
        "torch_dtype": "bfloat16",
        "hidden_size": 8192,
        "intermediate_size": 28672,
        "num_hidden_layers": 48,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
        "max_position_embeddings": 131072,
        "tie_word_embeddings": False,
    }
)
_QWEN35_9B_TEXT = json.dumps(
    {
        "architectures": ["Qwen3_5ForCausalLM"],
        "torch_dtype": "bfloat16",
        "hidden_size": 4096,
        "intermediate_size": 12288,
        "num_hidden_layers": 32,
        "full_attention_interval": 4,
        "num_attention_heads": 16,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "attn_output_gate": True,
        "vocab_size": 248320,
        "max_position_embeddings": 262144,
        "linear_conv_kernel_dim": 4,
        "linear_key_head_dim": 128,
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 32,
        "linear_value_head_dim": 128,
        "mamba_ssm_dtype": "float32",
        "mtp_num_hidden_layers": 1,
        "tie_word_embeddings": False,
    }
)


def _mem(config: str, gpu: str | None, *flags: str, extra: dict[str, str] | None = None) -> Example:
    argv = ["mem", "--model-config", "config.json"]
    if gpu:
        argv += ["--gpu", gpu]
    if extra and "server.log" in extra:
        argv += ["--from-log", "server.log"]
    argv += ["--", *flags]
    return Example(files={"config.json": config, **(extra or {})}, argv=tuple(argv))


MM001 = Rule(
    code="MM001",
    layer="memory",
    severity="error",
    title="The launch runs out of GPU memory",
    rationale=(
        "The framework sizes its pools from the memory left after the weights and from mem_fraction_static; "
        "a launch that does not fit fails ten minutes in (loading weights, allocating the KV or Mamba cache, "
        "loading the draft model, capturing CUDA graphs) or later under load. The message names the stage, "
        "following the framework version's own sizing code, and how much is missing per GPU."
    ),
    fix="Apply one of the suggested settings (JSON: memory.suggested), or add GPUs with --tp-size.",
    example=_mem(_DENSE_40B, "rtx-4090", "--tp-size", "1"),
    correct=_mem(_DENSE_40B, "h100x2", "--tp-size", "2"),
)

MM002 = Rule(
    code="MM002",
    layer="memory",
    severity="error",
    title="The model config cannot be sized",
    rationale=(
        "Memory planning needs the layer geometry (hidden size, layers, heads, and for hybrid models the "
        "linear-attention or Mamba state shape). A config that is missing, not JSON, or lacks those fields "
        "gives no answer rather than a wrong one."
    ),
    fix="Point --model-config at the checkpoint's own config.json (multimodal: text_config is read).",
    example=_mem(json.dumps({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096}), "h100"),
    correct=_mem(_LLAMA_8B, "h100"),
)

MM003 = Rule(
    code="MM003",
    layer="memory",
    # about what argtrace could size, not about the launch: a correct launch of a model whose class argtrace
    # does not know (GptOssForCausalLM on the SGLang path, mem32) would otherwise get a warning
    severity="info",
    title="Unknown architecture, sized as a plain decoder",
    rationale=(
        "argtrace counts parameters and cache layout per architecture family. An architecture it does not "
        "know is sized from the standard fields as a dense (or MoE/MLA, when the fields say so) decoder; "
        "special layers (sliding window, cross attention, extra towers) are not counted."
    ),
    fix="Treat the numbers as an estimate and compare them with a startup log (argtrace mem --from-log).",
    example=_mem(_LLAMA_8B.replace("LlamaForCausalLM", "FancyNewForCausalLM"), "h100"),
    correct=_mem(_LLAMA_8B, "h100"),
)

MM004 = Rule(
    code="MM004",
    layer="memory",
    severity="info",
    title="No GPU given; an H100 80GB was assumed",
    rationale="Every number depends on the device's memory and, for SGLang's defaults, on its size tier.",
    fix="Pass --gpu NAME[xCOUNT] (h100, h200, b200, a100-80g, l40s, rtx-pro-6000, rtx-4090, mi300x).",
    example=_mem(_LLAMA_8B, None),
    correct=_mem(_LLAMA_8B, "h100"),
)

MM005 = Rule(
    code="MM005",
    layer="memory",
    severity="warning",
    title="Little memory is left for CUDA graphs and activations",
    rationale=(
        "mem_fraction_static decides what is left outside the weights and caches. CUDA graph memory and "
        "activation peaks are measured at run time; when the estimate barely fits, capture or the first "
        "long prefill can still run out of memory."
    ),
    fix="Lower --mem-fraction-static by 0.02-0.05, or cap --cuda-graph-max-bs / --chunked-prefill-size.",
    example=_mem(_LLAMA_8B, "h100", "--mem-fraction-static", "0.96"),
    correct=_mem(_LLAMA_8B, "h100", "--mem-fraction-static", "0.88"),
)

MM006 = Rule(
    code="MM006",
    layer="memory",
    severity="info",
    title="Fewer requests run at once than asked: the Mamba state cache holds them",
    rationale=(
        "For hybrid (linear attention / Mamba) models SGLang allows at most max_mamba_cache_size / ratio "
        "running requests (ratio 3, or 5 with extra_buffer and the overlap schedule) and lowers "
        "max_running_requests at start-up; in vLLM each running request holds Mamba state blocks of the "
        "shared KV pool, and releases up to 0.19.1 cap their CUDA graph sizes to the blocks. The number of "
        "slots or blocks rests on argtrace's estimate of the memory left after the weights and the profile "
        "run, so this is a note, not a warning: the start-up log's figures decide."
    ),
    fix="Raise --max-mamba-cache-size (it takes memory from the KV cache) or ask for fewer running requests.",
    example=_mem(_QWEN35_9B_TEXT, "h100", "--mem-fraction-static", "0.85", "--max-running-requests", "256"),
    correct=_mem(_QWEN35_9B_TEXT, "h100", "--mem-fraction-static", "0.85", "--max-running-requests", "64"),
)

MM007 = Rule(
    code="MM007",
    layer="memory",
    severity="error",
    title="The parallel layout does not match the GPUs or the model",
    rationale=(
        "tp_size x dp_size x pp_size GPUs are needed; and the attention heads, linear-attention heads and "
        "Mamba groups must split evenly by the tensor-parallel size, or the framework asserts at start-up."
    ),
    fix="Give --gpu NAMExCOUNT with enough GPUs, or pick a --tp-size that divides the model's heads.",
    example=_mem(_LLAMA_8B, "h100x1", "--tp-size", "2"),
    correct=_mem(_LLAMA_8B, "h100x2", "--tp-size", "2"),
)

MM008 = Rule(
    code="MM008",
    layer="memory",
    severity="info",
    title="mem_fraction_static is computed by the framework",
    rationale=(
        "Without --mem-fraction-static, SGLang derives it from the GPU's memory, chunked_prefill_size, "
        "cuda_graph_max_bs, speculative decoding and (for multimodal checkpoints) the vision tower's size. "
        "The value changes with each of them, and with the framework version."
    ),
    fix="Set --mem-fraction-static explicitly when you tune memory by hand.",
    example=_mem(_LLAMA_8B, "h100"),
    correct=_mem(_LLAMA_8B, "h100", "--mem-fraction-static", "0.85"),
)

_LOG_OK = (
    "[2026-05-23 07:40:36] server_args=ServerArgs(model_path='meta-llama/Meta-Llama-3.1-8B-Instruct', "
    "mem_fraction_static=0.841, max_running_requests=128, max_total_tokens=20480, chunked_prefill_size=8192, "
    "page_size=1, tp_size=1, kv_cache_dtype='auto')\n"
    "[2026-05-23 07:40:53] Load weight begin. avail mem=50.69 GB\n"
    "[2026-05-23 07:40:56] Load weight end. elapsed=3.48 s, type=LlamaForCausalLM, avail mem=34.93 GB, "
    "mem usage=15.76 GB.\n"
    "[2026-05-23 07:41:00] KV Cache is allocated. #tokens: 20480, K size: 1.25 GB, V size: 1.25 GB\n"
)

MM009 = Rule(
    code="MM009",
    layer="memory",
    severity="warning",
    title="The startup log disagrees with the prediction",
    rationale=(
        "The sizes SGLang prints (KV Cache / Mamba Cache is allocated) must follow from the per-token and "
        "per-slot bytes and the pool sizes. A mismatch means the config given is not the one served, a "
        "setting differs from what you think (kv_cache_dtype, tp_size, mamba_ssm_dtype), or the framework "
        "version sizes memory differently."
    ),
    fix="Check the config and the server_args line of the log; report a mismatch with the log attached.",
    example=_mem(
        _LLAMA_8B,
        "h100",
        extra={
            "server.log": _LOG_OK.replace(
                "K size: 1.25 GB, V size: 1.25 GB", "K size: 2.50 GB, V size: 2.50 GB"
            )
        },
    ),
    correct=_mem(_LLAMA_8B, "h100", extra={"server.log": _LOG_OK}),
)

MM010 = Rule(
    code="MM010",
    layer="memory",
    severity="warning",
    title="Speculative decoding reserves a large block of Mamba states up front",
    rationale=(
        "For hybrid models with speculative decoding, SGLang 0.5.10.post1 first sets aside "
        "max_running_requests x speculative_num_draft_tokens intermediate Mamba states "
        "(handle_max_mamba_cache), "
        "then sizes the Mamba cache and the KV cache from what is left. --max-mamba-cache-size and "
        "--mamba-full-memory-ratio do not touch this reserve; max_running_requests defaults to 48 with "
        "speculative decoding, which for a 27B hybrid model is about 28 GB."
    ),
    fix="Lower --max-running-requests (or --speculative-num-draft-tokens), or --mamba-ssm-dtype bfloat16.",
    example=_mem(
        _QWEN35_9B_TEXT, "rtx-4090", "--speculative-algorithm", "NEXTN", "--mem-fraction-static", "0.9"
    ),
    correct=_mem(
        _QWEN35_9B_TEXT,
        "h100",
        "--speculative-algorithm",
        "NEXTN",
        "--mem-fraction-static",
        "0.85",
        "--max-running-requests",
        "4",
    ),
)

MM011 = Rule(
    code="MM011",
    layer="memory",
    severity="warning",
    title="max_num_seqs is above the Mamba cache blocks: vLLM stops before capturing CUDA graphs",
    rationale=(
        "vLLM 0.20.2 and later (config/compilation.py resolve_cudagraph_mode_and_sizes) raise "
        "'max_num_seqs (N) exceeds available Mamba cache blocks (B)' after sizing the KV cache of a hybrid "
        "model when full CUDA graphs are on and max_num_seqs is above the pool's block count: each decode "
        "sequence of a graph needs one Mamba block. The default max_num_seqs (1024 on large GPUs, 256 "
        "otherwise) is above it whenever a long max_model_len leaves a small pool. The block count is "
        "argtrace's estimate of the pool, so this is a warning that says what it rests on, not an error."
    ),
    fix=(
        "Lower --max-num-seqs below the block count, shorten --max-model-len, or raise "
        "--gpu-memory-utilization."
    ),
    example=_mem(_QWEN35_9B_TEXT, "h100", "vllm", "serve", "Qwen/Qwen3.5-9B", "--max-num-seqs", "4096"),
    correct=_mem(_QWEN35_9B_TEXT, "h100", "vllm", "serve", "Qwen/Qwen3.5-9B", "--max-num-seqs", "256"),
)

MM012 = Rule(
    code="MM012",
    layer="memory",
    severity="info",
    title="The checkpoint's quantization is not one argtrace counts: the weights are an upper bound",
    rationale=(
        "argtrace counts the bytes of the weight formats it knows (fp8 blocks, AWQ/GPTQ and AutoRound "
        "groups, NVFP4, MXFP4, compressed-tensors, bitsandbytes). For another quantization_config "
        "quant_method the "
        "weights are counted at the model's dtype (16 bits), which is more than the checkpoint holds: every "
        "figure after them (KV cache, verdict) rests on that assumption, so an out-of-memory verdict is a "
        "warning that says so, never an error. Safetensors headers beside config.json give the exact bytes."
    ),
    fix=(
        "Put the checkpoint's *.safetensors (or model.safetensors.index.json) beside config.json, or compare "
        "with the start-up log (argtrace mem --from-log)."
    ),
    example=_mem(
        _LLAMA_8B[:-1] + ', "quantization_config": {"quant_method": "hqq", "nbits": 4}}', "rtx-4090"
    ),
    correct=_mem(_LLAMA_8B, "rtx-4090"),
)

_TWO_SERVERS = (
    "#!/bin/bash\n"
    "vllm serve Qwen/Qwen2.5-0.5B-Instruct --port 8000 --gpu-memory-utilization {first} &\n"
    "vllm serve Qwen/Qwen2.5-0.5B-Instruct --port 8001 --gpu-memory-utilization {second}\n"
)

MM013 = Rule(
    code="MM013",
    layer="memory",
    severity="error",
    title="Several vLLM servers on one GPU ask for more of it than it has, or than their release gives",
    rationale=(
        "--gpu-memory-utilization is a fraction of the whole device, not of what is free: a server started "
        "while others of the same launch run on its GPU meets the memory they hold. vLLM 0.9.1 and later "
        "(v1/worker/utils.py request_memory) refuse to start when the free memory is below the request, so "
        "fractions that add up to more than 1 stop the last server; vLLM 0.8.0-0.9.0's V1 worker "
        "(v1/worker/gpu_worker.py determine_available_memory) counts the memory in use on the whole "
        "device as its own and takes it from its budget, so a later server that asks for no more than the "
        "others hold finds no memory for its KV cache. An error only when the release that runs is named "
        "and refuses the start; otherwise a note naming the releases where it fails."
    ),
    fix="Give the servers fractions that add up to at most 1, or put them on different GPUs.",
    example=Example(
        files={"launch.sh": _TWO_SERVERS.format(first="0.6", second="0.6")},
        argv=("check", "--framework-version", "0.9.2", "launch.sh"),
    ),
    correct=Example(
        files={"launch.sh": _TWO_SERVERS.format(first="0.45", second="0.5")},
        argv=("check", "--framework-version", "0.9.2", "launch.sh"),
    ),
)

MM014 = Rule(
    code="MM014",
    layer="memory",
    severity="info",
    title="A fixed --hicache-size is pinned once per rank: what one node pins in all",
    rationale=(
        "SGLang's --hicache-size N sizes the host KV pool of each rank: every scheduler process (one per "
        "GPU) builds its own host KV cache of N GB (SGLang 0.5.23 mem_cache/pool_host/base.py:221-224). "
        "A TP 4 server with --hicache-size 150 pins 600 GB of host memory on its node, where the flag reads "
        "like 150 GB for the server (sglang PR#29263: four ranks each pinned 150 GB and overcommitted the "
        "node). How much host memory the node has is not known to argtrace, so this is a note with the "
        "total. On a hybrid (Mamba) model SGLang 0.5.10.post1-0.5.16 give the Mamba host pool the same "
        "unscaled size (MambaPoolHost(..., server_args.hicache_size), read from the wheels by scripts/"
        "gen_sglang_hicache_mamba_host.py), so each rank pins twice the flag's GB (sglang#29034): a warning "
        "on those releases, whatever the ranks."
    ),
    fix="Size --hicache-size as the node's host memory for HiCache divided by the ranks on the node (and by "
    "two on a hybrid model before sglang 0.5.17), or use --hicache-ratio.",
    example=Example(
        files={
            "launch.sh": "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 4 "
            "--enable-hierarchical-cache --hicache-size 150\n"
        },
        argv=("check", "--no-resolve", "--framework-version", "0.5.23", "launch.sh"),
    ),
    correct=Example(
        files={
            "launch.sh": "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 4 "
            "--enable-hierarchical-cache --hicache-ratio 2\n"
        },
        argv=("check", "--no-resolve", "--framework-version", "0.5.23", "launch.sh"),
    ),
)

MM015 = Rule(
    code="MM015",
    layer="memory",
    severity="warning",
    title="`docker run` leaves /dev/shm at 64 MiB for a start whose GPUs talk through NCCL",
    rationale=(
        "Docker gives a container a 64 MiB /dev/shm unless `docker run` says otherwise (`--shm-size`, "
        '`--ipc host`, a mount at /dev/shm; `docker run --help`: "--shm-size bytes  Size of /dev/shm"). '
        "The ranks of a multi-GPU start (tensor, pipeline or data parallel on one node) exchange data "
        "through NCCL, which keeps its shared-memory segments in /dev/shm: once they outgrow 64 MiB NCCL "
        "fails to create them and the start stops at its first collective (NCCL's troubleshooting guide: "
        "Docker's default is too small; radixark/miles_diffusion PR#13: the lmsysorg/sglang:v0.5.14-cu130 "
        "image's NCCL 2.28.9 exhausts it). SGLang's and vLLM's Docker instructions pass `--shm-size` or "
        "`--ipc=host` for this. One GPU needs no NCCL and gets no finding; how much a given NCCL needs "
        "depends on its version and the topology, hence a warning."
    ),
    fix="Add `--shm-size 32g` (SGLang's Docker instructions) or `--ipc host` to the `docker run`.",
    example=Example(
        files={
            "run.sh": "docker run --gpus all lmsysorg/sglang:v0.5.14 python3 -m sglang.launch_server "
            "--model-path Qwen/Qwen3-8B --tp-size 2\n"
        },
        argv=("check", "--no-resolve", "run.sh"),
    ),
    correct=Example(
        files={
            "run.sh": "docker run --gpus all --shm-size 32g lmsysorg/sglang:v0.5.14 python3 -m "
            "sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2\n"
        },
        argv=("check", "--no-resolve", "run.sh"),
    ),
)

MM016 = Rule(
    code="MM016",
    layer="memory",
    severity="error",
    title="SGLang loads an online-quantized checkpoint at 16 bits before quantizing it: the load fails",
    rationale=(
        "`--quantization fp8` on a checkpoint whose config.json has no quantization_config quantizes the "
        "weights online. SGLang builds every linear weight at the checkpoint's dtype when the checkpoint is "
        "not fp8-serialized (0.5.10.post1 srt/layers/quantization/fp8.py:372, 0.5.23 :654-656), loads all "
        "of them, and only then runs process_weights_after_loading module by module (0.5.10.post1 "
        "model_loader/loader.py:697-709, 0.5.23 :1063 and :1080-1089). One GPU so holds its whole shard at "
        "16 bits once, about twice what it keeps: a shard that fits at 8 bits but not at 16 fails with CUDA "
        "out of memory while loading, before any memory setting is read (sglang#2895: DeepSeek-V3 in bf16 "
        "on 8x H200). `--load-format layered` builds one module at a time and is not checked. The memory "
        "layer otherwise sizes such a launch at 8 bits (the pools and the KV cache are right); this finding "
        "is the load itself."
    ),
    fix="Load a checkpoint quantized to fp8 offline, or shard the 16-bit weights over more GPUs (--tp-size).",
    example=_mem(_DENSE_40B, "h100", "--quantization", "fp8", "--tp-size", "1"),
    correct=_mem(_DENSE_40B, "h100x2", "--quantization", "fp8", "--tp-size", "2"),
)
