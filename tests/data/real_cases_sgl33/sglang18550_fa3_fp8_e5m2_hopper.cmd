# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/18550 (2026-02-10, closed inactive; from sglang#14142's comment), seen 2026-12-05: on Hopper, `--kv-cache-dtype fp8_e5m2 --attention-backend fa3` starts but the server logs "FlashAttention3 only supports fp8_e4m3 if using FP8; Setting attention backend to triton." and runs the slower triton backend: the backend the user wrote is replaced. The issue gives the two flags only; the model (Qwen/Qwen3-8B), TP and port are stand-ins; the GPU (H100) is the issue's Hopper.
python3 -m sglang.launch_server \
  --model-path Qwen/Qwen3-8B \
  --kv-cache-dtype fp8_e5m2 \
  --attention-backend fa3 \
  --port 30000
