# https://github.com/vllm-project/vllm/issues/22407 (2025-08-06: every request, even GET /v1/models, answered "401 Unauthorized"; the reporter: "I ... set VLLM_API_KEY=your-key in .bashrc". Reconstructed: the .bashrc line, then the server the report names)
export VLLM_API_KEY=your-key
vllm serve openai/gpt-oss-120b
