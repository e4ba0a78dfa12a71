# Reconstructed (not copied) after https://github.com/benenzhu/sglang_P/blob/7f7c2df668c7f601c4140eeda83fad55ac4f2a2b/run_server.sh, seen 2026-12-04: the exported profiler directory and the one-line DeepSeek-R1-0528 server (`--model`, `--tp 8`, `--flag=value` words, aiter attention, fp8_e4m3 KV cache, `--speculative-algorithm EAGLE`), then commented-out variants.
export SGLANG_TORCH_PROFILER_DIR=/root
python -m sglang.launch_server --model /root/DeepSeek-R1-0528 --cuda-graph-max-bs=512 --tp 8  --chunked-prefill-size=131072 --num-continuous-decode-steps=4 --max-prefill-tokens=131072 --kv-cache-dtype fp8_e4m3 --attention-backend aiter --disable-radix-cache --mem-fraction-static=0.8 --speculative-algorithm EAGLE --max-running-requests 256
#

# ZZD=1 python -m sglang.launch_server --model /root/DeepSeek-R1-0528 --tp 8 --load-format dummy

# --dp 8 --enable-dp-attention