# https://github.com/zai-org/GLM-V/issues/15 (vLLM 0.9.1: "Value error, `limit_mm_per_prompt` is only supported for
# multimodal models."; Glm4vForConditionalGeneration is registered from 0.9.2). The command as posted.
vllm serve GLM-4.1V-9B-Thinking --limit-mm-per-prompt '{"image":32}' --allowed-local-media-path /
