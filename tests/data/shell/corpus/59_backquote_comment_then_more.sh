#!/bin/bash
# A comment inside backquotes (a way to comment a continued line) makes tree-sitter read the rest of the
# file as part of that command; bash ends the command at the newline and goes on.
python3 -m sglang.launch_server --model-path /m \
  --port 30000 `# the port` \
  --tp 1
STEPS=3
SPEC="{\"method\": \"mtp\", \"num_speculative_tokens\": $STEPS}"
if [ "$STEPS" -gt 2 ]; then
  vllm serve /models/qwen3 --speculative-config "$SPEC"
fi
