# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/17250 (2025-04-27, comment by seasoncool, vLLM 0.8.4), seen 2026-12-02: the modified command after the maintainers' reply; a new error after the weights load (the log in the report is cut before it).
python -m vllm.entrypoints.openai.api_server \
--served-model-name Qwen2___5-VL-32B-Instruct-AWQ \
--model /home/Qwen2___5-VL-32B-Instruct-AWQ \
--tensor-parallel-size 2 \
--dtype=half \
--gpu_memory_utilization 0.9 \
--max_num_seqs 10 \
--limit-mm-per-prompt "image=3,video=0" \
--enable-auto-tool-choice \
--tool-call-parser=llama3_json \
--trust-remote-code \
--enforce-eager \
--port=7777 \
--max-model-len 20000
