# https://github.com/sgl-project/sglang/issues/22714 -- correct: the comment's launch on 4x MI300X (2026-04-17) that booted and served with the aiter backend and no custom all-reduce
sglang serve \
  --model-path MiniMaxAI/MiniMax-M2.7 \
  --tp 4 \
  --ep 4 \
  --kv-cache-dtype fp8_e4m3 \
  --attention-backend aiter \
  --disable-custom-all-reduce \
  --tool-call-parser minimax-m2 \
  --reasoning-parser minimax-append-think \
  --trust-remote-code \
  --mem-fraction-static 0.85 \
  --host 0.0.0.0 \
  --port 30000
