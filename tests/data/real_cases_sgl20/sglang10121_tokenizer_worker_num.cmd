# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/10121 (2025-09-07, main), seen 2026-12-03: with ten tokenizer workers one worker keeps booting and dying ("Child process ... died") while nine start. As posted.
python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --tokenizer-worker-num 10
