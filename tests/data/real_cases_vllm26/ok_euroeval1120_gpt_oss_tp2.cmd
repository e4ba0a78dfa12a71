# https://github.com/EuroEval/EuroEval/issues/1120 (comment of 2025-09-01) -- correct: gpt-oss-120b on vLLM 0.10.1.1 ("vLLM API server version 0.10.1.1", the server starts and serves).
python3 -m vllm.entrypoints.openai.api_server \
    --model openai/gpt-oss-120b \
    --host 0.0.0.0 \
    --port 8000 \
    --tensor-parallel-size 2 \
    --gpu-memory-utilization 0.9
