# Reconstructed (not copied) after https://github.com/luismiguelsaez/ai-playground/blob/013e72b5d78f881652d4fbebd1aa1a468b14cd44/tools/llm/vllm/source/TESTING.md, seen 2026-12-04: the page's MiniMax M2.5 block on two RTX Pro 6000: `HUGGINGFACE_HUB_CACHE=$HF_HOME/hub` reading the prefix before it, VLLM_ALLOW_LONG_MAX_MODEL_LEN, modelopt NVFP4 with EP, two flags on one line, `--compilation-config "{\"cudagraph_mode\": \"PIECEWISE\"}"` (kept: the block, its structure and flags)
HF_HOME=$HOME/.cache/huggingface \
HUGGINGFACE_HUB_CACHE=$HF_HOME/hub \
SAFETENSORS_FAST_GPU=1 \
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 \
vllm serve nvidia/MiniMax-M2.5-NVFP4 \
  --served-model-name model \
  --quantization modelopt \
  --trust-remote-code \
  --max-model-len 196608 \
  --tensor-parallel-size 2 \
  --enable-expert-parallel \
  --kv-cache-dtype fp8 \
  --enable-auto-tool-choice --tool-call-parser minimax_m2 \
  --reasoning-parser minimax_m2_append_think \
  --compilation-config "{\"cudagraph_mode\": \"PIECEWISE\"}"
