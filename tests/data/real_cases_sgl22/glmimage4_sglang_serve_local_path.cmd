# Reconstructed (not copied) after https://github.com/zai-org/GLM-Image/issues/4 (2026-01-14), seen 2026-12-04: "sglang serve --model-path /root/models" for GLM-Image goes to SGLang Diffusion's serve path, which finds no model for a local directory named "models": "RuntimeError: No model info found for model path: /root/models". The command as posted.
sglang serve --model-path /root/models
