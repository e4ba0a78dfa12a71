# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/0be831a540af60953787cc703f302e9526bf8b2e/docs/advanced_features/separate_reasoning.ipynb ("Launching the Server"), seen 2026-12-03: a correct launch.
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-Distill-Qwen-7B --host 0.0.0.0 --reasoning-parser deepseek-r1
