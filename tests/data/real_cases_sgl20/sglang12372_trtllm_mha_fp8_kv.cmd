# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/12372 (2025-10-30), seen 2026-12-03: "TRT-LLM gen MHA + FP8 KV cache issue": the trtllm_mha attention backend with an FP8 KV cache fails in its forward_extend. As posted, the trailing backslash of the report's last line included.
python3 -m sglang.launch_server \
  --model-path meta-llama/Llama-3.1-8B-Instruct \
  --tp 8 \
  --kv-cache-dtype fp8_e4m3 \
  --attention-backend trtllm_mha \
