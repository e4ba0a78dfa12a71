# https://github.com/deepseek-ai/DeepSpec/issues/36 (2026-07-01): the command the reporter ran, from the repository root.
CUDA_VISIBLE_DEVICES=2,3 bash scripts/data/launch_sglang_server.sh
