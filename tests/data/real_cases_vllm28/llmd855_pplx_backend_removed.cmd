# Reconstructed (not copied) after https://github.com/llm-d/llm-d/pull/855: "the all2all backend has been removed from vLLM in https://github.com/vllm-project/vllm/pull/33724"; a launch still asking for pplx (a vLLM 0.33.0 image, as a new user runs it); the model and sizes are stand-ins
vllm serve Qwen/Qwen3-30B-A3B --data-parallel-size 2 --enable-expert-parallel --all2all-backend pplx
