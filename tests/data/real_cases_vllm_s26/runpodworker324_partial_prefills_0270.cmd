# Reconstructed (not copied) after https://github.com/runpod-workers/worker-vllm/pull/324: the flag the worker passed from MAX_NUM_PARTIAL_PREFILLS before moving it to REMOVED_FLAGS for vLLM 0.27.0
vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --max-num-partial-prefills 2
