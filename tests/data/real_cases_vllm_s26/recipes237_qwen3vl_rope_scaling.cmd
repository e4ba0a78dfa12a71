# Reconstructed (not copied) after https://github.com/vllm-project/recipes/pull/237: the Qwen3-VL recipe's YaRN launch with --rope-scaling, which vLLM 0.11.1 removed (--hf-overrides replaces it)
vllm serve Qwen/Qwen3-VL-235B-A22B-Instruct --tensor-parallel-size 8 --rope-scaling '{"rope_type":"yarn","factor":3.0,"original_max_position_embeddings":262144}' --max-model-len 1000000
