"""Resolution-layer rules (RSxxx): what the framework's own post-parse code did to the configuration.

Every example needs a resolver environment (``argtrace resolver add ...``); the rule test skips it where the
machine has none, CI builds them.
"""

from __future__ import annotations

from argtrace.rules import Example, Rule

# A Qwen3.5/3.6-style hybrid (Gated DeltaNet + full attention) config: the public model's facts, trimmed to
# what resolution reads (see tests/data/models/README.md for the full file and its source).
HYBRID_CONFIG = """{
 "architectures": ["Qwen3_5ForConditionalGeneration"],
 "model_type": "qwen3_5",
 "tie_word_embeddings": false,
 "text_config": {
  "model_type": "qwen3_5_text", "hidden_size": 5120, "intermediate_size": 17408, "num_hidden_layers": 64,
  "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256, "full_attention_interval": 4,
  "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16,
  "linear_num_value_heads": 48, "linear_value_head_dim": 128, "mamba_ssm_dtype": "float32",
  "max_position_embeddings": 262144, "mtp_num_hidden_layers": 1, "vocab_size": 248320, "dtype": "bfloat16"
 },
 "vision_config": {"depth": 27, "hidden_size": 1152, "num_heads": 16, "out_hidden_size": 5120}
}
"""
SGLANG_10 = "resolver:sglang==0.5.10.post1"
SEED_CMD = (
    "python3 -m sglang.launch_server --model-path /models/qwen --speculative-algorithm NEXTN "
    "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
)


def _seed_example(command: str) -> Example:
    """``check -c COMMAND`` on SGLang 0.5.10.post1 with a Qwen3.5-style hybrid config and an assumed H100."""
    return Example(
        argv=[
            "check",
            "--model-config",
            "qwen",
            "--gpu",
            "h100",
            "--framework-version",
            "0.5.10.post1",
            "-c",
            command,
        ],
        files={"qwen/config.json": HYBRID_CONFIG},
        needs=[SGLANG_10],
    )


RS001 = Rule(
    code="RS001",
    layer="resolution",
    severity="error",
    title="the framework's own resolution refuses the configuration",
    rationale=(
        "After argparse accepted every flag, the framework's post-parse code raised (ValueError, "
        "AssertionError, a pydantic ValidationError). The server would exit at start-up, often after the "
        "launcher already printed its banner. One finding per setting the failing condition read, each with "
        "its value and where that value came from: the one to change is among them."
    ),
    fix="change one of the settings the failing condition reads (the message names the framework's advice)",
    example=_seed_example(SEED_CMD),
    correct=_seed_example(SEED_CMD + " --mamba-scheduler-strategy extra_buffer"),
)

RS002 = Rule(
    code="RS002",
    layer="resolution",
    severity="warning",
    title="a value the user set was changed by the framework's resolution",
    rationale=(
        "The flag arrived (the parser saw it) but the framework's post-parse code replaced it, so the server "
        "runs with a value nobody wrote. Typical: max_running_requests forced for speculative decoding, "
        "overlap scheduling disabled for a model."
    ),
    fix="accept the resolved value, or change the setting that made the framework override it",
    example=_seed_example(SEED_CMD + " --mamba-scheduler-strategy extra_buffer --max-running-requests 64"),
    correct=_seed_example(SEED_CMD.replace("NEXTN", "EAGLE") + " --mamba-scheduler-strategy extra_buffer"),
)

RS003 = Rule(
    code="RS003",
    layer="resolution",
    severity="warning",
    title="the resolver crashed, hung or printed garbage",
    rationale=(
        "The framework's resolution could not be run to a verdict (an import failed, it exceeded the time "
        "limit, or it produced no result). The effective values stay the parser's; the tail of its output is "
        "attached as evidence."
    ),
    fix="rebuild the resolver environment (argtrace resolver remove/add), or pass --python for the real one",
    example=Example(
        argv=["check", "--python", "/bin/false", "--model-config", "qwen", "-c", SEED_CMD],
        files={"qwen/config.json": HYBRID_CONFIG},
    ),
    exceptions="A model whose code the framework cannot load offline may crash resolution; reported too.",
)

