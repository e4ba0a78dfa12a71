# Reconstructed (not copied) after https://github.com/BjornWest/instance_scripts/blob/0a9de60e74363688a5d0d527854c852c6f12b808/vllm_scripts/120b.sh, seen 2026-12-04: `source ~/vllm_env/bin/activate`, then `vllm serve openai/gpt-oss-120b` with chunked prefill, its last line ending in a blank (no newline).
source ~/vllm_env/bin/activate
vllm serve openai/gpt-oss-120b \
    --gpu-memory-utilization 0.75 \
    --host 127.0.0.1 \
    --max-num-seqs 32 \
    --enable-chunked-prefill \
    --port 8000 \
    --max-model-len 8192 