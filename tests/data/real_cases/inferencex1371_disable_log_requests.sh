# Reconstructed (not copied) after https://github.com/SemiAnalysisAI/InferenceX/pull/1371, seen 2026-12-01: the script's server command and what it sets before it.
MODEL=openai/gpt-oss-120b
vllm serve $MODEL --host 0.0.0.0 --port 8888 --tensor-parallel-size 8 --gpu-memory-utilization 0.9 --max-num-seqs 512 --disable-log-requests
