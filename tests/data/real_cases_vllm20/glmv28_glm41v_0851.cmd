# https://github.com/zai-org/GLM-V/issues/28 (vLLM 0.8.5.post1, 2025-07-04: GLM-4.1V needs a newer vLLM; "limit_mm_per_prompt is only supported for multimodal models" as in GLM-V#15)
vllm serve /data_ssd01/ai_workspace/GLM/GLM-4_1V-9B-Thinking/    --host 0.0.0.0      --port 8001  --served-model-name THUDM/GLM-4.1V-9B-Thinking --limit-mm-per-prompt '{"image":32}' --allowed-local-media-path /
