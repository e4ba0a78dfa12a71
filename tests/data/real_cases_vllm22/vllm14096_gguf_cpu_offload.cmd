# https://github.com/vllm-project/vllm/issues/14096 (2025-03-19 comment, vLLM 0.8.0rc3.dev31 on ROCm, two 7900 XTX: "If add argument --cpu-offload-gb for gguf model, error")
vllm serve /app/model/Qwen_QwQ-32B-Q6_K.gguf --port 8002 --tensor-parallel-size 2 --gpu-memory-utilization 0.95 --max-model-len 32000 --cpu-offload-gb 5
