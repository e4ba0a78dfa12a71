# https://github.com/beita6969/new-colab/blob/HEAD/launch_vllm_safe.sh (2025-2026), seen 2026-12-05: a gpt-oss-120b server started with VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1, a name vLLM 0.8.5.post1-0.10.2 had; gpt-oss needs 0.10.1 or later, and from 0.11.0 the name is refused at start-up. The script as posted (its echo/sleep/curl lines after the launch dropped); nothing names the release.
export VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1
export CUDA_VISIBLE_DEVICES=3
export TOKENIZERS_PARALLELISM=false

python3 -m vllm.entrypoints.openai.api_server \
  --model /home/yijia/lhy/openai/gpt-oss-120b \
  --port 8002 \
  --tensor-parallel-size 1 \
  --gpu-memory-utilization 0.7 \
  --max-model-len 2048 \
  --dtype bfloat16 \
  --disable-log-requests \
  2>&1 | tee logs/vllm_safe.log &
