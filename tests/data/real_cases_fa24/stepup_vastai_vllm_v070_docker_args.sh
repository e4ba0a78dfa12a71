# Reconstructed (not copied) after https://github.com/DoanNgocCuong/MiniProd_NLP2_IntentClassification_MappingFastResponse_ver2_T8_2025_StepUpEducation/blob/7cc097c68aa5d3d51700776ec9e46ab5d2707fa0/vllm.sh, seen 2026-12-04: no shebang, a comment naming v0.7.0, `docker run --gpus '"device=1"'` of the vastai/vllm:v0.7.0 image with `-v $(pwd)/tuning:...`, then engine flags (`--api-key`, `--block-size 16`, `--swap-space 4`), no final newline.
# backup option with v0.7.0
docker run --runtime nvidia --gpus '"device=1"' \
    -v ~/.cache/huggingface:/root/.cache/huggingface \
    -v $(pwd)/tuning:/workspace/tuning \
    -p 30005:8000 \
    --ipc=host \
    vastai/vllm:v0.7.0-cuda-12.1-pytorch-2.5.1-py312 \
    --model /workspace/tuning/pretrained_models/exported_full_model \
    --api-key hoailb-vllm \
    --gpu-memory-utilization 0.7 \
    --max-model-len 1024 \
    --max-num-seqs 16 \
    --block-size 16 \
    --swap-space 4