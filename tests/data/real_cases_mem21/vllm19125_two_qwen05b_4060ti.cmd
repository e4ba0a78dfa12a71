# source: https://github.com/vllm-project/vllm/issues/19125 (2025-06-04) "[Bug]: cannot startup two Qwen/Qwen2.5-0.5B-Instruct on a 8G 4060ti"
# GPU: one NVIDIA GeForce RTX 4060 Ti 8 GB (nvidia-smi: 8188MiB; 3578MiB in use while the first server runs). Release: not in the part
# returned (the report's date, 2025-06-04, is before 0.9.1). The same launch twice on one GPU, the second does not start; the report
# posts the command once: here the first is backgrounded (`&`) and the second takes another port, as two servers need.
# Model config: models/qwen2.5-0.5b-instruct.
python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-0.5B-Instruct --gpu_memory_utilization 0.4 &
python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-0.5B-Instruct --gpu_memory_utilization 0.4 --port 8001
