# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/26790 (2026-05-30, closed inactive), seen 2026-12-05: a Qwen3.6-35B-A3B-FP8 server with --tool-call-parser qwen25 ends tool-call turns with finish_reason "tool_calls" but an empty tool_calls list, the raw <tool_call> XML left in content: the Qwen3.5/3.6 chat template writes the XML function format that the qwen3_coder detector parses (sglang PR#26172 uses --tool-call-parser qwen3_coder for Qwen 3.5). The startup command as posted (/model is the report's local path).
python3 -m sglang.launch_server \
  --model-path /model \
  --served-model-name Qwen3.6-35B-A3B-FP8 \
  --trust-remote-code \
  --quantization fp8 \
  --dtype bfloat16 \
  --kv-cache-dtype fp8_e4m3 \
  --host 0.0.0.0 \
  --port 8001 \
  --tool-call-parser qwen25
