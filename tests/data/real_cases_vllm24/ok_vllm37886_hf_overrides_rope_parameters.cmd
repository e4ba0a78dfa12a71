# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/37886 (2026-03-23: "using --hf-overrides '{"rope_parameters": ...}' to replace --rope-scaling", the docs PR #37430; the guide's YaRN values)
vllm serve Qwen/Qwen3-8B --hf-overrides '{"rope_parameters": {"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}}' --max-model-len 131072
