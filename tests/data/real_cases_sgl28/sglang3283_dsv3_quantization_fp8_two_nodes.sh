# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/3283 (2025-02, closed), seen 2026-12-04: DeepSeek-V3 on two H100 nodes dies with a segmentation fault; the maintainer: "Deepseek V3 is already in FP8. So we should not run it with --quantization fp8 --kv-cache-dtype fp8_e5m2" (then written into docs/references/deepseek.md, PR#3314). The two flags are the report's; the rest follows the multi-node command of that page (address and port are stand-ins); both nodes' starts are in this file.
# node 0
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dist-init-addr 10.0.0.1:5000 --nnodes 2 --node-rank 0 --trust-remote-code --quantization fp8 --kv-cache-dtype fp8_e5m2
# node 1
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dist-init-addr 10.0.0.1:5000 --nnodes 2 --node-rank 1 --trust-remote-code --quantization fp8 --kv-cache-dtype fp8_e5m2
