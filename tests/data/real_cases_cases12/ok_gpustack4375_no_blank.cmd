# Reconstructed (not copied) after https://github.com/gpustack/gpustack/issues/4375 (seen 2026-12-02): the same parameter without the blank, as the fix in GPUStack's dev branch (3030520) passes it. Model path: a placeholder, as in gpustack4375_blank_before_flag.cmd.
vllm serve /var/lib/gpustack/cache/huggingface/Qwen/Qwen3-8B --reasoning-parser=deepseek_r1
