# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/33411 (2026-08-03, closed), seen 2026-12-05: a correct launch: the decode side of the PR's DSPARK 1P1D accuracy test (DeepSeek-V4-Flash-0731, mooncake, marlin); current releases build DSPARK's disaggregation draft input. As posted.
sglang serve \
  --trust-remote-code \
  --model-path deepseek-ai/DeepSeek-V4-Flash-0731 \
  --disaggregation-mode decode \
  --disaggregation-bootstrap-port 21500 \
  --disaggregation-transfer-backend mooncake \
  --tp 4 \
  --base-gpu-id 4 \
  --speculative-algorithm DSPARK \
  --moe-runner-backend marlin \
  --host 127.0.0.1 \
  --port 21200
