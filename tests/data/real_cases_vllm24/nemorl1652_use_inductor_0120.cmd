# Reconstructed (not copied) after https://github.com/NVIDIA-NeMo/RL/issues/1652 (2025-12-17: "The 'use_inductor' flag is deprecated and will be removed in the next release (v0.12.0). Please use the 'backend' option instead"; removed by vllm PR#29323; the setting as a server flag on 0.12.0)
vllm serve Qwen/Qwen3-8B --compilation-config '{"use_inductor": false}'
