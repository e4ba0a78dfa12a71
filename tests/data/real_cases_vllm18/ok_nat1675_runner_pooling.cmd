# https://github.com/NVIDIA/NeMo-Agent-Toolkit/pull/1675 (correct: the guide's command after the PR, for vLLM 0.16.0)
CUDA_VISIBLE_DEVICES=1 vllm serve --port 8001 --runner pooling --convert embed --pooler-config '{"pooling_type": "MEAN"}' ssmits/Qwen2-7B-Instruct-embed-base