RS004 = Rule(
    code="RS004",
    layer="resolution",
    severity="info",
    title="resolution skipped",
    rationale=(
        "Without a resolver environment (or a model config, or with argv words that cannot be known "
        "statically) argtrace does not imitate the framework's post-parse rules: effective values are "
        "the parser's."
    ),
    fix="argtrace resolver add FRAMEWORK==VERSION, and pass --model-config DIR for model-dependent steps",
    example=Example(argv=["check", "--framework-version", "0.5.10.post1", "-c", SEED_CMD]),
    correct=Example(argv=["check", "--no-resolve", "--framework-version", "0.5.10.post1", "-c", SEED_CMD]),
)

RS005 = Rule(
    code="RS005",
    layer="resolution",
    severity="error",
    title="fewer GPUs than the parallel sizes need",
    # argtrace's own count of the given parallel sizes against the given --gpu: no release decides it
    basis="static",
    rationale=(
        "tp x pp x the data-parallel replicas GPUs are needed on a node (SGLang's --dp-size adds none with "
        "--enable-dp-attention; --nnodes divides); the --gpu profile gives fewer, so the "
        "server fails to start (or, with CUDA_VISIBLE_DEVICES narrower than that, cannot place its ranks)."
    ),
    fix="lower --tp-size / --dp-size / --pp-size, or run on a node with enough GPUs",
    example=Example(
        argv=[
            "check",
            "--gpu",
            "h100x2",
            "--model-config",
            "qwen",
            "-c",
            "python3 -m sglang.launch_server --model-path /models/qwen --tp-size 4",
        ],
        files={"qwen/config.json": HYBRID_CONFIG},
    ),
    correct=Example(
        argv=[
            "check",
            "--gpu",
            "h100x4",
            "--model-config",
            "qwen",
            "--no-resolve",
            "-c",
            "python3 -m sglang.launch_server --model-path /models/qwen --tp-size 4",
        ],
        files={"qwen/config.json": HYBRID_CONFIG},
    ),
)

RS006 = Rule(
    code="RS006",
    layer="resolution",
    severity="info",
    title="the framework set an environment variable while resolving",
    rationale=(
        "Some releases write environment variables during resolution (SGLang 0.5.10 sets "
        "SGLANG_ENABLE_SPEC_V2 for some models), and the launcher's start-up step _set_envs_and_config "
        "replaces NCCL_CUMEM_ENABLE when --enable-symm-mem is on. A variable the script also sets is then "
        "decided twice; child processes see the framework's value."
    ),
    fix="none needed; know that the framework, not the script, decides this variable",
    example=_seed_example(SEED_CMD + " --mamba-scheduler-strategy extra_buffer"),
)


# ----------------------------------------------------------------------------- start-up settings that bite
# RS020-RS023 (layers/startup_rules.py): each follows one piece of the frameworks' start-up code; they read
# the effective settings, the server's environment and config.json, so they hold without a resolver too.

# Llama-3.1-8B's config.json, trimmed to what sizing reads (a model with no Mamba layers).
LLAMA_CONFIG = """{
 "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
 "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
 "max_position_embeddings": 131072, "vocab_size": 128256, "torch_dtype": "bfloat16",
 "tie_word_embeddings": false, "rms_norm_eps": 1e-05, "rope_theta": 500000.0
}
"""


def _static(command: str, version: str, files: dict[str, str], *extra: str) -> Example:
    return Example(
        argv=["check", "--no-resolve", *extra, "--framework-version", version, "-c", command],
        files=files,
    )


