# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/7716, seen 2026-12-02: the PR's failing start-up example on vLLM 0.5.4 (its log names the model, Meta-Llama-3-8B-Instruct: 32 attention heads, not divisible by 3).
MODEL=meta-llama/Meta-Llama-3-8B-Instruct
vllm serve $MODEL --tensor-parallel-size 3
