# https://github.com/QwenLM/Qwen3-Coder/issues/537 (2025-10-09, vLLM 0.11.0: Qwen3-Coder served with --tool-call-parser hermes, the parser that works for Qwen3; hermes_tool_parser.py logs "Error in extracting tool call from response" for the coder's XML-style calls, whose parser is qwen3_coder)
vllm serve Qwen/Qwen3-Coder-30B-A3B-Instruct \
    --served-model-name qwen3-coder \
    --tensor-parallel-size 1 \
    --gpu-memory-utilization 0.9 \
    --max-model-len 65536 \
    --enable-auto-tool-choice \
    --tool-call-parser hermes
