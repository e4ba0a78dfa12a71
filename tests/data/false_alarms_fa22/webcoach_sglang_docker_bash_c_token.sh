# Reconstructed (not copied) after https://github.com/genglinliu/WebCoach/blob/477ca2437d60f6f1e12d1d16a6aa4c6f815fa10f/start_LLM_inference/ASG/start_sglang_server_qwen_vl_7b.sh, seen 2026-12-04: `mkdir -p` of the cache, `docker run --gpus '"device=5"'` with a Hugging Face token written in `--env "HF_TOKEN=..."` (replaced here by a fake one of the same shape), and `bash -c "python3 -m sglang.launch_server ..."` in lmsysorg/sglang:latest (no newline at the end).
mkdir -p /fsx-neo/genglin/.cache/huggingface

docker run --gpus '"device=5"' \
    --shm-size 32g \
    -p 30003:30003 \
    -v /fsx-neo/genglin/.cache/huggingface:/root/.cache/huggingface \
    --env "HF_TOKEN=hf_FakeTokenFakeTokenFakeTokenFakeTok" \
    --ipc=host \
    lmsysorg/sglang:latest \
    bash -c "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-VL-7B-Instruct --host 0.0.0.0 --port 30003 --tp-size 1 --mem-fraction-static 0.7"