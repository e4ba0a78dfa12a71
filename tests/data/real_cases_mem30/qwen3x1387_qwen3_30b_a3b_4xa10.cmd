# source: https://github.com/QwenLM/Qwen3/issues/1387 (2025-05-09) "4*A10 卡部署Qwen3-30B-A3B 报错了" (4x A10 deploying Qwen3-30B-A3B fails)
# GPU: 4x A10 ("GPU 1 has a total capacity of 21.99 GiB"). Release: not named (May 2025: vLLM 0.8.5). The report:
# "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 150.00 MiB ... this process has 21.94 GiB memory in use", also
# after lowering --max-model-len to 8192. The posted lines lack their `\`; joined here. Model config: models/qwen3-30b-a3b.
CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve /root/Qwen/Qwen3-30B-A3B --tensor-parallel-size 4 --max-model-len 8192 --gpu-memory-utilization 0.7 --host 0.0.0.0 --port 8081 --served-model-name Qwen3-30B-A3B-vllm
