# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/3488 (2025-02-11, sglang 0.4.2.post4, RTX 4090s), seen 2026-12-02: the reporter's launch; it hangs at start-up.
CUDA_VISIBLE_DEVICES=1,2,3,4 /data/miniconda3/envs/fffan_sglang/bin/python -m sglang.launch_server \
      --model /data/fffan/0_experiment/2_Vllm_test/6_Deepseek/deepseek-ai/DeepSeek-R1-Distill-Qwen-32B \
      --trust-remote-code \
      --tp 4 \
      --host 0.0.0.0 --port 8001
