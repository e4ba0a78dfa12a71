"""The cross-check corpus: realistic and tricky server argv (the words after the entry point).

Each case is (entrypoint, argv). Expected results are never written here: the real framework parser in a
resolver environment gives them (tests/parser/test_crosscheck.py).
"""

from __future__ import annotations

M = "/models/qwen"

SGLANG: list[tuple[str, list[str]]] = [
    # plain, valid
    ("sglang.launch_server", ["--model-path", M]),
    ("sglang.launch_server", ["--model-path", M, "--port", "30000", "--host", "0.0.0.0"]),
    (
        "sglang.launch_server",
        ["--model-path", M, "--tp-size", "2", "--dp-size", "2", "--enable-dp-attention"],
    ),
    ("sglang.launch_server", ["--model-path", M, "--tp", "4"]),
    ("sglang.launch_server", ["--model-path=" + M, "--port=30001"]),
    ("sglang.launch_server", ["--model-path", M, "--mem-fraction-static", "0.85", "--context-length", "32k"]),
    ("sglang.launch_server", ["--model-path", M, "--context-length", "128Ki"]),
    ("sglang.launch_server", ["--model-path", M, "--context-length", "1.5Ki"]),
    ("sglang.launch_server", ["--model-path", M, "--max-total-tokens", "25.6k"]),
    ("sglang.launch_server", ["--model-path", M, "--served-model-name", "qwen", "--api-key", "sk-test-123"]),
    ("sglang.launch_server", ["--model-path", M, "--trust-remote-code", "--enable-metrics"]),
    ("sglang.launch_server", ["--model-path", M, "--dtype", "bfloat16", "--kv-cache-dtype", "fp8_e4m3"]),
    ("sglang.launch_server", ["--model-path", M, "--quantization", "fp8"]),
    ("sglang.launch_server", ["--model-path", M, "--load-format", "safetensors", "--random-seed", "42"]),
    (
        "sglang.launch_server",
        ["--model-path", M, "--chunked-prefill-size", "8192", "--max-running-requests", "64"],
    ),
    (
        "sglang.launch_server",
        [
            "--model-path",
            M,
            "--speculative-algorithm",
            "EAGLE",
            "--speculative-num-steps",
            "3",
            "--speculative-eagle-topk",
            "1",
            "--speculative-num-draft-tokens",
            "4",
        ],
    ),
    ("sglang.launch_server", ["--model-path", M, "--speculative-algorithm", "NEXTN"]),
    (
        "sglang.launch_server",
        ["--model-path", M, "--reasoning-parser", "qwen3", "--tool-call-parser", "qwen25"],
    ),
    (
        "sglang.launch_server",
        ["--model-path", M, "--json-model-override-args", '{"rope_scaling": {"factor": 4}}'],
    ),
    ("sglang.launch_server", ["--model-path", M, "--lora-paths", "a=/l/a", "b=/l/b"]),
    ("sglang.launch_server", ["--model-path", M, "--lora-paths", '{"lora_name": "x", "lora_path": "/l/x"}']),
    ("sglang.launch_server", ["--model-path", M, "--log-level", "debug", "--disable-radix-cache"]),
    ("sglang.launch_server", ["--model-path", M, "--mamba-scheduler-strategy", "extra_buffer"]),
    ("sglang.launch_server", ["--model-path", M, "--mamba-radix-cache-strategy", "extra_buffer"]),
    (
        "sglang.launch_server",
        ["--model-path", M, "--max-mamba-cache-size", "64", "--mamba-full-memory-ratio", "0.5"],
    ),
    ("sglang.launch_server", ["--model-path", M, "--attention-backend", "triton"]),
    ("sglang.launch_server", ["--model-path", M, "--attention-backend", "fa3"]),
    ("sglang.launch_server", ["--model-path", M, "--cuda-graph-max-bs", "32"]),
    ("sglang.launch_server", ["--model-path", M, "--stream-output"]),
    ("sglang.launch_server", ["--model-path", M, "--enable-piecewise-cuda-graph"]),
    # abbreviations
    ("sglang.launch_server", ["--model-path", M, "--chunked-prefill", "4096"]),
    ("sglang.launch_server", ["--model", M]),
    ("sglang.launch_server", ["--model-p", M, "--mem-frac", "0.7"]),
    ("sglang.launch_server", ["--model-path", M, "--served-model", "q"]),
    ("sglang.launch_server", ["--model-path", M, "--enable-dp", "--tp-size", "2"]),
    ("sglang.launch_server", ["--model-path", M, "--disable-cuda", "--port", "1"]),
    ("sglang.launch_server", ["--model-path", M, "--trust"]),
    ("sglang.launch_server", ["--model-path", M, "--port=3", "--ho=::"]),
    # duplicates
    ("sglang.launch_server", ["--model-path", M, "--port", "30000", "--port", "30001"]),
    ("sglang.launch_server", ["--model-path", "/a", "--model-path", "/b"]),
    ("sglang.launch_server", ["--model-path", M, "--tp-size", "2", "--tp", "4"]),
    ("sglang.launch_server", ["--model-path", M, "--lora-paths", "a=/x", "--lora-paths", "b=/y"]),
    # errors: unknown, choices, types, missing values
    ("sglang.launch_server", ["--model-path", M, "--mem-fraction-statc", "0.8"]),
    ("sglang.launch_server", ["--model-path", M, "--tensor-parallel-size", "2"]),
    ("sglang.launch_server", ["--model-path", M, "--gpu-memory-utilization", "0.9"]),
    ("sglang.launch_server", ["--model_path", M]),
    ("sglang.launch_server", ["-model-path", M]),
    ("sglang.launch_server", ["--model-path", M, "--dtype", "bf16"]),
    ("sglang.launch_server", ["--model-path", M, "--mamba-scheduler-strategy", "extra-buffer"]),
    ("sglang.launch_server", ["--model-path", M, "--port", "30000x"]),
    ("sglang.launch_server", ["--model-path", M, "--mem-fraction-static", "0.8.5"]),
    ("sglang.launch_server", ["--model-path", M, "--context-length", "32K"]),
    ("sglang.launch_server", ["--model-path", M, "--port", "--host", "0.0.0.0"]),
    ("sglang.launch_server", ["--model-path", M, "--port"]),
    ("sglang.launch_server", ["--model-path", M, "--enable-metrics", "true"]),
    ("sglang.launch_server", ["--model-path", M, "--enable-metrics=true"]),
    ("sglang.launch_server", ["--model-path", M, "extra"]),
    ("sglang.launch_server", ["--port", "30000"]),
    ("sglang.launch_server", []),
    ("sglang.launch_server", ["--model-path", M, "--enable", "--port", "1"]),
    ("sglang.launch_server", ["--model-path", M, "--", "--port", "1"]),
    ("sglang.launch_server", ["--model-path", M, "--tp-size", "-1"]),
    ("sglang.launch_server", ["--model-path", M, "--served-model-name", "-x"]),
    ("sglang.launch_server", ["--model-path", M, "--json-model-override-args", "{rope_scaling:1}"]),
    ("sglang.launch_server", ["--model-path", M, "--help"]),
    ("sglang.launch_server", ["--model-path", M, "--hel"]),
    # sglang serve
    ("sglang serve", ["--model-path", M, "--port", "30000"]),
    ("sglang serve", [M, "--port", "30000"]),
    ("sglang serve", ["--model", M]),
    ("sglang serve", ["--model-type", "llm", "--model-path", M]),
    ("sglang serve", ["--model-path=" + M, "--model-type=llm", "--tp", "2"]),
]

