# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/8336 (2025-07-25, closed), seen 2026-12-05: EAGLE3 with --speculative-eagle-topk 10, --speculative-num-steps 6 and 32 draft tokens on fa3 starts, then the scheduler dies with "CUDA error: an illegal memory access was encountered" in eagle_worker's verify under the mtbench benchmark. The command as posted in the thread; ${MODEL} and ${DRAFT} are the report's own placeholders.
python -m sglang.launch_server \
 --model-path ${MODEL} \
 --dtype bfloat16 \
 --port 30908 \
 --served-model-name my_model \
 --enable-metrics \
 --tensor-parallel-size 2 \
 --reasoning-parser qwen3 \
 --tool-call-parser qwen25 \
 --attention-backend fa3 \
  --cuda-graph-max-bs 2 \
 --mem-fraction-static 0.8 \
 --disable-radix-cache \
 --speculative-algorithm EAGLE3 \
 --speculative-draft-model-path ${DRAFT} \
 --speculative-num-steps 6 \
 --speculative-eagle-topk 10 \
 --speculative-num-draft-tokens 32
