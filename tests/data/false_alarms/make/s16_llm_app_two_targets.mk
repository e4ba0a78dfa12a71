# Reconstructed (not copied) after https://github.com/tomasruizt/llm_app/blob/0d3bfce4fd7b1691c4b47697421ded0ed1c2348f/Makefile, seen 2026-12-03: the .PHONY line and the two server targets (Qwen2.5-VL generate with its multimodal limits; Whisper transcription with VLLM_USE_V1=0 in front), recipes continued with backslashes.
.PHONY: vllm-server
.PHONY: whisper-vllm

vllm-server:
	python -m vllm.entrypoints.openai.api_server \
		--model Qwen/Qwen2.5-VL-3B-Instruct \
		--task generate \
		--max-model-len 32768 \
		--max-seq-len-to-capture 32768 \
		--dtype bfloat16 \
		--allowed-local-media-path=/ \
		--limit-mm-per-prompt "image=50,video=2" \
		--disable-log-requests \
		--port 8000 \
		--host 127.0.0.1 \
		--gpu-memory-utilization 0.8 \
		--enforce-eager

whisper-vllm:
	VLLM_USE_V1=0 python -m vllm.entrypoints.openai.api_server \
		--model openai/whisper-large-v3-turbo \
		--task transcription \
		--allowed-local-media-path=/ \
		--limit-mm-per-prompt "audio=1" \
		--disable-log-requests \
		--host 127.0.0.1 \
		--port 9000
