# Reconstructed (not copied) after https://github.com/beita6969/new-colab/blob/HEAD/launch_vllm_safe.sh, seen 2026-12-05: the same launch with the backend's name of the releases from 0.11.0 on (TRITON_ATTN), on vLLM 0.11.0 (the test's --framework-version): a correct use of the variable.
export VLLM_ATTENTION_BACKEND=TRITON_ATTN
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
