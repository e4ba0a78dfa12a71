# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/49124: the PR's reproducer case "multinode_without_mp" (EngineArgs keywords) as the vllm serve flags
vllm serve deepseek-ai/DeepSeek-V2-Lite-Chat --nnodes 2 --data-parallel-backend ray
