# https://github.com/vllm-project/vllm/issues/55754 -- 2026-09-07, vLLM main with the v0.28.0 native extensions: a server given --tool-call-parser hermes but not --enable-auto-tool-choice answers a named/required tool_choice with HTTP 400 "named tool choice requires --tool-call-parser": the serving layer builds the tool parser only when --enable-auto-tool-choice is set.
vllm serve HuggingFaceTB/SmolLM2-135M-Instruct \
  --served-model-name smollm2-e2e --tool-call-parser hermes \
  --dtype float32 --enforce-eager --max-model-len 512
