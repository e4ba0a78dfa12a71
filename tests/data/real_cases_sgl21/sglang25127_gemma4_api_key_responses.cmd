# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/25127 (2026-05-13, sglang 0.5.11), seen 2026-12-03: POST /v1/responses answers 401 Unauthorized, then 400. The key is shown redacted here (the report posts it whole).
sglang serve --model-path /mnt/models/gemma-4-26B-A4B-it --mem-fraction-static 0.75 --host 0.0.0.0 --port 8000 --api-key yf-REDACTED
