# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/9704 (2025-08-26, open), seen 2026-12-05: DeepSeek-R1-0528-FP4 on B200 with --attention-backend flashinfer and --kv-cache-dtype fp8_e4m3 loses GSM8K accuracy (the trtllm_mla launch beside it is the comparison); the fix was a FlashInfer kernel change (flashinfer PR#1238, sglang PR#9733). The flashinfer server command as posted (main at a85363c19).
python3 -m sglang.launch_server \
  --model nvidia/DeepSeek-R1-0528-FP4 \
  --trust-remote-code \
  --quantization modelopt_fp4 \
  --attention-backend flashinfer --kv-cache-dtype fp8_e4m3 \
  --tp-size 4 \
  --mem-fraction-static 0.80 \
  --max-running-requests 1024 \
  --cuda-graph-max-bs 256 \
  --host 0.0.0.0 \
  --port 30001
