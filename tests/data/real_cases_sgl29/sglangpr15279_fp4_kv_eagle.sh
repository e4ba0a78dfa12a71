# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/15279 (2025-12-16, closed), seen 2026-12-05: an FP4 KV cache (--kv-cache-dtype fp4_e2m1) with EAGLE speculative decoding fails with '"copy_" not implemented for Float4_e2m1fn_x2' in the TARGET_VERIFY path (the query is cast to the FP4 KV dtype). The PR's docker environment and command as far as posted; the speculative flags after the cut are stand-ins (its model is an MTP checkpoint), the model path the PR's.
export SGLANG_ENABLE_SPEC_V2=1
export SGLANG_DISABLE_CONSECUTIVE_PREFILL_OVERLAP=1
export SGLANG_SCHEDULER_DONT_INTERRUPT_CURRENT_DECODE=1
python3 -m sglang.launch_server \
    --model-path /scratch/huggingface/dsv31-agent-1003-bt-rl-1026-mtp-2-force-thinkFP4 \
    --trust-remote-code \
    --quantization modelopt_fp4 \
    --tp 4 \
    --port 30001 \
    --enable-metrics \
    --enable-flashinfer-allreduce-fusion \
    --kv-cache-dtype fp4_e2m1 \
    --page-size 64 \
    --max-running-requests 32 \
    --chunked-prefill-size 32768 \
    --speculative-algorithm EAGLE \
    --speculative-num-steps 3 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 4
