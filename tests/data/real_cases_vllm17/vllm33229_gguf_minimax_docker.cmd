# https://github.com/vllm-project/vllm/issues/33229 (comment of 2026-02-16; the log shows vLLM 0.15.1; stops with "GGUF model with architecture minimax-m2 is not supported yet")
docker run --gpus all --rm --ipc=host \
  -p 8000:8000 \
  -v /mnt/Avsol:/mnt/Avsol \
  vllm/vllm-openai:latest \
  --model /mnt/Avsol/MiniMax-M2.5-GGUF/MiniMax-M2.5-Q4_K_M.gguf \
  --tokenizer MiniMaxAI/MiniMax-M2.5
