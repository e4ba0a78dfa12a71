# source: https://github.com/sgl-project/sglang/issues/5755 (2025-04-25) "[Bug] Llama4 Scout will hit OOM during launch_server on 8 H200"
# GPU: the title says 8 H200; the OOM line says "GPU 3 has a total capacity of 79.10 GiB" (an 80 GB card). Release: SGLang main of
# 2025-04-25. "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 80.04 GiB. ... 20.08 GiB is free. Process 806478 has 59.01 GiB
# memory in use." Model config: models/llama-4-scout-17b-16e.
python3 -m sglang.launch_server --model meta-llama/Llama-4-Scout-17B-16E-Instruct --trust-remote-code --tp 8 --disable-cuda-graph
