# Reconstructed (not copied) after https://github.com/MmMmaru/Medical-Agentic-RAG/blob/0c31d490f630b5486e7bd88d121fdfd9bc2eca2b/scripts/vlm_server.sh, seen 2026-12-04: `export CUDA_VISIBLE_DEVICES=0` and `vllm serve Qwen/Qwen3-VL-4B-Instruct` on an RTX 5090 with DP, TP and PP sizes all written as 1, `--uvicorn-log-level info`, then a commented-out MedGemma launch (TP 2 x PP 3) whose last line ends in a backslash and the file with no newline (kept: the structure and the flags)
# with 5090
export CUDA_VISIBLE_DEVICES=0
vllm serve Qwen/Qwen3-VL-4B-Instruct \
    --host 127.0.0.1 \
    --port 8000 \
    --uvicorn-log-level info \
    --dtype bfloat16 \
    --data-parallel-size 1 \
    --tensor-parallel-size 1 \
    --pipeline-parallel-size 1 \
    --max-model-len 4096 \
    --max-num-seqs 256 \
    --gpu-memory-utilization 0.8 \
    --served-model-name Qwen3-VL-4B-Instruct

# vllm serve google/medgemma-1.5-4b-it \
#     --host 127.0.0.1 \
#     --port 8000 \
#     --dtype float32 \
#     --tensor-parallel-size 2 \
#     --pipeline-parallel-size 3 \
#     --max-model-len 4096 \
#     --gpu-memory-utilization 0.9 \