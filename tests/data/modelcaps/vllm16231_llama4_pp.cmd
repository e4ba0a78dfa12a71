# https://github.com/vllm-project/vllm/issues/16231 (2025-04-08; the fix came in 0.8.4, so 0.8.3 or older): "Pipeline
# parallelism is not supported for this model." The command as posted.
python3 -m vllm.entrypoints.openai.api_server --port 8080 --model meta-llama/Llama-4-Maverick-17B-128E-Instruct --tensor-parallel-size 8 --pipeline-parallel-size 2
