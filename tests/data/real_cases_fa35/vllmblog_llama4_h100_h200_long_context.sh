# Reconstructed (not copied) after https://blog.vllm.ai/2025/04/05/llama4.html
# (2025-04 vLLM blog, "Llama 4 in vLLM", Usage Guide: `pip install -U vllm` (v0.8.3 or later), then Scout and
# Maverick on 8 H100 and on 8 H200 with long `--max-model-len`)
pip install -U vllm

# On 8x H100 GPUs: Scout (up to 1M context)
vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct \
  --tensor-parallel-size 8 \
  --max-model-len 1000000

# Maverick (up to ~430K context)
vllm serve meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8 \
  --tensor-parallel-size 8 \
  --max-model-len 430000

# On 8x H200 GPUs: Scout (up to 3.6M context)
vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct \
  --tensor-parallel-size 8 \
  --max-model-len 3600000

# Maverick (up to 1M context)
vllm serve meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8 \
  --tensor-parallel-size 8
