# deepseek-ai/DeepSpec README usage of the same script (all eight GPUs, no CUDA_VISIBLE_DEVICES): the launch
# the issue calls the unchanged default (https://github.com/deepseek-ai/DeepSpec/issues/36).
bash scripts/data/launch_sglang_server.sh
