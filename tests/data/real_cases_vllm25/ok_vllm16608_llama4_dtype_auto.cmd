# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/16608 (2025-04-14, vllm 0.8.3: the maintainer's "Scout has dtype of bf16 ... Try auto?", the report's command with it)
python -m vllm.entrypoints.openai.api_server \
    --model meta-llama/Llama-4-Scout-17B-16E-Instruct \
    --tensor-parallel-size 8 \
    --dtype auto
