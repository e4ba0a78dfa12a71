# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/2884 (maintainer: '--model' is compatible), seen 2026-12-01: the command line from the report.
python -m sglang.launch_server --model meta-llama/Llama-3.1-8B-Instruct