RS020 = Rule(
    code="RS020",
    layer="resolution",
    severity="warning",
    title="VLLM_PORT is vLLM's internal port, not the API port",
    basis="static",
    rationale=(
        "vLLM reads VLLM_PORT as the first of its internal ports (vllm/envs.py get_vllm_port; "
        "vllm/utils/network_utils.py scans upward from it) while the API server listens on --port "
        "(default 8000). Set without --port, the server is not where the script expects; equal to the "
        "API port, the internal ports move into the next ones; a URI (Kubernetes sets "
        "VLLM_PORT=tcp://IP:PORT for a Service named `vllm`) makes vLLM raise at start-up. Wherever the "
        "variable comes from: the script, an env file, a Dockerfile ENV, a pod spec."
    ),
    fix="pass --port for the API port; leave VLLM_PORT unset unless the internal ports must be fixed, and "
    "then give it a range apart from the API ports",
    example=_static("VLLM_PORT=9000 vllm serve /m", "0.33.0", {}),
    correct=_static("VLLM_PORT=29600 vllm serve /m --port 8000", "0.33.0", {}),
    exceptions="A VLLM_PORT that is not an integer nor a URI is PR009's (wrong type). With --gpu not given, "
    "the URI case is capped to a warning like every error of an assumed node. VLLM_PORT equal to the API "
    "port is info: that server starts (the internal ports move up), and only another server at the next "
    "ports, which one launch does not show, would collide.",
)

RS021 = Rule(
    code="RS021",
    layer="resolution",
    severity="warning",
    title="The KV pool cannot hold one request of the context length",
    basis="static",
    rationale=(
        "SGLang caps every request at min(context_len - 1, KV pool tokens - 1) (srt/managers/tp_worker.py, "
        "max_req_len; max_req_input_len is 5 below) and rejects longer inputs with 'Input length (N "
        "tokens) exceeds the maximum allowed length (M tokens)' (srt/managers/utils.py) unless "
        "--allow-auto-truncate cuts them: the advertised context length is not servable. The pool size is "
        "the memory layer's; the context length is the framework's ModelConfig when the resolver ran."
    ),
    fix="lower --context-length to what the pool holds, or give the pool more memory (--mem-fraction-static, "
    "more GPUs with --tp-size, a quantized KV cache with --kv-cache-dtype fp8_e4m3)",
    example=_static(
        "python3 -m sglang.launch_server --model-path /m --context-length 131072",
        "0.5.10.post1",
        {"m/config.json": LLAMA_CONFIG},
        "--model-config",
        "m",
        "--gpu",
        "rtx-4090",
    ),
    correct=_static(
        "python3 -m sglang.launch_server --model-path /m --context-length 8192",
        "0.5.10.post1",
        {"m/config.json": LLAMA_CONFIG},
        "--model-config",
        "m",
        "--gpu",
        "rtx-4090",
    ),
    exceptions="With --allow-auto-truncate the finding is info (inputs are cut, not rejected). vLLM refuses "
    "such a launch at start-up; that check is the memory layer's (MM001).",
)

RS022 = Rule(
    code="RS022",
    layer="resolution",
    severity="info",
    title="A Mamba caching strategy on a model without Mamba layers",
    basis="static",
    rationale=(
        "SGLang reads --mamba-scheduler-strategy / --mamba-radix-cache-strategy only for hybrid "
        "architectures (server_args.py _handle_mamba_radix_cache) and when sizing the Mamba pool. On a plain "
        "transformer the flag does nothing: usually a launch script copied from a hybrid model's."
    ),
    fix="drop the flag for this model",
    example=_static(
        "python3 -m sglang.launch_server --model-path /m --mamba-scheduler-strategy extra_buffer",
        "0.5.10.post1",
        {"m/config.json": LLAMA_CONFIG},
        "--model-config",
        "m",
    ),
    correct=_static(
        "python3 -m sglang.launch_server --model-path /m --mamba-scheduler-strategy extra_buffer",
        "0.5.10.post1",
        {"m/config.json": HYBRID_CONFIG},
        "--model-config",
        "m",
    ),
)

