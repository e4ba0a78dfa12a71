# Copied from https://github.com/sgl-project/sglang/pull/5813 (2025-04-28; seen 2026-12-03): the launch whose server_args line the PR shows (model_path and tokenizer_path the repo id, served_model_name the same).
python3 -m sglang.launch_server --model-path meta-llama/Llama-3.2-1B-Instruct --host 127.0.0.1 --port 8000
