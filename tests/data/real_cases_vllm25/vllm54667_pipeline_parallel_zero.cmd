# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/54667 (2026, torch 2.9.1: "zero pipeline/prefill context parallel size selects no executor backend"; the title's setting on a small model)
vllm serve Qwen/Qwen3-0.6B --pipeline-parallel-size 0
