# Reconstructed (not copied) after https://github.com/MoonshotAI/Kimi-K2/issues/122 (2026-04-03, 8x H20), seen 2026-12-02: the reporter's launch; the error is a screenshot.
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 vllm serve kimi-k2.5 -tp 8 --mm-encoder-tp-mode data --trust-remote-code --tool-call-parser kimi_k2 --reasoning-parser kimi_k2