RS023 = Rule(
    code="RS023",
    layer="resolution",
    severity="info",
    title="The model's generation_config.json sets the default sampling parameters",
    basis="static",
    rationale=(
        "vLLM's --generation-config defaults to auto: the sampling fields of the model's "
        "generation_config.json (temperature, top_p, top_k, min_p, penalties, max_new_tokens) become the "
        "defaults of every request that does not set them (ModelConfig.get_diff_sampling_param), so two "
        "servers of the same release sample differently by checkpoint. With the resolver, the values are "
        "vLLM's own answer for the --model-config directory."
    ),
    fix="nothing if intended; --generation-config vllm for vLLM's neutral defaults, or "
    "--override-generation-config '{...}' to fix some of them",
    example=_static(
        "vllm serve /m",
        "0.33.0",
        {"m/config.json": LLAMA_CONFIG, "m/generation_config.json": '{"temperature": 0.6, "top_p": 0.9}'},
        "--model-config",
        "m",
    ),
    correct=_static(
        "vllm serve /m --generation-config vllm",
        "0.33.0",
        {"m/config.json": LLAMA_CONFIG, "m/generation_config.json": '{"temperature": 0.6, "top_p": 0.9}'},
        "--model-config",
        "m",
    ),
)

# ------------------------------------------------------------- the model's config.json, without a resolver
# RS024-RS025 (layers/model_rules.py): one raise of vLLM's model-config code each, applied from the bundled
# raise-site index of the release when no resolver ran that code on the config.json.

# Llama-2-7B's config.json, trimmed (32 attention heads, 4096 positions, no RoPE scaling).
LLAMA2_CONFIG = """{
 "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
 "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
 "max_position_embeddings": 4096, "vocab_size": 32000, "torch_dtype": "float16", "rms_norm_eps": 1e-05
}
"""

RS024 = Rule(
    code="RS024",
    layer="resolution",
    severity="error",
    title="The tensor-parallel size does not divide the model's attention heads",
    basis="static",
    rationale=(
        "vLLM's ModelConfig.verify_with_parallel_config raises 'Total number of attention heads (N) must be "
        "divisible by tensor parallel size (T).' at start-up (every bundled release, 0.6.6.post1-0.33.0). "
        "Without a resolver environment the rule applies that raise from the release's raise-site index to "
        "the num_attention_heads of the model's config.json (text_config for multimodal checkpoints); with "
        "one, vLLM's own create_engine_config reads the config.json and its refusal is RS001. SGLang has no "
        "start-up check: the attention class of each model file asserts total_num_heads % tp_size == 0, then "
        "that the KV heads split evenly (total_num_kv_heads % tp_size) or are replicated (tp_size % "
        "total_num_kv_heads), while the scheduler builds the model (0.5.23 srt/models/llama.py:183-193); the "
        "rule applies those asserts, read per release and architecture by scripts/gen_sglang_head_asserts.py."
    ),
    fix="pick a --tensor-parallel-size that divides the heads; spread the other GPUs with "
    "--pipeline-parallel-size",
    example=_static(
        "vllm serve /m --tensor-parallel-size 3",
        "0.33.0",
        {"m/config.json": LLAMA2_CONFIG},
        "--model-config",
        "m",
    ),
    correct=_static(
        "vllm serve /m --tensor-parallel-size 4",
        "0.33.0",
        {"m/config.json": LLAMA2_CONFIG},
        "--model-config",
        "m",
    ),
    exceptions="Said only when config.json is readable (--model-config, a local --model directory, the "
    "Hugging Face cache) and the release's index has the raise, or, with no release known, every bundled "
    "release's. A config whose heads sit in another sub-config than text_config gets nothing. For SGLang: "
    "only on a release whose wheel was read (a warning on an assumed one), an architecture whose model file "
    "builds one attention class with the asserts, no --model-impl or --json-model-override-args, and, where "
    "the class divides by the attention TP size, no DP attention or attention context parallelism.",
)

