# Reconstructed (not copied) after https://github.com/huggingface/lighteval/issues/532 (2025-02-04: with data_parallel_size > 1, lighteval's vllm_model.py builds LLM(**model_args) with worker_use_ray set, and vLLM 0.7 stops with "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'worker_use_ray'"); lighteval's call written as the keywords it passes, the model and the other values stand-ins
from vllm import LLM, SamplingParams

model_args = {
    "model": "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B",
    "gpu_memory_utilization": 0.8,
    "max_model_len": 32768,
    "tensor_parallel_size": 1,
    "worker_use_ray": True,
    "distributed_executor_backend": "ray",
}
llm = LLM(**model_args)
outputs = llm.generate(["What is 1 + 1?"], SamplingParams(max_tokens=16))
