# https://github.com/flagos-ai/vllm-plugin-FL/issues/127 (vLLM 0.13.0 named; "vllm: error: unrecognized arguments: --task embed"; the report's own analysis takes --task for a newer flag)
vllm serve /root/.cache/modelscope/hub/models/BAAI/bge-m3 --task embed --hf-overrides '{"architectures": ["BgeM3EmbeddingModel"]}'
