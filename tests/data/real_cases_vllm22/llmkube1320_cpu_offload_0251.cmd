# Reconstructed (not copied) after https://github.com/defilantech/LLMKube/issues/1320 (vLLM 0.25.1 image, 2026-07-27, RTX PRO 6000 Blackwell: "`--cpu-offload-gb 20` accepted ... but no weights are offloaded — the full model loads to GPU"; the model of the same test, Qwen3-30B-A3B)
vllm serve Qwen/Qwen3-30B-A3B --cpu-offload-gb 20
