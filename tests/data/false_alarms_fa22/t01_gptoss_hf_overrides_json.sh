# Reconstructed (not copied) after https://github.com/alan-turing-institute/t0-1/blob/1169c899f97e0762ecdac6bcfede8a76ea535b92/scripts/spark/serve_gpt-oss_with_tools.sh, seen 2026-12-04: `vllm serve openai/gpt-oss-20b` with `--generation-config vllm`, a single-quoted `--hf-overrides` JSON (yarn rope scaling) and the openai tool-call parser.
vllm serve openai/gpt-oss-20b \
--seed 42 \
--generation-config vllm \
--port 8020 \
--tensor-parallel-size 1 \
--max-model-len 131072 \
--hf-overrides '{"rope-scaling": {"factor":4, "original_max_position_embeddings": 32768, "rope_type":"yarn"}}' \
--enable-auto-tool-choice \
--tool-call-parser openai \
--gpu-memory-utilization 0.5
