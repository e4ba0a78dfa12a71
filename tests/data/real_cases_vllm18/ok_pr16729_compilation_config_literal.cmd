# https://github.com/vllm-project/vllm/pull/16729 (correct: the docs' example of 2025-04-16, vLLM 0.8.4 era; CompilationConfig.from_cli reads the value with ast.literal_eval, vllm/config.py:3529 in 0.8.5, so a Python dict literal is accepted; release not named)
VLLM_USE_V1=1 vllm serve meta-llama/Llama-3.2-1B --compilation-config "{'cudagraph_capture_sizes': [1, 2, 4, 8]}"
