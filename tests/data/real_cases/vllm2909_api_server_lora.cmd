# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/2909, seen 2026-12-02: the command line as the report shows it (no release named).
python -m vllm.entrypoints.api_server --model meta-llama/Llama-2-7b-hf --enable-lora --lora-modules sql-lora=~/.cache/huggingface/hub/models--yard1--llama-2-7b-sql-lora-test/