RS025 = Rule(
    code="RS025",
    layer="resolution",
    severity="error",
    title="--max-model-len exceeds the model's max_position_embeddings",
    basis="static",
    rationale=(
        "vLLM's _get_and_verify_max_len raises 'User-specified max_model_len (M) is greater than the derived "
        "max_model_len (max_position_embeddings=N ...)' unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. Without a "
        "resolver environment the rule applies that raise from the release's raise-site index, only where "
        "the length vLLM derives is max_position_embeddings in every release (no other length key, no "
        "model_max_length, no RoPE scaling factor); with one, vLLM's own code decides (RS001)."
    ),
    fix="lower --max-model-len to max_position_embeddings, or use a checkpoint (or RoPE scaling) made for "
    "the longer context",
    example=_static(
        "vllm serve /m --max-model-len 8192",
        "0.33.0",
        {"m/config.json": LLAMA2_CONFIG},
        "--model-config",
        "m",
    ),
    correct=_static(
        "vllm serve /m --max-model-len 4096",
        "0.33.0",
        {"m/config.json": LLAMA2_CONFIG},
        "--model-config",
        "m",
    ),
    exceptions="With VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 in the server's environment vLLM only warns: nothing is "
    "said. A RoPE scaling factor, another length key or model_max_length in config.json: nothing is said "
    "(pass a resolver environment for vLLM's own answer).",
)


# Qwen2.5-0.5B-Instruct's config.json, trimmed (a plain Qwen2 target: no EAGLE3 draft inside).
QWEN2_CONFIG = """{
 "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864,
 "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
 "max_position_embeddings": 32768, "vocab_size": 151936, "torch_dtype": "bfloat16",
 "tie_word_embeddings": true, "rms_norm_eps": 1e-06
}
"""

RS026 = Rule(
    code="RS026",
    layer="resolution",
    severity="error",
    title="EAGLE3 without a draft model loads the target as its own draft",
    rationale=(
        "With --speculative-algorithm EAGLE3 and no --speculative-draft-model-path (and an architecture that "
        "does not bundle its draft), SGLang's draft worker builds the draft from the target's checkpoint, "
        "loads the weights a second time and then calls set_embed on it (srt/speculative/eagle_worker*.py); "
        "a plain target such as Qwen2ForCausalLM has no such method and the server dies "
        "(https://github.com/sgl-project/sglang/issues/36528). The resolver asks the release's own model "
        "registry for the draft's class and whether it defines the method."
    ),
    fix="pass --speculative-draft-model-path with an EAGLE3 draft trained for the model",
    example=Example(
        argv=[
            "check",
            "--model-config",
            "m",
            "--gpu",
            "h100",
            "--framework-version",
            "0.5.10.post1",
            "-c",
            "python -m sglang.launch_server --model-path /m --speculative-algorithm EAGLE3",
        ],
        files={"m/config.json": QWEN2_CONFIG},
        needs=(SGLANG_10,),
    ),
    correct=Example(
        argv=[
            "check",
            "--model-config",
            "m",
            "--gpu",
            "h100",
            "--framework-version",
            "0.5.10.post1",
            "-c",
            "python -m sglang.launch_server --model-path /m",
        ],
        files={"m/config.json": QWEN2_CONFIG},
        needs=(SGLANG_10,),
    ),
    exceptions="Needs a resolver environment of the release and the model's config.json; runs only for "
    "EAGLE3 launches without a draft (importing every model module costs 10-20 s). A class that defines the "
    "method gives an info: it may still not be an EAGLE3 draft.",
)

