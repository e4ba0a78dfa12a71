# source: https://github.com/QwenLM/Qwen3-VL/issues/1224 (2025-05-21) "vllm serve Qwen/Qwen2.5-VL-7B-Instruct-AWQ到底需要多大显存？16G都不够，能限制它在16G以内吗？"
# ("How much GPU memory does vllm serve Qwen/Qwen2.5-VL-7B-Instruct-AWQ need? 16 GB is not enough"). GPU: a 16 GB card (name not in the
# part returned). Release: V0 model runner (model_runner.py:1110), max_capture_size 256. The launch is the title's.
# Model config: models/qwen2.5-vl-7b-awq (models/qwen2.5-vl-7b with the AWQ checkpoint's quantization_config, vision tower not converted).
vllm serve Qwen/Qwen2.5-VL-7B-Instruct-AWQ
