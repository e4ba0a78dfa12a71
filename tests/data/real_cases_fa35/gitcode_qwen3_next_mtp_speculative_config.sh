# Reconstructed (not copied) after https://blog.gitcode.com/79ed49ff783e30c3c0c340e3616d3057.html
# (2026-02 blog, a Qwen3-Next deployment guide: a uv venv with the nightly vLLM, a TP 4 start, and the MTP start
# with `--speculative-config '{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}'`; prose dropped)
uv venv
source .venv/bin/activate
uv pip install vllm --extra-index-url https://wheels.vllm.ai/nightly

vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct \
--tensor-parallel-size 4 \
--served-model-name qwen3-next

vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct \
--tokenizer-mode auto --gpu-memory-utilization 0.8 \
--speculative-config '{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}' \
--tensor-parallel-size 4 --no-enable-chunked-prefill
