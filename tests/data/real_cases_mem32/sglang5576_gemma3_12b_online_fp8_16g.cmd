# source: https://github.com/sgl-project/sglang/issues/5576 (2025-04-20) "[Bug] torch.OutOfMemoryError: CUDA out of memory for 16GB Vram while trying to inference gemma-3-12b-IT"
# GPU: one RTX 4070 Ti SUPER, 16 GB (argtrace has no profile for it). Release: lmsysorg/sglang:latest of April 2025, not named.
# The report: CUDA out of memory, "GPU 0 has a total capacity of 15.58 GiB ... 13.64 GiB is allocated by PyTorch", also after lowering
# --mem-fraction-static to 0.6 and after removing --dtype ("I removed dtype and only used --quantization fp8").
# Stand-in: the posted command is cut after --mem-fraction-static; 0.6 is the value the first answer suggested and the reporter ran.
# Model config: models/gemma-3-12b-it (the Gemma-3-12B config public code quotes, see README.md).
podman run --gpus all -p 30000:30000 -v ~/.cache/huggingface:/root/.cache/huggingface --env "HF_TOKEN=hf_xxx" --ipc=host lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path google/gemma-3-12b-it --dtype=float16 --kv-cache-dtype fp8_e4m3 --host 0.0.0.0 --port 30000 --quantization fp8 --context-length 7000 --max-total-tokens 30000 --attention-backend flashinfer --mem-fraction-static 0.6
