# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/48402 (2026-07-12: "max_model_len 16384 (> block size 8320): hits = 16640 out of 38448 (~43%)", the same model and GPU as vllm#48401)
vllm serve nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4 --enable-prefix-caching --max-model-len 16384
