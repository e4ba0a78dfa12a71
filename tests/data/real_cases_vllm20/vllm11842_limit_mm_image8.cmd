# https://github.com/vllm-project/vllm/issues/11842 (vLLM 0.6.6.post1, 2025-01-08: 8 images' worst case does not fit Qwen2-VL's 32768 tokens; a CUDA index error follows)
python -m vllm.entrypoints.openai.api_server \
--model "./Qwen2-VL-7B-Instruct" \
--served-model-name "Qwen2-VL-7B-Instruct" \
--device cuda \
--limit-mm-per-prompt image=8
