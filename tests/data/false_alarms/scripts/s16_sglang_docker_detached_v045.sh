# Reconstructed (not copied) after https://github.com/dmitrymailk/hidden_capacity_reasoning/blob/7dca4ef1a0f9412aeb0f14d0c58dc371697047b7/sglang.sh, seen 2026-12-03: the volume and model variables, `docker run -d -ti --rm --gpus all` on lmsysorg/sglang:v0.4.5-cu125 with -w /code, port 1337:30000, and the server line.
volume=$PWD/data
model=deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B
docker run -d -ti --rm --gpus all \
    --shm-size 1g \
    -p 1337:30000 \
    -v $volume:/root/.cache/huggingface \
    -v ./:/code \
    -w /code \
    --ipc=host \
    lmsysorg/sglang:v0.4.5-cu125 \
    python3 -m sglang.launch_server --model-path $model --host 0.0.0.0 --port 30000
