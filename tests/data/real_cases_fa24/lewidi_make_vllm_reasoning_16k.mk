# Reconstructed (not copied) after https://github.com/tomasruizt/lewidi2025/blob/0d1fabe24f042bbd91181bd22f52829935b60c23/Makefile, seen 2026-12-04: a `vllm-qwen3-thinking` target (Qwen3-4B, `--enable-reasoning --reasoning-parser deepseek_r1`, `--task generate`, `--max-model-len 16k`, `--disable-uvicorn-access-log`, tab-indented continuations), then two `python inference.py` targets and two streamlit targets, no final newline.
.PHONY: vllm-qwen3-thinking

vllm-qwen3-thinking:
	vllm serve Qwen/Qwen3-4B \
		--dtype auto \
		--enable-reasoning \
		--reasoning-parser deepseek_r1 \
		--task generate \
		--disable-log-requests \
		--max-model-len 16k \
		--gpu-memory-utilization 0.8 \
		--enable-chunked-prefill \
		--disable-uvicorn-access-log \
		--enforce-eager \
		--max-num-seqs 1000 \
		--port 8000


inference:
	python inference.py \
		--model_id Qwen/Qwen3-4B \
		--datasets CSC \
		--n_examples 10 \
		--vllm_start_server=False \
		--max_tokens 10000

gemini-inference:
	python inference.py \
		--model_id gemini-2.5-pro \
		--datasets CSC \
		--vllm_start_server False \
		--max_tokens 10000

stapp:
	python -m streamlit run st_app/app.py

rateapp:
	python -m streamlit run st_app/rate_reasoning.py