# Reconstructed (not copied) after https://github.com/STHSF/llm-inf/blob/443d8c68bf425f6c74fa395993f30ca0525ce1e0/run_local.sh, seen 2026-12-04: a commented-out MODEL, then MODEL and the api_server command whose continued lines mix tabs and blanks, with `--gpu-memory-utilization 1.0`.
# MODEL="/mnt/hf_models/Qwen-7B-Chat"

MODEL="/mnt/hf_models/qwen2/Qwen2-7B-Instruct"

python3 -m vllm.entrypoints.openai.api_server \
	--port 8090 \
	--model $MODEL \
    	--served-model-name "qwen1.5-7b" \
    	--trust-remote-code \
    	--tensor-parallel-size 2  \
    	--gpu-memory-utilization 1.0 \
    	--enforce-eager
