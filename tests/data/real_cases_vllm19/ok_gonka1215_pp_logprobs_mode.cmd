# https://github.com/gonka-ai/gonka/pull/1215 (vLLM 0.20.0, 2026-05-22: "Stand config", model and "Engine:" flags as posted; verified serving end to end)
vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 --pipeline-parallel-size 4 --enforce-eager --logprobs-mode processed_logprobs --max-model-len 128000 --enable-auto-tool-choice --tool-call-parser hermes --gpu-memory-utilization 0.92
