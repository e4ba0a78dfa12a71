# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/8256 (2025-07-22, sglang[all]>=0.4.7.post1), seen 2026-12-03: Skywork-Reward-V2-Llama-3.1-8B (a LlamaForSequenceClassification reward model) served with --is-embedding, one server per GPU; the scheduler dies with "AssertionError: embedding is not supported yet". The reporter's loop as posted.
NUM_GPUS=8
for (( i=0; i<NUM_GPUS; i++ )); do
    echo "Starting server on port $((8000+i)) with GPU: $i"
    CUDA_VISIBLE_DEVICES=$i python -m sglang.launch_server \
        --model-path Skywork/Skywork-Reward-V2-Llama-3.1-8B \
        --mem-fraction-static 0.9 \
        --tp 1 \
        --host 127.0.0.1 \
        --port $((8000+i)) \
        --context-length 16384 \
        --is-embedding \
        &
done
