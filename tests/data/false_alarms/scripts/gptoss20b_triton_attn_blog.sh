# Reconstructed (not copied) after https://juejin.cn/post/7537505390113685546 (How to Run vLLM with GPT-OSS-20B), seen 2026-12-01: the pinned install line (vllm==0.10.1+gptoss), the variable set before the server and its flags.
pip install --pre vllm==0.10.1+gptoss --extra-index-url https://wheels.vllm.ai/gpt-oss/ --index-strategy unsafe-best-match
VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1 vllm serve /path/to/gpt-oss-20b \
    --host 192.168.31.103 \
    --port 8000 \
    --served-model-name openai/gpt-oss-20b \
    --tensor-parallel-size 1 \
    --gpu-memory-utilization 0.9 \
    --max-model-len 26384 \
    --async-scheduling \
    --uvicorn-log-level debug
