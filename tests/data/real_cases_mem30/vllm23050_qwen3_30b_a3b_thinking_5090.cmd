# source: https://github.com/vllm-project/vllm/issues/23050 (2025-08-17) "[Bug]: torch.OutOfMemoryError: CUDA out of memory."
# GPU: RTX 5090 (32 GB). Release: not named (August 2025). The answer: "The unquantized weights for Qwen3-30B-A3B-Thinking-2507 alone
# exceeds the VRAM of 5090 ... (and the context length of 262144 tokens ...)". Stand-in: the report's own command is not in the part
# at hand; this is the plain launch of that checkpoint the answer describes. Model config: models/qwen3-30b-a3b-thinking-2507
# (Qwen3-30B-A3B's geometry with the 262144-token context the answer quotes).
vllm serve Qwen/Qwen3-30B-A3B-Thinking-2507