RS086 = Rule(
    code="RS086",
    layer="resolution",
    severity="warning",
    title="extra_buffer_lazy with speculative decoding on a release that refuses the pair",
    basis="framework-code",
    rationale=(
        "SGLang 0.5.13.post1-0.5.16 assert that the extra_buffer_lazy Mamba strategy is not used with "
        'speculative decoding ("extra_buffer_lazy unsupported with spec.", _validate_mamba_extra_buffer in '
        "srt/server_args.py), inside `if speculative_num_draft_tokens is not None`, and the check runs "
        "before handle_speculative_decoding fills the speculative defaults. With --speculative-num-draft-"
        "tokens written the start stops at the assertion (an error); without it the server starts a pair "
        "its release does not support (sglang#34786, 0.5.14: TypeError at the first verify). The assertion, "
        "its guard and the call order are read from the wheels (scripts/gen_sglang_lazy_spec.py); 0.5.17 "
        "and later support the pair for EAGLE and NEXTN drafts."
    ),
    fix="use the extra_buffer strategy with speculative decoding, or sglang 0.5.17 or later",
    example=Example(
        argv=[
            "check",
            "--no-resolve",
            "--framework-version",
            "0.5.14",
            "-c",
            "python -m sglang.launch_server --model-path Qwen/Qwen3.6-27B --speculative-algorithm NEXTN "
            "--mamba-scheduler-strategy extra_buffer_lazy",
        ]
    ),
    correct=Example(
        argv=[
            "check",
            "--no-resolve",
            "--framework-version",
            "0.5.14",
            "-c",
            "python -m sglang.launch_server --model-path Qwen/Qwen3.6-27B --speculative-algorithm NEXTN "
            "--mamba-scheduler-strategy extra_buffer",
        ]
    ),
    exceptions="An error when the launch writes --speculative-num-draft-tokens (the assertion stops the "
    "start). Not with --disable-radix-cache. A note when nothing names the release and only other releases "
    "read refuse the pair. The model is taken as hybrid: only hybrid architectures read the strategy.",
)

# a checkpoint's index with (and without) the MTP head's tensors, and a vLLM launch of it with an MTP draft
# (the example's argv is a template: its braces doubled)
MTP_COMMAND = 'vllm serve ckpt --speculative-config \'{{"method": "mtp", "num_speculative_tokens": 1}}\''
_INDEX = '{{"metadata": {{"total_size": 1}}, "weight_map": {{"model.norm.weight": "a"{more}}}}}'
MTP_INDEX_WITHOUT = _INDEX.format(more="")
MTP_INDEX_WITH = _INDEX.format(more=', "mtp.fc.weight": "a"')

RS087 = Rule(
    code="RS087",
    layer="resolution",
    severity="error",
    title="A vLLM MTP draft served from a checkpoint without the draft's tensors",
    basis="framework-code",
    rationale=(
        "With --speculative-config method mtp (or the family's own name) vLLM builds the MTP draft from the "
        "target's checkpoint: SpeculativeConfig.hf_config_override rewrites the model type (or, for GLM, the "
        "architecture) to the draft's (qwen3_next -> qwen3_next_mtp, qwen3_5 -> qwen3_5_mtp, deepseek_v3 -> "
        "deepseek_mtp, Glm4MoeForCausalLM -> glm4_moe_mtp, ...). A Qwen draft keeps only the tensors named "
        "with its prefix (is_unused_checkpoint_weight: mtp.); a DeepSeek or GLM draft loads the layers "
        "numbered after the target's (model.layers.{num_hidden_layers + i}. for i below "
        "num_nextn_predict_layers, get_spec_layer_idx_from_weight_name). An export that dropped them loads "
        'nothing: for an unquantized checkpoint the loader raises "Following weights were not initialized '
        'from checkpoint" (ms-swift#6221, #9802, GLM-OCR#109), and DeepSeek\'s draft raises "MTP speculative '
        'decoding layer N weights missing from checkpoint" for a quantized one too (vllm#35548). The '
        "mapping, the prefixes and the layer fields are read from the wheels "
        "(scripts/gen_vllm_mtp_weights.py); the tensor names from the checkpoint's "
        "model.safetensors.index.json or safetensors headers."
    ),
    fix="copy the base checkpoint's MTP tensors (mtp.*, or the layers after the last one) into the export, "
    "or serve without --speculative-config",
    example=Example(
        argv=["check", "--no-resolve", "--framework-version", "0.33.0", "-c", MTP_COMMAND],
        files={"ckpt/config.json": HYBRID_CONFIG, "ckpt/model.safetensors.index.json": MTP_INDEX_WITHOUT},
    ),
    correct=Example(
        argv=["check", "--no-resolve", "--framework-version", "0.33.0", "-c", MTP_COMMAND],
        files={"ckpt/config.json": HYBRID_CONFIG, "ckpt/model.safetensors.index.json": MTP_INDEX_WITH},
    ),
    exceptions="Only with the checkpoint on this machine (its config.json and its index or safetensors "
    "headers), a model type or architecture whose draft the release maps to a module it reads (not "
    "DeepSeek-V3.2's, GLM-5's or V4's), the method mtp or the draft's own name, and an unquantized "
    "checkpoint unless the draft checks its own layers (DeepSeek-V3's: the loader's strict check is off "
    "for a quantized one). A layer-numbered draft needs num_nextn_predict_layers above 0 in config.json "
    "(text_config for GLM-OCR).",
)

