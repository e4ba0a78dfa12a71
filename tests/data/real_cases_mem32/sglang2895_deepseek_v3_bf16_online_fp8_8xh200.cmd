# source: https://github.com/sgl-project/sglang/issues/2895 (2025-01-15) "[Bug] DeepSeek V3 OOM when quantizing bf16 to fp8 (8xh200)"
# GPU: 8x H200 (the traceback: "GPU 3 has a total capacity of 139.72 GiB ... 136.20 GiB is allocated by PyTorch"). Release: SGLang of January 2025, not named.
# The report: "When loading the bf16 converted weights for DSV3 using the `--quantization fp8` arg, we expect the model weights to be streamed
# in chunks and to be quantized, but ... it OOMs"; a commenter: "online dynamic quantization requires loading all bf16 weights into VRAM first".
# Stand-in: the command is not posted; the report names the bf16 checkpoint, --quantization fp8 and the 8 GPUs (tp 8, as SGLang's DeepSeek-V3 guide runs it).
# Model config: models/deepseek-v3-bf16 (tests/data/models/deepseek-v3 without its quantization_config, as a bf16 conversion has none).
python3 -m sglang.launch_server --model-path /models/DeepSeek-V3-bf16 --tp 8 --trust-remote-code --quantization fp8
