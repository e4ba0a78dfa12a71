# Reconstructed (not copied) after https://github.com/zai-org/GLM-V/issues/28 (vllm 0.8.5.post1), seen 2026-12-02: the command line as the report shows it (placeholders where it redacts).
vllm serve /data_ssd01/ai_workspace/GLM/GLM-4_1V-9B-Thinking/ --host 0.0.0.0 --port 8001 --served-model-name THUDM/GLM-4.1V-9B-Thinking --limit-mm-per-prompt '{"image":32}' --allowed-local-media-path /
