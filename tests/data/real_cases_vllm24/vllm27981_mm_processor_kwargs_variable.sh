# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/27981 (2025-11-03, Qwen2.5-VL: "I tried --mm-processor-kwargs {"max_pixels": $MAX_PIXELS}, it has no effect"; the report's flag in a script that sets the variable)
MAX_PIXELS=1003520
vllm serve Qwen/Qwen2.5-VL-7B-Instruct --mm-processor-kwargs {"max_pixels": $MAX_PIXELS}
