# Reconstructed (not copied) after https://github.com/dfy37/lifesim/blob/cfa066cd6b2d48a5560d08ff0f22731864599e37/scripts/run_assistant_model.sh, seen 2026-12-04: Qwen3-32B on GPUs 4-7, `${MODEL_PATH}` and `${MAX_MODEL_LENGTH}` set above, `--dtype auto`, an API key (kept: the whole launch)
MODEL_PATH=/remote-home/share/LLM_CKPT/huggingface_models/Qwen3-32B

MAX_MODEL_LENGTH=16384

CUDA_VISIBLE_DEVICES=4,5,6,7 vllm serve ${MODEL_PATH} \
    --host 0.0.0.0 \
    --port 8001 \
    --dtype auto \
    --tensor-parallel-size 4 \
    --gpu-memory-utilization 0.9 \
    --max-model-len ${MAX_MODEL_LENGTH} \
    --api-key 123
