# source: https://github.com/vllm-project/vllm/issues/16712 (2025-04-16) "[Bug]: meta-llama/Llama-4-Scout-17B-16E-Instruct not supported on VLLM, 2xH100 NVL 196GB"
# GPU: 2x H100 NVL (94 GB; "GPU 1 has a total capacity of 93.02 GiB"). Release: master of 2025-04-16. Every combination:
# "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB. GPU 1 has a total capacity of 93.02 GiB of which 1.18 GiB is free."
# The launch is the Helm values' extraArgs. Model config: models/llama-4-scout-17b-16e (bf16, 109B parameters).
vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct --gpu-memory-utilization=0.99 --max-model-len=1000 --tensor-parallel-size=2 --kv-cache-dtype=fp8
