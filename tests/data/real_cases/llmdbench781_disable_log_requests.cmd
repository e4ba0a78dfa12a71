# Reconstructed (not copied) after https://github.com/llm-d/llm-d-benchmark/pull/781, seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000 --disable-log-requests
