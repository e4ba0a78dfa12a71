# Reconstructed (not copied) after https://github.com/wagerc97/gpt-oss-alignment/blob/0a02f32d110b13444bb70746fce319042bd6a197/vllm.sh, seen 2026-12-04: `python -u` with `-m vllm.entrypoints.openai.api_server` on the next, tab-indented line, gpt-oss-20b with tp 8 (no newline at the end).
python -u \
	-m vllm.entrypoints.openai.api_server \
	--host 0.0.0.0 \
	--port 8010 \
	--model openai/gpt-oss-20b \
	--served-model-name code-gen \
	--tensor-parallel-size 8