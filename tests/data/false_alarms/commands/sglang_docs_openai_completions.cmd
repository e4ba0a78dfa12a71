# Reconstructed (not copied) after https://docs.sglang.io/basic_usage/openai_api_completions.html (Launch A Server), seen 2026-12-01: the launch_server flags, one command line.
python3 -m sglang.launch_server --model-path qwen/qwen2.5-0.5b-instruct --host 0.0.0.0 --log-level warning
