# https://github.com/HYGON-AI/inference-cookbook-das/issues/132 (2026-06-05: the cookbook's command on the DAS 0.18.1 image: "--disable-log-requests" not recognised; it ran on the 0.15 image)
vllm serve Qwen/Qwen3-0.6B --disable-log-requests
