# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/11748 (2025-01-05, closed), seen 2026-12-05: gemma-2-9b-it-SimPO with cpu_offload_gb=8 runs, and fails once enable_lora=True is added (a ValueError from the model runner; the maintainers: LoRA does not support CPU offload, the offloaded base layers put the LoRA weights on the CPU; PR #11810 adds a check that refuses the pair). The LLM(...) call as posted, with its commented-out enable_lora and max_lora_rank switched on as the report describes.
import vllm

llm = vllm.LLM(
    "princeton-nlp/gemma-2-9b-it-SimPO",
    tensor_parallel_size=1,
    enable_lora=True,
    max_lora_rank=64,
    dtype="bfloat16",
    enforce_eager=True,
    max_model_len=3201,
    enable_prefix_caching=True,
    gpu_memory_utilization=0.9,
    cpu_offload_gb=8,
    swap_space=0,
)