VLLM: list[tuple[str, list[str]]] = [
    ("vllm serve", [M]),
    ("vllm serve", [M, "--port", "8000", "--host", "0.0.0.0"]),
    ("vllm serve", [M, "--tensor-parallel-size", "2"]),
    ("vllm serve", [M, "-tp", "2", "-pp", "2"]),
    ("vllm serve", [M, "--tensor_parallel_size", "2"]),
    ("vllm serve", [M, "--max-model-len", "32k"]),
    ("vllm serve", [M, "--max-model-len", "32K"]),
    ("vllm serve", [M, "--max-model-len", "auto"]),
    ("vllm serve", [M, "--max_model_len=4096"]),
    ("vllm serve", [M, "--gpu-memory-utilization", "0.9", "--max-num-seqs", "64"]),
    ("vllm serve", [M, "--max-num-batched-tokens", "8k"]),
    ("vllm serve", [M, "--enable-prefix-caching"]),
    ("vllm serve", [M, "--no-enable-prefix-caching"]),
    # 0.33's EnableDisableAction hides the --no- of the spelling it was declared with only (issue 15)
    ("vllm serve", [M, "--no-enable-elastic-ep"]),
    ("vllm serve", [M, "--no-disable-elastic-ep"]),
    ("vllm serve", [M, "--enforce-eager", "--trust-remote-code"]),
    ("vllm serve", [M, "--dtype", "bfloat16", "--kv-cache-dtype", "fp8"]),
    ("vllm serve", [M, "--dtype", "bf16"]),
    ("vllm serve", [M, "--quantization", "fp8"]),
    ("vllm serve", [M, "--served-model-name", "qwen", "--api-key", "sk-test-1234567890"]),
    ("vllm serve", [M, "--served-model-name", "a", "b"]),
    ("vllm serve", [M, "--speculative-config", '{"method": "mtp", "num_speculative_tokens": 3}']),
    (
        "vllm serve",
        [M, "--speculative-config.method", "mtp", "--speculative-config.num_speculative_tokens", "2"],
    ),
    ("vllm serve", [M, "--compilation-config", '{"mode": 3}']),
    ("vllm serve", [M, "--compilation-config.mode", "3"]),
    ("vllm serve", [M, "-O3"]),
    ("vllm serve", [M, "-O", "0"]),
    ("vllm serve", [M, "--limit-mm-per-prompt", '{"image": 2}']),
    ("vllm serve", [M, "--limit-mm-per-prompt.image", "2"]),
    ("vllm serve", [M, "--compilation-config", "{mode: 3}"]),
    ("vllm serve", [M, "--speculative-config", "not json"]),
    ("vllm serve", [M, "--seed", "1", "--seed", "2"]),
    ("vllm serve", [M, "--port", "8000", "--port", "8001"]),
    ("vllm serve", [M, "--tp-size", "2"]),
    ("vllm serve", [M, "--mem-fraction-static", "0.8"]),
    ("vllm serve", [M, "--context-length", "4096"]),
    ("vllm serve", [M, "--max-model", "4096"]),
    ("vllm serve", [M, "--gpu-mem", "0.8"]),
    ("vllm serve", [M, "--enable-prefix", "--port", "8000"]),
    ("vllm serve", [M, "--tensor-parallel", "2"]),
    ("vllm serve", [M, "--port", "--host", "0.0.0.0"]),
    ("vllm serve", [M, "--port", "80a"]),
    ("vllm serve", [M, "--max-num-seqs", "1.5"]),
    ("vllm serve", [M, "--enforce-eager", "true"]),
    ("vllm serve", [M, "--enforce-eager=false"]),
    ("vllm serve", [M, "--unknown-flag", "1"]),
    ("vllm serve", [M, "extra"]),
    ("vllm serve", ["--model", M, "--port", "8000"]),
    ("vllm serve", ["--port", "8000", "--model=" + M]),
    ("vllm serve", ["--port", "8000"]),
    ("vllm serve", [M, "-model", "x"]),
    ("vllm serve", [M, "-quantization", "fp8"]),
    ("vllm serve", [M, "--tokenizer", "/t", "--revision", "123"]),
    ("vllm serve", [M, "--data-parallel-size", "2", "--enable-expert-parallel"]),
    ("vllm serve", [M, "--reasoning-parser", "qwen3"]),
    ("vllm serve", [M, "--generation-config", "vllm"]),
    ("vllm serve", [M, "--max-logprobs", "-1"]),
    ("vllm serve", [M, "--override-generation-config", '{"temperature": 0.6}']),
    ("vllm serve", [M, "--hf-overrides", '{"rope_theta": 1000000}']),
    ("vllm serve", [M, "--hf-overrides.rope_theta", "1000000"]),
    ("vllm serve", [M, "--compilation-config", '{"mode": 3}', "--compilation-config.cudagraph_mode", "FULL"]),
    (
        "vllm serve",
        [
            M,
            "--speculative-config.num_speculative_tokens",
            "2",
            "--speculative-config.num_speculative_tokens",
            "3",
            "--speculative-config.method",
            "mtp",
        ],
    ),
    ("vllm serve", [M, "--help"]),
    ("vllm serve", [M, "--block-size", "16", "--swap-space", "4"]),
    ("vllm serve", [M, "--uvicorn-log-level", "debug"]),
    ("vllm serve", [M, "--uvicorn-log-level", "verbose"]),
    ("vllm.entrypoints.openai.api_server", ["--model", M, "--port", "8000"]),
    ("vllm.entrypoints.openai.api_server", ["--model", M, "--max_num_seqs", "8"]),
]

