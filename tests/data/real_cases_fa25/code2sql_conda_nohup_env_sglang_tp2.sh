#!/bin/bash
# Reconstructed (not copied) after https://github.com/wuyuVerse/code2sql/blob/92cf983c0bd5404563cbcf868769383fe9dd9df1/sglang_start_command.sh, seen 2026-12-04: a command rebuilt from a running server's ServerArgs: `conda activate`, then `nohup env CUDA_VISIBLE_DEVICES=7,8 python -m sglang.launch_server ... > LOG 2>&1 &`, a fine-tuned Qwen3-14B on TP 2 without CUDA graphs or the radix cache, `$!` echoed (kept: the structure, the flags; the echo texts translated and shortened)

echo "starting the sglang server..."

conda activate sglang

nohup env CUDA_VISIBLE_DEVICES=7,8 python -m sglang.launch_server \
  --model-path /data/local_disk0/wuyu/save_model/saves/qwen3-14b-ft-20250710_154849 \
  --tp 2 \
  --host 0.0.0.0 \
  --port 8081 \
  --disable-cuda-graph \
  --disable-radix-cache \
  > code2sql_sglang_8001.log 2>&1 &

echo "started, pid $!; log: tail -f code2sql_sglang_8001.log"
