# https://github.com/sgl-project/sglang/issues/22714 -- MiniMax-M2.7 on 4x MI300X, lmsysorg/sglang:v0.5.9-rocm700-mi30x, 2026-04: crashes during decode (HSA_STATUS_ERROR_EXCEPTION); --attention-backend aiter with --disable-custom-all-reduce booted and served (ok_sglang22714_aiter_no_custom_ar.cmd); the failing launch without them, as the comment gives the shared flags
sglang serve \
  --model-path MiniMaxAI/MiniMax-M2.7 \
  --tp 4 \
  --ep 4 \
  --kv-cache-dtype fp8_e4m3 \
  --tool-call-parser minimax-m2 \
  --reasoning-parser minimax-append-think \
  --trust-remote-code \
  --mem-fraction-static 0.85 \
  --host 0.0.0.0 \
  --port 30000
