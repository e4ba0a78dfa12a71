# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/13814, seen 2026-12-02: the launch on vLLM 0.6.6.post1 that hangs while loading once tensor parallelism is 2 (the log names the release).
CUDA_VISIBLE_DEVICES=2,3 vllm serve ./deepseek-r1-14b --max_model_len 8192 --tensor-parallel-size 2
