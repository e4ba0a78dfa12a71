# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/25550 (2026-05-18, closed), seen 2026-12-05: a correct launch: the PR's accuracy run of Gemma-4-31B-IT-NVFP4 with the triton attention backend on B200 and GB200 (GSM8K 0.764 and 0.783). As posted.
python3 -m sglang.launch_server \
    --model-path nvidia/Gemma-4-31B-IT-NVFP4 \
    --port 18000 \
    --host 0.0.0.0 \
    --attention-backend triton \
    --context-length 8192 \
    --max-running-requests 64
