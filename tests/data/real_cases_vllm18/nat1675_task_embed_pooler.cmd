# https://github.com/NVIDIA/NeMo-Agent-Toolkit/pull/1675 (the guide's command before the PR, which moves it to vLLM 0.16.0: --task and --override-pooler-config no longer exist; the PR's line is --runner pooling --convert embed --pooler-config)
CUDA_VISIBLE_DEVICES=1 vllm serve --task embed --override-pooler-config '{"pooling_type": "MEAN"}' --port 8001 ssmits/Qwen2-7B-Instruct-embed-base
