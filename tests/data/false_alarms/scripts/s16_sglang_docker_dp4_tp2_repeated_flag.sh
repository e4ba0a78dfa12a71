# Reconstructed (not copied) after https://github.com/marieai/marie-ai/blob/97ef02b7a83c963063ed8b51bec5e7aa3ef06722/config/sglang/sglang-qwq-x8.sh, seen 2026-12-03: eight GPUs through `--gpus '"device=0,...,7"'`, and the QwQ-32B launch with fp8, --dp-size 4 --tp 2 --pp-size 1 and --attention-backend flashinfer given twice (argparse keeps the last, the same value).
docker run --gpus '"device=0,1,2,3,4,5,6,7"' \
  --shm-size 32g \
  -p 8000:8000 \
  -e OMP_NUM_THREADS=1 \
  -v ~/.cache/huggingface:/root/.cache/huggingface \
  --ipc=host \
  lmsysorg/sglang:latest \
  python3 -m sglang.launch_server \
    --model-path Qwen/QwQ-32B \
    --host 0.0.0.0 --port 8000 \
    --trust-remote-code \
    --attention-backend flashinfer \
    --quantization fp8 \
    --chat-template qwen2-vl \
    --attention-backend flashinfer \
    --dp-size 4 \
    --tp 2 \
    --pp-size 1 \
    --schedule-policy fcfs \
    --schedule-conservativeness 0.1 \
    --max-running-requests 64 \
    --mem-fraction-static 0.7
