# Reconstructed (not copied) after https://github.com/vllm-project/vllm-ascend/pull/7103 (2026-03-10, vLLM v0.17.0: "To use mamba prefix cache, set --enable-prefix-caching and --mamba-cache-mode align", Qwen3.5-35B-A3B with -tp 2 as the PR's note runs it); the port is a stand-in
vllm serve Qwen/Qwen3.5-35B-A3B -tp 2 --enable-prefix-caching --mamba-cache-mode align --port 8000
