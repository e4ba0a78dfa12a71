# source: https://github.com/sgl-project/sglang/issues/11471 (2025-10-11) "[Bug] 0.5.3.post1 torch.OutOfMemoryError: CUDA out of memory. exception for Qwen3-VL-235B-A22B-Thinking-AWQ"
# GPU: 4x RTX 4090 48 GB (modded cards: argtrace has no profile, none passed). Release: lmsysorg/sglang:v0.5.3.post1. The report: CUDA
# out of memory at start-up with --mem-fraction-static 0.8 and 0.9. Model config: models/qwen3-vl-235b-a22b-awq (QuantTrio's AWQ
# checkpoint: the Qwen3-VL-235B-A22B geometry with a 4-bit AWQ quantization_config, vision tower not converted).
docker run -d --gpus all --shm-size 32g -p 30000:30000 -v /mnt/nvme/models:/root/.cache/hub/models --ipc=host lmsysorg/sglang:v0.5.3.post1 python3 -m sglang.launch_server --model-path /root/.cache/hub/models/Qwen3-VL-235B-A22B-Thinking-AWQ --host 0.0.0.0 --port 30000 --tp 4 --enable-multimodal --mem-fraction-static 0.9
