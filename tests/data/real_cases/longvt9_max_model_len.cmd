# Reconstructed (not copied) after https://github.com/EvolvingLMMs-Lab/LongVT/issues/9, seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
vllm serve Qwen/Qwen2.5-72B-Instruct --port 1234 --gpu-memory-utilization 0.8 --max-model-len 131072 --tensor-parallel-size 8 --served-model-name "judge" --trust-remote-code
