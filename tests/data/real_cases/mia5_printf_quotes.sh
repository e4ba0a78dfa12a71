# Reconstructed (not copied) after https://github.com/MiaAI-Lab/Qwen3.8-Flash-Next-Single-DGX-Spark/issues/5, seen 2026-12-01: the script's server command and what it sets before it.
MODEL=Qwen/Qwen3-Next-80B-A3B-Instruct
MTP_TOKENS=2
VLLM_ARGS=(serve "$MODEL" --port 8000)
VLLM_ARGS+=("--speculative-config" "$(printf "'{\"method\":\"mtp\",\"num_speculative_tokens\":%d}'" "$MTP_TOKENS")")
VLLM_ARGS+=("--compilation-config" "$(printf "'{\"mode\":%d}'" 0)")
vllm "${VLLM_ARGS[@]}"
