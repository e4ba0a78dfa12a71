# Reconstructed (not copied) after https://github.com/ROCm/ATOM/pull/1046 (2026-06-03, merged), seen 2026-12-04: a correct launch: the PR's DeepSeek-R1 MXFP4 server on ROCm (TP 4, DP 4, EP 4, DP attention) with the AITER and spec-v2 variables it sets; the model path is the PR's, the speculative flags after the cut of the PR's command are stand-ins.
export SGLANG_USE_AITER=1
export SGLANG_ENABLE_SPEC_V2=1
export SGLANG_AITER_FP8_PREFILL_ATTN=0
model_path=/models/deepseek-ai/DeepSeek-R1-0528-MXFP4-v2
python3 -m sglang.launch_server \
    --model-path $model_path \
    --host localhost \
    --port 8000 \
    --trust-remote-code \
    --tensor-parallel-size 4 \
    --data-parallel-size 4 \
    --expert-parallel-size 4 \
    --enable-dp-attention \
    --mem-fraction-static 0.85 \
    --speculative-algorithm EAGLE \
    --speculative-num-steps 3 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 4
