# Reconstructed (not copied) after https://github.com/cornell-sysphotonics/ccl-bench/blob/e80ee582f8e2c8119ae4406f54d8a628a65cf994/trace_collection/deepseek-v2-lite-vllm-dp_2_eager-group_9/run.sh, seen 2026-12-04: no shebang, `nsys profile` with its own options (`-t cuda`, `-s none`, `--cpuctxsw=none`, `-o NAME`) wrapping `vllm serve` of DeepSeek-V2-Lite with dp 2, tp 2, expert parallel, no final newline.
nsys profile \
  -t cuda \
  -s none \
  --cpuctxsw=none \
  --trace-fork-before-exec=true \
  --force-overwrite=true \
  --stats=true \
  -o moe_dp2tp2 \
  vllm serve /pscratch/sd/c/cp724/DeepSeek-V2-Lite \
    --enforce-eager \
    --tensor-parallel-size 2 \
    --data-parallel-size 2 \
    --enable-expert-parallel \
    --port 8000