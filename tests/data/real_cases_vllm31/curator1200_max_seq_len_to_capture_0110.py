# Reconstructed (not copied) after https://github.com/NVIDIA-NeMo/Curator/pull/1200 (2025-10-23, "Remove max_seq_len_to_capture for vllm 0.11.0 Support": the engine keyword max_seq_len_to_capture, removed from vLLM by PR#25543, stops LLM(...) on 0.11.0); the model and the other keywords are stand-ins, the keyword the PR removes is kept
from vllm import LLM, SamplingParams

llm = LLM(
    model="Qwen/Qwen2.5-7B-Instruct",
    tensor_parallel_size=1,
    max_model_len=8192,
    max_seq_len_to_capture=8192,
)
outputs = llm.generate(["Classify this document."], SamplingParams(max_tokens=16))
