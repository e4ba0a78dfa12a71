# source: https://github.com/sgl-project/sglang/issues/6817 (2025-06-02) "[Bug] Llama4 Scout hits OOM on 8 H200 even with 1M context length"
# GPU: 8x H200. Release: sglang==0.4.6.post5. The same OOM as sglang#5755: "torch.OutOfMemoryError: CUDA out of memory. Tried to
# allocate 80.04 GiB". Model config: models/llama-4-scout-17b-16e.
python -m sglang.launch_server --model-path meta-llama/Llama-4-Scout-17B-16E-Instruct --port 30000 --tp 8 --context-length 1000000 --mem-fraction-static 0.8
