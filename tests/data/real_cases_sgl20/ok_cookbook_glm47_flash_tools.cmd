# Reconstructed (not copied) after https://github.com/sgl-project/sgl-cookbook/blob/546cd5cfdfdec6b03b2c8a0d29214003322fc47e/docs/autoregressive/GLM/GLM-4.7-Flash.md (SGLang cookbook, benchmarked on SGLang 0.5.7), seen 2026-12-03: a correct launch: GLM-4.7-Flash with its reasoning and tool-call parsers on the Triton attention backend.
python -m sglang.launch_server \
  --model zai-org/GLM-4.7-Flash \
  --reasoning-parser glm45 \
  --tool-call-parser glm47 \
  --attention-backend triton \
  --tp 1 \
  --host 0.0.0.0 \
  --port 8000
