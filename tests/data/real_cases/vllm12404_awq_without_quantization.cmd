# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/12404 (vllm 0.6.5), seen 2026-12-02: the command line as the report shows it (placeholders where it redacts).
vllm serve InternVL2-26B-AWQ --served-model-name intervl2 --gpu_memory_utilization 0.99 --tensor-parallel-size 4 --limit-mm-per-prompt image=5,video=1
