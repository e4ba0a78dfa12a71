# source: https://github.com/sgl-project/sglang/issues/7006 (2025-06-09) "[Bug] Qwen3-32B-FP8 - 2 GPU"
# GPU: 2 cards of 15.77 GiB ("GPU 1 has a total capacity of 15.77 GiB"); the card's name is not in the part returned. Release: not named.
# "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 26.00 MiB. ... this process has 14.05 GiB memory in use."
# Model config: models/qwen3-32b-fp8 (Qwen3-32B with the FP8 checkpoint's block quantization).
export CUDA_VISIBLE_DEVICES=0,1
python -m sglang.launch_server --model-path mymodels --tp-size 2 --port 30000 --host 0.0.0.0
