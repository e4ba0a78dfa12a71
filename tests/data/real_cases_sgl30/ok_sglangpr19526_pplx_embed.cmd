# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/19526 (2026-02-27, open), seen 2026-12-05: a correct launch: the PR's usage line for the pplx-embed-v1-0.6b embedding model (bidirectional Qwen3), verified against transformers; as posted.
python -m sglang.launch_server \
  --model-path perplexity-ai/pplx-embed-v1-0.6b \
  --is-embedding \
  --trust-remote-code \
  --attention-backend flashinfer \
  --disable-radix-cache \
  --chunked-prefill-size -1
