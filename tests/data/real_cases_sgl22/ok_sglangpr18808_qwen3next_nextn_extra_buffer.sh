# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/18808 (2026-02-13, merged), seen 2026-12-04: a correct launch: the PR's start-up command for spec v2 on Qwen3-Next (NEXTN with the extra_buffer strategy and multi-thread loading), the log redirect dropped.
export SGLANG_ENABLE_SPEC_V2=1
python -m sglang.launch_server \
  --model-path /xxx/qwen3-next \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --speculative-algorithm NEXTN \
  --mamba-scheduler-strategy extra_buffer \
  --tp 4 \
  --model-loader-extra-config "{\"enable_multithread_load\": true, \"num_threads\": 64}"
