# https://github.com/vllm-project/vllm/issues/37886 (2026-03-23: the Qwen deployment guide's YaRN command no longer works; "using --hf-overrides '{"rope_parameters": ...}' to replace --rope-scaling"; the guide's command as the report quotes it)
vllm serve Qwen/Qwen3-8B --rope-scaling '{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}' --max-model-len 131072
