# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/24148 (2026-04-30, merged), seen 2026-12-05: a correct launch: DeepSeek-V3.2 on 8 AMD Instinct GPUs with the AITER attention and NSA backends, in rocm/sgl-dev:v0.5.10.post1-rocm720-mi35x-20260503; the PR's server command as posted.
SGLANG_USE_AITER=1 \
python3 -m sglang.launch_server \
  --model deepseek-ai/DeepSeek-V3.2 \
  --port 8000 \
  --tensor-parallel-size 8 \
  --attention-backend aiter \
  --nsa-prefill-backend aiter \
  --nsa-decode-backend aiter \
  --trust-remote-code \
  --disable-radix-cache
