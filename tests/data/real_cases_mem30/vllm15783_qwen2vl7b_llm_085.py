# source: https://github.com/vllm-project/vllm/issues/15783 (2025-03) "[Bug]: vllm fails to calculate gpu_memory and lead to OOM"
# GPU: not named (one device, cuda:7). Release: vLLM 0.7.2. The report: the engine built with the arguments below runs out of memory.
# Stand-in: self.mm_processor_kwargs of the report's class is not shown (left out). Model config: models/qwen2-vl-7b-instruct.
import torch
from vllm import LLM

llm = LLM(
    model="Qwen/Qwen2-VL-7B-Instruct",
    device="cuda:7",
    gpu_memory_utilization=0.85,
    dtype=torch.bfloat16,
    enable_prefix_caching=True,
    enforce_eager=True,
    max_model_len=9216,
)
