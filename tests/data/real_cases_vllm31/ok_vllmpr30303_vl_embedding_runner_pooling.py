# https://github.com/vllm-project/vllm/pull/30303 (2025-12-09, "[Bugfix] Qwen 3 VL Embedding loading": the PR's test plan, a Qwen3-VL model built as a pooling model with runner="pooling", which loads once the fix is in); the prompts shortened
from vllm import LLM

model = LLM(
    model="Qwen/Qwen3-VL-8B-Instruct",
    runner="pooling",
    max_model_len=1024,
    trust_remote_code=True,
    limit_mm_per_prompt={"image": 1, "video": 0},
)
outputs = model.embed(["Hello, my name is", "The capital of France is"])
