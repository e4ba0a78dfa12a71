# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/5491 (comment by liuteng, 2025-04-20), seen 2026-12-02: the launch with the fa3 backend, which "works fine"; the crash during EAGLE decoding came with the default backend (a bug).
python -m sglang.launch_server --model /mnt/data/open_source/QwQ-32B/Qwen__QwQ-32B/   --served-model-name Qwen-32B --speculative-algorithm EAGLE \
    --speculative-draft-model-path /mnt/train/eagle/EAGLE-1/ckpt_2/state_1/ --speculative-num-steps 3 \
    --speculative-eagle-topk 2 --speculative-num-draft-tokens 8 --cuda-graph-max-bs 8 --port 9123 --tensor-parallel-size 2 --mem-fraction-static 0.8 --attention-backend fa3 --enable-torch-compile --max-running-requests 100
