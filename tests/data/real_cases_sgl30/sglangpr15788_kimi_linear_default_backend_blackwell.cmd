# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/15788 (2025-12-24, closed), seen 2026-12-05: Kimi-Linear-48B-A3B on 4 Blackwell GPUs fails to launch with the default attention backend (flashinfer) and with trtllm_mla; the PR (part of sglang#15785) fixes both and picks trtllm_mla on Blackwell; triton worked. The PR's command with the default backend (its --attention-backend left out).
CUDA_VISIBLE_DEVICES=4,5,6,7 python3 -m sglang.launch_server \
  --model moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp 4 \
  --trust-remote-code \
  --enable-metrics \
  --mem-fraction-static 0.9
