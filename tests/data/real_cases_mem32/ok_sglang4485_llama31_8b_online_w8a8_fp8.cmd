# source: https://github.com/sgl-project/sglang/pull/4485 (2025-03-17) "Support Online Quantization for W8A8"
# Correct launch: "Online Quantize a non-quantized model with `--quantization w8a8_fp8`: 0.789" (GSM8K), served and benchmarked.
# GPU: not named (one device). Release: the PR's branch (SGLang of March 2025). Model config: models/llama-3.1-8b (a copy of tests/data/models/llama-3.1-8b).
python3 -m sglang.launch_server --model /shared/public/models/meta-llama/Meta-Llama-3.1-8B-Instruct  --trust-remote-code --quantization w8a8_fp8
