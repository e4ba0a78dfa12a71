# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/13584 (2025-11-19, merged), seen 2026-12-03: the accuracy-test launch of the PR that enables the radix cache for Mamba2 models (NVIDIA-Nemotron-Nano-9B-v2, GSM8K 0.878).
python -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-Nano-9B-v2 --max-running-requests 16 --chunked-prefill-size 64
