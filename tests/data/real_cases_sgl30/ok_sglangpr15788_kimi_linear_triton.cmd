# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/15788 (2025-12-24, closed), seen 2026-12-05: a correct launch: Kimi-Linear-48B-A3B on 4 GPUs with --attention-backend triton, the backend the PR measured as working before its fix; the PR's command with triton chosen.
CUDA_VISIBLE_DEVICES=4,5,6,7 python3 -m sglang.launch_server \
  --model moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp 4 \
  --trust-remote-code \
  --enable-metrics \
  --mem-fraction-static 0.9 \
  --attention-backend triton