# More vLLM argv rewrites (FlexibleArgumentParser.parse_args).
VLLM += [
    ("vllm serve", [M, "-O=3"]),
    ("vllm serve", [M, "--compilation-config.custom_ops+", "+rms_norm,-silu_and_mul"]),
    (
        "vllm serve",
        [M, "--hf-overrides.rope_scaling.factor", "4", "--hf-overrides.rope_scaling.rope_type", "yarn"],
    ),
    ("vllm serve", [M, "--served-model-name", "-a.b"]),
    ("vllm serve", [M, "--kv-cache-memory-bytes", "2G"]),
    ("vllm serve", [M, "--max-num-batched-tokens", "1.5K"]),
    ("vllm serve", [M, "--enable-chunked-prefill", "--no-enable-chunked-prefill"]),
    ("vllm serve", [M, "--disable-log-stats", "--port=8001"]),
]

# Cases with a --config file: (entrypoint, argv, {file name: YAML text}). They run in a directory holding
# every file below.
CONFIG_FILES = {
    "sg_a.yaml": "port: 31000\ntp-size: 2\nenable-metrics: true\n",
    "sg_b.yaml": "model-path: /models/qwen\nlora-paths: [a=/x, b=/y]\ndisable-radix-cache: false\n",
    "sg_c.yaml": "model-path: /models/qwen\ntrust_remote_code: true\n",
    "sg_d.json": "{}\n",
    "vl_a.yaml": "port: 8001\ntensor-parallel-size: 2\nenable-prefix-caching: false\nmax_model_len: 4k\n",
    "vl_b.yaml": "model: /models/b\nspeculative-config:\n  method: mtp\n  num_speculative_tokens: 2\n",
    "vl_c.yaml": "served-model-name: [a, b]\nenforce-eager: true\n",
}
SGLANG_CONFIG: list[tuple[str, list[str]]] = [
    ("sglang.launch_server", ["--model-path", M, "--config", "sg_a.yaml", "--port", "32000"]),
    ("sglang.launch_server", ["--model-path", M, "--config", "sg_a.yaml"]),
    ("sglang.launch_server", ["--config", "sg_b.yaml"]),
    ("sglang.launch_server", ["--config", "sg_c.yaml"]),
    ("sglang.launch_server", ["--model-path", M, "--config", "sg_d.json"]),
    ("sglang.launch_server", ["--model-path", M, "--config=sg_a.yaml"]),
    ("sglang.launch_server", ["--model-path", M, "--config", "sg_a.yaml", "--config", "sg_b.yaml"]),
    ("sglang serve", ["--config", "sg_b.yaml", "--port", "1"]),
]
VLLM_CONFIG: list[tuple[str, list[str]]] = [
    ("vllm serve", [M, "--config", "vl_a.yaml", "-tp", "1"]),
    ("vllm serve", ["--config", "vl_b.yaml", "--port", "9000"]),
    ("vllm serve", ["--config", "vl_a.yaml"]),
    ("vllm serve", [M, "--config", "vl_c.yaml", "--served-model-name", "c"]),
    ("vllm.entrypoints.openai.api_server", ["--model", M, "--config", "vl_a.yaml"]),
    ("vllm serve", [M, "--config=vl_a.yaml"]),
]

SGLANG += [
    ("sglang.launch_server", ["--model-path", M, "--cuda-graph-backend-decode", "tc_piecewise"]),
    ("sglang.launch_server", ["--model-path", M, "--cuda-graph-config", '{"decode": {}}']),
    ("sglang.launch_server", ["--model-path", M, "--cuda-graph-config", "[1]"]),
    (
        "sglang.launch_server",
        ["--model-path", M, "--disable-cuda-graph", "--enable-dp-attention", "--dp", "2"],
    ),
]

VLLM += [
    ("vllm serve", [M, "--distributed-timeout-seconds", "30", "--num-gpu-blocks-override", "100"]),
    ("vllm serve", [M, "--kv-offloading-size", "1.5"]),
]

VLLM += [
    ("vllm serve", [M, "--compilation-config", '{"cudagraph_mod": "FULL"}']),
    ("vllm serve", [M, "--kv-events-config", '{"bogus": 1}']),
    ("vllm serve", [M, "--compilation-config.level", "3"]),
]
