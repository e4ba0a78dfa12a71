# Reconstructed (not copied) after https://github.com/sgl-project/sgl-cookbook/blob/0fb00812e54981794683206b7f5646210eff09fc/docs/autoregressive/Qwen/Qwen3.5.md (SGLang cookbook, 2026), seen 2026-12-03: a correct launch: Qwen3.5-397B-A17B with `sglang serve` on MI300X/MI325X/MI355X, the Triton attention backend and the qwen3 / qwen3_coder parsers.
sglang serve \
  --model-path Qwen/Qwen3.5-397B-A17B \
  --tp 8 \
  --reasoning-parser qwen3 \
  --tool-call-parser qwen3_coder \
  --mem-fraction-static 0.8 \
  --attention-backend triton \
  --host 0.0.0.0 \
  --port 30000
