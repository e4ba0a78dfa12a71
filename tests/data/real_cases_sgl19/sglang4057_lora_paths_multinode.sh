# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/4057 (2025-03-04), seen 2026-12-03: two LoRA adapters given as name=path on a multi-node launch ("LoRA Model Not Appearing or Working with sglang Server"); the script's arguments are the TP size, the init address and the node count. As posted, up to where the report's text is cut (after --nnodes $3).
python -m sglang.launch_server \
       --model-path /data/jdy/model/DeepSeek-R1-Distill-Qwen-14B \
       --lora-paths lora1=/data/jdy/proj/ms-swift/output/v42-20250304-014952/checkpoint-100 lora2=/data/jdy/proj/ms-swift/output/v42-20250304-014952/checkpoint-100 \
       --max-running-requests 1024 \
       --lora-backend triton \
       --disable-cuda-graph \
       --disable-radix-cache \
       --context-length 131072 \
       --trust-remote-code \
       --port 8000 \
       --host 0.0.0.0 \
       --tp $1  \
       --dist-init-addr $2\
       --nnodes $3
