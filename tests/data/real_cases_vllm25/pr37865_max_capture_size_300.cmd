# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/37865 (2026-03-23: "if the configured max was not aligned with the built-in step sizes, it could be silently truncated to the previous stepped value (for example, 257 -> 256, 300 -> 288)")
vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 300 --max-cudagraph-capture-size 300
