# Reconstructed (not copied) after https://github.com/luismiguelsaez/ai-playground/blob/013e72b5d78f881652d4fbebd1aa1a468b14cd44/tools/llm/vllm/source/TESTING.md, seen 2026-12-04: the page's Qwen3.5-35B-A3B AWQ block on two RTX 3090: `--language-model-only` given twice, `--no-enforce-eager`, TP 1 with two devices visible (kept: the block, its structure and flags)
CUDA_DEVICE_ORDER=PCI_BUS_ID \
CUDA_VISIBLE_DEVICES=2,3 \
vllm serve cyankiwi/Qwen3.5-35B-A3B-AWQ-4bit \
  --port 8000 \
  --served-model-name model \
  --tensor-parallel-size 1 \
  --enable-auto-tool-choice \
  --no-enforce-eager \
  --language-model-only \
  --tool-call-parser qwen3_coder \
  --reasoning-parser qwen3 \
  --kv-cache-dtype fp8 \
  --language-model-only \
  --gpu-memory-utilization 0.80
