# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/13814 ("If I disable tensor parallelism, everything works fine"), seen 2026-12-02: the report's launch without --tensor-parallel-size (underscore flag included).
CUDA_VISIBLE_DEVICES=2,3 vllm serve ./deepseek-r1-14b --max_model_len 8192