# an EAGLE launch that writes the draft counts in part, or a tree with fewer candidates than it keeps
_EAGLE = "python -m sglang.launch_server --model-path org/model --speculative-algorithm EAGLE3 "

RS088 = Rule(
    code="RS088",
    layer="resolution",
    severity="error",
    title="EAGLE/NEXTN draft counts written in part, which the release does not complete",
    basis="framework-code",
    rationale=(
        "SGLang picks --speculative-num-steps, --speculative-eagle-topk and --speculative-num-draft-tokens "
        "itself only when num_steps is None, and then asserts that the other two are None as well: topk or "
        "the draft tokens written without num_steps stop the start at a bare AssertionError (gpustack "
        "PR#3396). num_steps written without topk leaves topk None, and the release's next `speculative_"
        "eagle_topk > 1` comparison raises TypeError (0.5.2 on; sglang PR#22895). The assertion and the "
        "comparison are read from the wheels (scripts/gen_sglang_eagle_tree.py)."
    ),
    fix="write the three counts together, or leave all three to the server",
    example=Example(
        argv=[
            "check",
            "--no-resolve",
            "--framework-version",
            "0.5.14",
            "-c",
            _EAGLE + "--speculative-num-steps 3",
        ]
    ),
    correct=Example(
        argv=[
            "check",
            "--no-resolve",
            "--framework-version",
            "0.5.14",
            "-c",
            _EAGLE + "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
        ]
    ),
    exceptions="EAGLE, EAGLE3 and NEXTN only, and not with --speculative-adaptive. Each case only where the "
    "release has its line (0.5.1.post3 has the assertion, not the comparison). The model is not read: a "
    "model-specific speculative handler of a release could fill the counts.",
)

RS085 = Rule(
    code="RS085",
    layer="resolution",
    severity="error",
    title="An EAGLE draft tree that keeps more tokens than it has candidates",
    basis="framework-code",
    rationale=(
        "With --speculative-eagle-topk above 1 SGLang's draft tree keeps the best --speculative-num-draft-"
        "tokens - 1 of its topk + (num_steps - 1) * topk^2 candidates (select_top_k_tokens keeps topk at the "
        "first step and topk^2 at each later one; organize_draft_results' torch.topk(score_list, "
        'num_draft_token - 1)). More than that fails with "selected index k out of range" when the draft '
        "runs, at start-up while its CUDA graphs are captured (sglang#5160). The topk line is read from the "
        "wheels (scripts/gen_sglang_eagle_tree.py); with topk 1 the server sets the draft tokens itself."
    ),
    fix="lower --speculative-num-draft-tokens, or raise --speculative-eagle-topk or --speculative-num-steps",
    example=Example(
        argv=[
            "check",
            "--no-resolve",
            "--framework-version",
            "0.5.14",
            "-c",
            _EAGLE + "--speculative-num-steps 2 --speculative-eagle-topk 2 --speculative-num-draft-tokens 16",
        ]
    ),
    correct=Example(
        argv=[
            "check",
            "--no-resolve",
            "--framework-version",
            "0.5.14",
            "-c",
            _EAGLE + "--speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 4",
        ]
    ),
    exceptions="EAGLE, EAGLE3 and NEXTN with the three counts written and topk above 1; not with "
    "--speculative-adaptive.",
)
