# https://github.com/vllm-project/vllm-ascend/pull/5002 (2025-12-14, vLLM v0.12.0: examples/offline_embed.py builds LLM(model="Qwen/Qwen3-Embedding-0.6B", task="embed"), which 0.12.0 still takes with a deprecation warning; the PR moves it to runner="pooling"); the example's model call, the prompts shortened
from vllm import LLM

queries = ["What is the capital of China?"]
documents = ["The capital of China is Beijing."]
model = LLM(model="Qwen/Qwen3-Embedding-0.6B", task="embed")
outputs = model.embed(queries + documents)
